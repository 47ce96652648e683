import NFCTransport

/// A Type 4 tag (NTAG 424 DNA-like NDEF application) with factory content.
func makeType4Tag(uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
  try Type4VirtualTag(uid: uid)
}

/// An NXP NTAG 424 DNA as an NFC Forum Type 4 tag sees it: the NDEF Tag Application with its
/// CC file, NDEF file and proprietary file, through ISO 7816-4 SELECT / READ BINARY / UPDATE BINARY.
///
/// Identification (what a reader sees): 7-byte UID starting 04 (NXP), ATQA 0344h (PN532 order
/// `03 44`, on air `44 03`), SAK 20h (ISO 14443-4), ATS `06 77 77 71 02 80` (FSCI 7 = 128-byte
/// frames, historical byte 80). Sources: PC/SC GET DATA traces of NTAG 424 DNA TT in public code
/// (`06 77 77 71 02 80 90 00`); NXP ISO-DEP chips' ATQA/SAK as proxmark3 and Flipper report them.
///
/// Files as shipped (NTAG 424 DNA factory dump: file 01 = CC, 32 bytes, content
/// `00 17 20 0100 00FF 04 06 E104 0100 00 00 05 06 E105 0080 82 83 00…`; file 02 = NDEF, 256
/// bytes of zeros; file 03 = proprietary, 128 bytes, read key 2 / write key 3):
/// - E103h, the CC: CCLEN 0017h, mapping version 2.0, MLe 0100h, MLc 00FFh, the NDEF File Control
///   TLV `04 06 E104 0100 00 00` and the proprietary file TLV `05 06 E105 0080 82 83`.
/// - E104h, the NDEF file: 256 bytes, NLEN 0000 as shipped.
/// - E105h: present but protected by AES keys: SELECT works, READ/UPDATE answer `69 82`.
///
/// Commands (CLA 00): SELECT by name (P1 04: the v2 name `D2760000850101` or the v1 name
/// `D2760000850100`; anything else `6A 82`), SELECT by file identifier (P1 00, P2 00 or 0C;
/// E103/E104/E105 only after the application; else `6A 82`); READ BINARY (B0) and UPDATE BINARY
/// (D6) with a 15-bit offset: offset past the file `6B 00`, length past the end `67 00` on UPDATE
/// and `62 82` with the bytes up to the end on READ (ISO 7816-4 "end of file reached before
/// reading Le bytes"); Le 00 reads 256 bytes or up to the end of the file, whichever is less; no
/// file selected `69 86`; writes the access rules forbid (the CC, E105, the NDEF file once the CC
/// write access byte is not 00) `69 82`; unknown INS `6D 00`; unknown CLA `6E 00`; wrong lengths
/// `67 00`. Extended-length APDUs are refused with `67 00` (the chip advertises short ones only).
/// Short-file-identifier reads (P1 bit 8) answer `6A 81`.
///
/// Permanent lock: the tag also takes ST's EnablePermanentState `A2 28 00 0x` (ST25TA/M24SR; P2
/// 01 read, 02 write) with the NDEF file selected, and sets the CC's read or write access byte to
/// FFh. A real NTAG 424 DNA does not know CLA A2 (it would need ChangeFileSettings after AES
/// authentication); the command is accepted here so that `makeReadOnly` has a documented
/// mechanism to exercise (see `Type4Tag.makeReadOnly`).
///
/// Image file: the CC file (32 bytes), the NDEF file (256 bytes), then the UID (7 bytes), 295
/// bytes in all, so the lock state (the CC access bytes) and the tag's identity survive a
/// restart. File E105 is not in it (it cannot be read without its key). An image of the first
/// layout, without the UID (288 bytes), still loads, with the UID given or the default one.
public final class Type4VirtualTag: VirtualTag {
  /// NDEF Tag Application name, mapping version 2.0 and later.
  public static let applicationV2: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
  /// NDEF Tag Application name, mapping version 1.0.
  public static let applicationV1: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]
  /// The ATS with TL, as an NTAG 424 DNA sends it.
  public static let ats: [UInt8] = [0x06, 0x77, 0x77, 0x71, 0x02, 0x80]
  /// CC file size (NTAG 424 DNA file 01).
  public static let ccFileSize = 32
  /// NDEF file size (NTAG 424 DNA file 02).
  public static let ndefFileSize = 256
  /// Proprietary file size (NTAG 424 DNA file 03).
  public static let proprietaryFileSize = 128
  /// Image size: the CC file, the NDEF file, then the UID.
  public static let imageSize = imageSizeWithoutUID + 7
  /// The size of an image of the first layout, the CC file then the NDEF file, which still loads.
  public static let imageSizeWithoutUID = ccFileSize + ndefFileSize
  /// The CC file as shipped.
  public static let factoryCC: [UInt8] = [0x00, 0x17, 0x20, 0x01, 0x00, 0x00, 0xFF,
                                          0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00,
                                          0x05, 0x06, 0xE1, 0x05, 0x00, 0x80, 0x82, 0x83]
    + [UInt8](repeating: 0, count: 32 - 23)
  /// The UID used when none is given.
  public static let defaultUID: [UInt8] = [0x04, 0x52, 0x7A, 0x1A, 0x9B, 0x6E, 0x80]

  /// CC offsets of the NDEF file's read and write access bytes.
  static let readAccessOffset = 13, writeAccessOffset = 14

  /// NFC Forum Type 4.
  public var platform: TagPlatform { .type4 }
  /// The 7-byte UID.
  public let identifier: [UInt8]
  /// ISO 14443A with SENS_RES `03 44`, SEL_RES `20` (ISO-DEP) and the ATS ``ats``.
  public var technology: RFTechnology { .typeA(sensRes: [0x03, 0x44], selRes: 0x20, ats: Self.ats) }
  /// "NTAG 424 DNA".
  public var productName: String { "NTAG 424 DNA" }
  /// Increases whenever a command changed the memory, so an image file can be written back.
  public private(set) var memoryGeneration = 0
  /// The CC file, the NDEF file, then the UID (``imageSize`` bytes).
  public var memoryImage: [UInt8] { cc + ndef + identifier }

  private var cc: [UInt8]
  private var ndef: [UInt8]

  private enum File: Equatable { case cc, ndef, proprietary }
  private var applicationSelected = false
  private var current: File?

  /// A tag as shipped: factory CC, empty NDEF file (NLEN 0000).
  /// - Parameter uid: 7 bytes; nil for ``defaultUID``.
  public init(uid: [UInt8]? = nil) throws(EmulatorError) {
    let uid = uid ?? Self.defaultUID
    guard uid.count == 7 else { throw EmulatorError("an NTAG 424 DNA UID has 7 bytes (got \(uid.count))") }
    identifier = uid
    cc = Self.factoryCC
    ndef = [UInt8](repeating: 0, count: Self.ndefFileSize)
  }

  /// A tag from an image: the CC file (32 bytes), the NDEF file (256 bytes), then the UID (7
  /// bytes; an image without it, 288 bytes, still loads).
  /// - Parameters:
  ///   - image: the image file's bytes.
  ///   - uid: the tag's UID, which wins over the image's; nil for the image's (the default UID
  ///     for an image without one).
  public init(image: [UInt8], uid: [UInt8]? = nil) throws(EmulatorError) {
    guard image.count == Self.imageSize || image.count == Self.imageSizeWithoutUID else {
      throw EmulatorError("a Type 4 (NTAG 424 DNA) image has \(Self.imageSize) bytes (the 32-byte CC file, the "
                          + "256-byte NDEF file, then the 7-byte UID; \(Self.imageSizeWithoutUID) without the UID); "
                          + "this one has \(image.count)")
    }
    let ndefEnd = Self.imageSizeWithoutUID
    let uid = uid ?? (image.count == Self.imageSize ? Array(image[ndefEnd...]) : Self.defaultUID)
    guard uid.count == 7 else { throw EmulatorError("an NTAG 424 DNA UID has 7 bytes (got \(uid.count))") }
    identifier = uid
    cc = Array(image[0..<Self.ccFileSize])
    ndef = Array(image[Self.ccFileSize..<ndefEnd])
  }

  /// The field went off and on: no application or file is selected any more.
  public func reset() {
    applicationSelected = false
    current = nil
  }

  // MARK: - Status words

  private static let ok = StatusWord.success.bytes
  private static let wrongLength = StatusWord.wrongLength.bytes
  private static let securityNotSatisfied = StatusWord.securityStatusNotSatisfied.bytes
  private static let noCurrentEF = StatusWord.commandNotAllowed.bytes
  private static let functionNotSupported = StatusWord.functionNotSupported.bytes
  private static let notFound = StatusWord.fileNotFound.bytes
  private static let wrongP1P2 = StatusWord.incorrectP1P2.bytes
  private static let offsetOutside = StatusWord.wrongParameters.bytes
  private static let unknownINS = StatusWord.instructionNotSupported.bytes
  private static let unknownCLA = StatusWord.classNotSupported.bytes
  private static let endOfFile = StatusWord.endOfFileReached.bytes

  // MARK: - Commands

  /// Answers one C-APDU (SELECT, READ BINARY, UPDATE BINARY) with an R-APDU: data, then SW1 SW2;
  /// another instruction gets its error status word.
  public func respond(to frame: [UInt8]) -> TagResponse {
    guard !frame.isEmpty else { return .mute }
    return .data(answer(frame))
  }

  private func answer(_ frame: [UInt8]) -> [UInt8] {
    guard let apdu = ShortAPDU(frame) else { return Self.wrongLength }
    switch apdu.cla {
    case 0x00:
      switch apdu.ins {
      case 0xA4: return select(apdu)
      case 0xB0: return readBinary(apdu)
      case 0xD6: return updateBinary(apdu)
      default: return Self.unknownINS
      }
    case 0xA2:
      guard apdu.ins == 0x28 else { return Self.unknownINS }
      return enablePermanentState(apdu)
    default:
      return Self.unknownCLA
    }
  }

  private func select(_ apdu: ShortAPDU) -> [UInt8] {
    switch apdu.p1 {
    case 0x04:
      guard apdu.p2 == 0x00 || apdu.p2 == 0x0C else { return Self.wrongP1P2 }
      guard !apdu.data.isEmpty else { return Self.wrongLength }
      guard apdu.data == Self.applicationV2 || apdu.data == Self.applicationV1 else {
        applicationSelected = false
        current = nil
        return Self.notFound
      }
      applicationSelected = true
      current = nil
      return Self.ok
    case 0x00:
      guard apdu.p2 == 0x00 || apdu.p2 == 0x0C else { return Self.wrongP1P2 }
      guard apdu.data.count == 2 else { return Self.wrongLength }
      guard applicationSelected else { return Self.notFound }
      switch (apdu.data[0], apdu.data[1]) {
      case (0xE1, 0x03): current = .cc
      case (0xE1, 0x04): current = .ndef
      case (0xE1, 0x05): current = .proprietary
      default: return Self.notFound
      }
      return Self.ok
    default:
      return Self.wrongP1P2
    }
  }

  private func readBinary(_ apdu: ShortAPDU) -> [UInt8] {
    guard apdu.p1 & 0x80 == 0 else { return Self.functionNotSupported }  // short file identifier
    guard apdu.data.isEmpty, let le = apdu.le else { return Self.wrongLength }
    guard let file = current else { return Self.noCurrentEF }
    let offset = Int(apdu.p1) << 8 | Int(apdu.p2)
    let contents: [UInt8]
    switch file {
    case .cc: contents = cc
    case .ndef:
      guard cc[Self.readAccessOffset] == 0x00 else { return Self.securityNotSatisfied }
      contents = ndef
    case .proprietary: return Self.securityNotSatisfied
    }
    guard offset < contents.count else { return Self.offsetOutside }
    let end = min(contents.count, offset + le)
    let sw = offset + le > contents.count && apdu.le != 256 ? Self.endOfFile : Self.ok
    return Array(contents[offset..<end]) + sw
  }

  private func updateBinary(_ apdu: ShortAPDU) -> [UInt8] {
    guard apdu.p1 & 0x80 == 0 else { return Self.functionNotSupported }
    guard !apdu.data.isEmpty else { return Self.wrongLength }
    guard let file = current else { return Self.noCurrentEF }
    guard file == .ndef, cc[Self.writeAccessOffset] == 0x00 else { return Self.securityNotSatisfied }
    let offset = Int(apdu.p1) << 8 | Int(apdu.p2)
    guard offset < ndef.count else { return Self.offsetOutside }
    guard offset + apdu.data.count <= ndef.count else { return Self.wrongLength }
    ndef.replaceSubrange(offset..<(offset + apdu.data.count), with: apdu.data)
    memoryGeneration += 1
    return Self.ok
  }

  /// ST EnablePermanentState (`A2 28 00 01` read, `A2 28 00 02` write): sets the CC access byte to FFh.
  private func enablePermanentState(_ apdu: ShortAPDU) -> [UInt8] {
    guard apdu.data.isEmpty, apdu.le == nil else { return Self.wrongLength }
    guard apdu.p1 == 0x00, apdu.p2 == 0x01 || apdu.p2 == 0x02 else { return Self.wrongP1P2 }
    guard current == .ndef else { return Self.noCurrentEF }
    let at = apdu.p2 == 0x01 ? Self.readAccessOffset : Self.writeAccessOffset
    if cc[at] != 0xFF {
      cc[at] = 0xFF
      memoryGeneration += 1
    }
    return Self.ok
  }
}
