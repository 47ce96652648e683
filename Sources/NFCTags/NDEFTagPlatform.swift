import NFCTransport

/// Whether a tag holds NDEF and may be written, as Core NFC's `NFCNDEFStatus` says it.
public enum NDEFStatus: Int, Hashable, Sendable {
  /// Not NDEF formatted, or not an NDEF tag at all.
  case notSupported = 1
  /// NDEF formatted and writable.
  case readWrite = 2
  /// NDEF formatted, read-only.
  case readOnly = 3
}

/// What `queryNDEFStatus` answers: the status and the largest NDEF message the tag can hold.
public struct NDEFStatusReport: Hashable, Sendable {
  public var status: NDEFStatus
  /// The largest NDEF message, in bytes, that fits (the TLV or NLEN header already taken off).
  public var capacity: Int
  /// The length of the NDEF message on the tag now (0 for an empty one), when known.
  public var messageLength: Int?
  /// Types 1 and 2: the memory address of the NDEF TLV's type byte (03h), when there is one. The
  /// message follows its 1-byte (messages up to 254 bytes) or 3-byte length field.
  public var tlvAddress: Int?
  public init(status: NDEFStatus, capacity: Int, messageLength: Int? = nil, tlvAddress: Int? = nil) {
    self.status = status
    self.capacity = capacity
    self.messageLength = messageLength
    self.tlvAddress = tlvAddress
  }
}

/// An originality signature as a tag gave it: checked by whoever can (ECDSA on the curve the
/// chip's maker uses), not here.
public struct OriginalitySignatureRead: Sendable, Equatable {
  /// The UID the signature is over.
  public var uid: [UInt8]
  /// The signature's bytes, as read; empty when none could be read.
  public var signature: [UInt8]
  /// Why there is no signature to check (the tag's answer, a random ID), nil when there is one.
  public var problem: String?

  public init(uid: [UInt8], signature: [UInt8], problem: String? = nil) {
    self.uid = uid
    self.signature = signature
    self.problem = problem
  }
}

/// What `nfctag info` shows about a tag: chip, memory, capacity, lock state, CC.
public struct TagInfo: Sendable {
  public var platform: TagPlatform
  /// The chip, as precisely as it could be identified ("NTAG215", "MIFARE Ultralight EV1 (MF0UL11)").
  public var chip: String
  public var identifier: [UInt8]
  /// Total memory in bytes.
  public var memorySize: Int
  public var ndef: NDEFStatusReport
  /// The capability container (T1T/T2T/T5T CC bytes, T3T attribute block, T4T CC file), raw.
  public var capabilityContainer: [UInt8]
  /// The chip's version answer (GET_VERSION, system info…), raw; empty when unknown.
  public var version: [UInt8]
  /// The first page (Type 2) the tag refused to read for want of its password; the facts are
  /// then those of the pages before it. Nil when nothing was refused.
  public var readProtectedFrom: Int?
  /// What the lock bits, CC access fields and the like say, one fact each.
  public var locks: [TagInfoFact]
  /// Further facts, in display order.
  public var details: [TagInfoFact]
  /// An originality signature the tag gave and the UID it is over (NTAG 424 DNA: Read_Sig), for
  /// a program that can check it (the tool does, with NXP's key); nil when the tag gave none.
  public var originalitySignature: OriginalitySignatureRead?
  /// Lock state in words ("static lock bytes 00 00 (none set); CC write access 0 (granted)"):
  /// the texts of ``locks``; "unknown" when there are none.
  public var lockState: String { locks.isEmpty ? "unknown" : locks.map(\.text).joined(separator: "; ") }

  public init(platform: TagPlatform, chip: String, identifier: [UInt8], memorySize: Int,
              ndef: NDEFStatusReport, capabilityContainer: [UInt8], version: [UInt8] = [],
              locks: [TagInfoFact], details: [TagInfoFact] = [], readProtectedFrom: Int? = nil) {
    self.platform = platform
    self.chip = chip
    self.identifier = identifier
    self.memorySize = memorySize
    self.ndef = ndef
    self.capabilityContainer = capabilityContainer
    self.version = version
    self.locks = locks
    self.details = details
    self.readProtectedFrom = readProtectedFrom
  }
}

/// Why a tag operation failed.
public enum TagError: Error, Sendable, CustomStringConvertible {
  /// A command to the tag failed. `command` names it ("READ", "FAST_READ"), `address` the page/block/offset.
  case transceive(TransceiveError, command: String, address: Int?)
  /// The tag refused a write (a NAK or an error answer): the page or block is locked or
  /// password-protected. `command` and `address` as in ``transceive(_:command:address:)``.
  case writeRefused(TransceiveError, command: String, address: Int?)
  /// The tag refused a read of a page it has (NTAG21x: a NAK for a page behind PROT and AUTH0):
  /// it is read-protected until a password is given.
  case readRefused(TransceiveError, command: String, address: Int?)
  /// The tag is not NDEF formatted (no or invalid CC / attribute block / NDEF application).
  case notFormatted(String)
  /// The tag's data structures are malformed (TLV past the end, bad length…). `offset` is in the data area.
  case malformed(String, offset: Int?)
  /// The tag is read-only; nothing was attempted.
  case readOnly
  /// The message does not fit: `needed` bytes, `capacity` available; nothing was written.
  case insufficientCapacity(needed: Int, capacity: Int)
  /// What was read back after a write differs from what was written.
  case verifyFailed(address: Int)
  /// The tag or reader cannot do this ("FeliCa Lite-S cannot be locked through this reader").
  case unsupported(String)
  /// A password or key was refused.
  case authenticationFailed(String)

