import NFCTransport

/// How a virtual tag answered one frame.
public enum TagResponse: Equatable, Sendable {
  /// The bytes the tag sent back (without CRC).
  case data([UInt8])
  /// A Type 2 4-bit ACK (`A`).
  case ack
  /// A Type 2 4-bit NAK (0 invalid argument, 1 CRC, 4 auth counter, 5 EEPROM write).
  case nak(UInt8)
  /// No answer: the tag stays mute (unknown command, locked out, wrong state).
  case mute
}

/// How a tag identifies itself on the RF interface, which is what a reader face turns into an
/// ATR, an InListPassiveTarget answer and a GET DATA answer.
public enum RFTechnology: Equatable, Sendable {
  /// ISO 14443-3/-4 type A (Type 2 tags, Type 4A): SENS_RES (ATQA, 2 bytes as sent), SEL_RES (SAK),
  /// and for ISO-DEP the ATS (with TL).
  case typeA(sensRes: [UInt8], selRes: UInt8, ats: [UInt8]?)
  /// Innovision Jewel/Topaz (Type 1): SENS_RES and the header ROM bytes HR0 HR1.
  case jewel(sensRes: [UInt8], headerROM: [UInt8])
  /// FeliCa (Type 3): PMm and the system code answered to polling (`12 FC` for NDEF).
  case felica(pmm: [UInt8], systemCode: [UInt8])
  /// ISO 15693 vicinity card (Type 5): DSFID.
  case iso15693(dsfid: UInt8)
}

/// A software tag: memory plus the command set of one chip.
///
/// Models answer the frames the tag itself receives (Type 2 `30 pg`, a FeliCa frame with its
/// length byte, a Type 4 APDU, an ISO 15693 request with flags). Reader faces wrap them.
/// - Warning: Not thread-safe; a reader face serialises access.
public protocol VirtualTag: AnyObject {
  /// The NFC Forum platform.
  var platform: TagPlatform { get }
  /// UID (Types 1, 2, 4, 5; byte order as the reader reports it) or IDm (Type 3).
  var identifier: [UInt8] { get }
  /// How the tag identifies itself to a reader.
  var technology: RFTechnology { get }
  /// A short product name ("NTAG215").
  var productName: String { get }
  /// Answers one frame.
  func respond(to frame: [UInt8]) -> TagResponse
  /// The field went off and on: drop authentication, selections and other volatile state.
  func reset()
  /// The whole memory in address order: the image-file layout (Type 2: pages × 4 bytes;
  /// Type 1: bytes; Type 3: 16-byte blocks from the attribute block; Type 4: the CC file, then
  /// the NDEF file; Type 5: blocks).
  var memoryImage: [UInt8] { get }
  /// Increases whenever a command changed the memory, so an image file can be written back.
  var memoryGeneration: Int { get }
}

extension VirtualTag {
  /// The UID as people and tools show it: an ISO 15693 UID most significant byte (`E0`) first
  /// (ISO/IEC 15693-3 §4.1; ``identifier`` keeps its air order), the others as ``identifier``.
  /// (Package-wide, not public: a public protocol extension would be listed as a member of every
  /// virtual tag type, and so bring them all into the API of NFCSession, which re-exports
  /// ``VirtualTag``: scripts/product-api-closure.py.)
  package var shownIdentifier: [UInt8] { platform == .type5 ? identifier.reversed() : identifier }
}

/// A card as a PC/SC reader slot shows it: an ATR and APDUs in and out. Reader faces
/// (``VirtualTag``s behind an ACR122U or a Part 3 reader) implement it; the vpcd bridge and the
/// in-process simulator drive it.
/// - Warning: Not thread-safe; call from one thread at a time.
public protocol VirtualCard: AnyObject {
  /// The ATR the reader builds for the tag in its field.
  var atr: [UInt8] { get }
  /// Power on (vpcd `01`).
  func powerOn()
  /// Power off (vpcd `00`).
  func powerOff()
  /// Warm reset (vpcd `02`).
  func reset()
  /// Answers one command APDU with a response APDU (data + SW1 SW2, or a pseudo-APDU answer).
  /// Never empty.
  func transmit(_ apdu: [UInt8]) -> [UInt8]
  /// Answers one reader control command (`SCardControl`: `code` as pcsc-lite numbers it, see
  /// ``ReaderControlCode``), or nil when this reader does not take that code or data. nil by
  /// default: a card that is not a reader face takes none.
  func control(code: UInt32, _ data: [UInt8]) -> [UInt8]?
}

extension VirtualCard {
  /// No control command: the default for cards that are not reader faces.
  public func control(code: UInt32, _ data: [UInt8]) -> [UInt8]? { nil }
}