  public var description: String {
    switch self {
    case .readRefused(_, let command, let address):
      return "the tag is read-protected (\(command)\(address.map { " at \($0)" } ?? "") refused)"
    case .transceive(let error, let command, let address), .writeRefused(let error, let command, let address):
      if let address { return "\(command) at \(address) failed: \(error)" }
      return "\(command) failed: \(error)"
    case .notFormatted(let why): return "the tag is not NDEF formatted: \(why)"
    case .malformed(let why, let offset):
      if let offset { return "malformed tag data at offset \(offset): \(why)" }
      return "malformed tag data: \(why)"
    case .readOnly: return "the tag is read-only"
    case .insufficientCapacity(let needed, let capacity):
      return "the message needs \(needed) bytes but the tag holds at most \(capacity)"
    case .verifyFailed(let address): return "read-back after writing differs at \(address)"
    case .unsupported(let what): return what
    case .authenticationFailed(let why): return "authentication failed: \(why)"
    }
  }

  /// True when the failure means the tag left the field.
  public var isTagLost: Bool {
    if case .transceive(let error, _, _) = self {
      switch error {
      case .tagRemoved, .timeout, .transport: return true
      default: return false
      }
    }
    return false
  }
}

/// An NFC Forum tag platform (Type 1–5): moves NDEF octets to and from a tag over a ``Transceiver``.
///
/// Platforms do not decode NDEF; they read and write the message bytes. Implementations are
/// classes because they cache what they learnt (CC, TLV layout, memory) between calls on one tag.
public protocol NDEFTagPlatform: AnyObject {
  /// The NFC Forum platform.
  var platform: TagPlatform { get }
  /// UID or IDm.
  var identifier: [UInt8] { get }
  /// Reads the CC and NDEF structures: status, capacity and current message length.
  func queryNDEFStatus() throws(TagError) -> NDEFStatusReport
  /// Reads the NDEF message bytes (empty for an empty message).
  /// - Throws: ``TagError/notFormatted(_:)`` when the tag holds no NDEF structures.
  func readNDEF() throws(TagError) -> [UInt8]
  /// Writes `message` tear-safely (length zeroed first, data, then the length) and, when
  /// `verify` is true, reads it back.
  /// - Throws: ``TagError/readOnly`` or ``TagError/insufficientCapacity(needed:capacity:)`` before
  ///   any write.
  func writeNDEF(_ message: [UInt8], verify: Bool) throws(TagError)
  /// Writes an empty NDEF structure onto a blank (or any) tag of this platform.
  func format() throws(TagError)
  /// Replaces the NDEF message with an empty one (tear-safe; the layout stays). With
  /// `overwritingOldMessage`, the bytes the old message used are zeroed too, after its length
  /// (a tear leaves the old message or an empty one); without, only the length changes.
  func erase(overwritingOldMessage: Bool) throws(TagError)
  /// Makes the tag permanently read-only (CC access and lock bits). Irreversible.
  func makeReadOnly() throws(TagError)
  /// Chip, memory and lock facts.
  func info() throws(TagError) -> TagInfo
  /// Chip and NDEF status only, with no read beyond what the NDEF status needs (`scan`): the
  /// lock state and details of ``info()`` are left empty where they cost extra reads.
  func identification() throws(TagError) -> TagInfo
  /// The whole readable memory in address order (the image-file layout).
  func readMemory() throws(TagError) -> [UInt8]
}

extension NDEFTagPlatform {
  /// Platforms whose ``info()`` costs no read beyond the NDEF status give it whole.
  public func identification() throws(TagError) -> TagInfo { try info() }
}

/// Runs a read whose failure only leaves a fact out (a lock byte, a signature for `info`): nil
/// when the tag refuses or cannot answer it, but a tag that left the field is the error it is,
/// so a half-read tag never passes for a whole one.
func unlessRemoved<T>(_ body: () throws(TagError) -> T) throws(TagError) -> T? {
  do {
    return try body()
  } catch {
    // A mute answer (timeout) is a chip without the command; a removal or a failed link is not.
    guard case .transceive(let cause, _, _) = error else { return nil }
    switch cause {
    case .tagRemoved, .transport: throw error
    default: return nil
    }
  }
}

extension NDEFTagPlatform {
  /// Erases and overwrites the old message's bytes: nothing of it stays readable in memory.
  public func erase() throws(TagError) { try erase(overwritingOldMessage: true) }
}
