import NFCTransport

/// An ICODE SLIX2 with factory content.
func makeICODESLIX2(uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
  try ICODESLIX2VirtualTag(uid: uid)
}

/// An NXP ICODE SLIX2 (SL2S2602): an ISO/IEC 15693 vicinity label, NFC Forum Type 5.
///
/// Memory: 80 blocks of 4 bytes as GET SYSTEM INFORMATION reports them (`4F 03`); blocks 0–78 are
/// the 2528-bit user memory and block 79 holds the 16-bit counter (SL2S2602 §9.2, §9.5.3.6, as
/// quoted by OpenPrintTag's NFC-V notes; Flipper's SLIX2 test file: block count 80, block size 4,
/// IC reference 01). The counter is modelled as plain memory (its increment rule is not emulated).
///
/// UID: 8 bytes; ``identifier`` holds them **in the order they are sent on the air and in the
/// order a PC/SC reader reports them** (`FF CA 00 00 00`: "UID (LSB) … UID (MSB)", ACS ACR1255U-J1
/// and ACR1281U manuals; the GET SYSTEM INFO answer in the ACR1552 trace, NXP community thread 2093136), so
/// `E0 04` (ISO 15693 allocation class, NXP) come last. Read MSB first, a SLIX2 UID is
/// `E0 04 01 …` with bits 4–3 of the fourth byte `01` (the SLIX2 type indicator; Flipper
/// `slix.c` `slix_get_type`). The default UID is `E0 04 01 08 A1 B2 C3 D4` MSB first.
///
/// Commands (frames `flags cmd [UID] params` without CRC; answers `flags data`, or `01 code` on
/// an error; ISO/IEC 15693-3): INVENTORY (01, 1 slot, AFI and mask honoured), STAY QUIET (02),
/// READ SINGLE BLOCK (20), WRITE SINGLE BLOCK (21), LOCK BLOCK (22), READ MULTIPLE BLOCKS (23),
/// SELECT (25), RESET TO READY (26), WRITE/LOCK AFI (27/28), WRITE/LOCK DSFID (29/2A), GET SYSTEM
/// INFORMATION (2B) and GET MULTIPLE BLOCK SECURITY STATUS (2C). The Option flag (40) on reads
/// puts the block security status (01 locked) before each block. Error codes: 01 not supported,
/// 0F unknown (malformed parameters), 10 block not available, 11 already locked, 12 locked.
/// Addressed frames (flag 20) for another UID, Select-flag frames (10) while not selected, and
/// non-addressed frames while quiet get no answer. NXP custom commands (A0–BD) answer error 01.
///
/// Factory content: CC `E1 40 27 01` (NDEF v1.0, free access, MLEN 27h, READ MULTIPLE BLOCKS
/// supported) and an empty NDEF TLV `03 00 FE`. MLEN 27h × 8 = 312 bytes, which is both the area
/// after the CC up to the end of block 78 (NFC Forum T5T convention, ST RFAL) and the 312 bytes
/// from block 0 that OpenPrintTag's SLIX2 images use (neard/Android convention), so tags formatted
/// either way stay inside user memory (docs/tag-types.md, Type 5). NXP's own factory CC could
/// not be confirmed (UNVERIFIED).
///
/// Image file: the 80 blocks × 4 bytes in address order (320 bytes). Lock state is not memory; a
/// tag with locked blocks (or a locked AFI/DSFID) is saved with an 82-byte trailer: one byte per
/// block (01 locked, 00 not, like Flipper's "Security Status" line), then AFI and DSFID and one
/// byte of lock flags (01 AFI locked, 02 DSFID locked) — 403 bytes in all. A 320-byte image loads
/// with nothing locked, AFI 00 and DSFID 00.
public final class ICODESLIX2VirtualTag: VirtualTag {
  /// Blocks GET SYSTEM INFORMATION reports (user memory plus the counter block).
  public static let blockCount = 80
  /// Bytes per block.
  public static let blockSize = 4
  /// IC reference byte of the GET SYSTEM INFORMATION answer (Flipper's SLIX2 test file).
  public static let icReference: UInt8 = 0x01
  /// The image without lock trailer, and with it.
  public static let plainImageSize = blockCount * blockSize
  /// The image with its lock trailer: 403 bytes.
  public static let lockedImageSize = plainImageSize + blockCount + 3

  /// NFC Forum Type 5.
  public var platform: TagPlatform { .type5 }
  /// The UID, least significant byte first (as sent on the air and reported by `FF CA`).
  public let identifier: [UInt8]
  /// ISO 15693 with the tag's DSFID.
  public var technology: RFTechnology { .iso15693(dsfid: dsfid) }
  /// "ICODE SLIX2".
  public var productName: String { "ICODE SLIX2" }
  /// Increases whenever a command changed the memory, so an image file can be written back.
  public private(set) var memoryGeneration = 0

  private var memory: [UInt8]
  private var locked: [Bool]
  /// The Application Family Identifier (WRITE AFI, 27h; ISO/IEC 15693-3:2009 §10.4).
  public private(set) var afi: UInt8 = 0
  /// The Data Storage Format Identifier (WRITE DSFID, 29h; ISO/IEC 15693-3:2009 §10.4).
  public private(set) var dsfid: UInt8 = 0
  private var afiLocked = false
  private var dsfidLocked = false
  private var quiet = false
  private var selected = false

  /// A tag as shipped.
  /// - Parameter uid: 8 bytes, least significant first (`… 04 E0`); nil for the default.
  public init(uid: [UInt8]? = nil) throws(EmulatorError) {
    let uid = uid ?? [0xD4, 0xC3, 0xB2, 0xA1, 0x08, 0x01, 0x04, 0xE0]
    guard uid.count == 8 else { throw EmulatorError("an ISO 15693 UID has 8 bytes (got \(uid.count))") }
    guard uid[7] == 0xE0 else {
      throw EmulatorError("an ISO 15693 UID ends with E0 when given least significant byte first (got \(hexString(uid, separator: " ")))")
    }
    identifier = uid
    memory = [UInt8](repeating: 0, count: Self.plainImageSize)
    memory.replaceSubrange(0..<7, with: [0xE1, 0x40, 0x27, 0x01, 0x03, 0x00, 0xFE])
    locked = [Bool](repeating: false, count: Self.blockCount)
  }

  /// A tag from an image: 320 bytes, or 403 with the lock trailer (see the type's discussion).
  /// - Parameters:
  ///   - image: the memory image (``plainImageSize`` or ``lockedImageSize`` bytes).
  ///   - uid: the UID; the image holds none (ISO 15693 keeps the UID outside block memory).
  public convenience init(image: [UInt8], uid: [UInt8]? = nil) throws(EmulatorError) {
    guard image.count == Self.plainImageSize || image.count == Self.lockedImageSize else {
      throw EmulatorError("an ICODE SLIX2 image has \(Self.plainImageSize) bytes (80 blocks × 4), or "
                          + "\(Self.lockedImageSize) with the lock trailer; this one has \(image.count)")
    }
    try self.init(uid: uid)
    memory = Array(image[0..<Self.plainImageSize])
    if image.count == Self.lockedImageSize {
      let trailer = Array(image[Self.plainImageSize...])
      for (i, flag) in trailer.prefix(Self.blockCount).enumerated() {
        guard flag <= 1 else { throw EmulatorError("the lock trailer of an ICODE SLIX2 image holds \(hexString([flag])) for block \(i); use 00 or 01") }
        locked[i] = flag == 1
      }
      afi = trailer[Self.blockCount]
      dsfid = trailer[Self.blockCount + 1]
      afiLocked = trailer[Self.blockCount + 2] & 0x01 != 0
      dsfidLocked = trailer[Self.blockCount + 2] & 0x02 != 0
    }
  }

  /// The blocks in order, with the lock trailer when anything is locked or AFI or DSFID is not 00
  /// (the layout above).
  public var memoryImage: [UInt8] {
    let anyLock = locked.contains(true) || afiLocked || dsfidLocked || afi != 0 || dsfid != 0
    guard anyLock else { return memory }
    let flags: UInt8 = (afiLocked ? 1 : 0) | (dsfidLocked ? 2 : 0)
    return memory + locked.map { $0 ? 1 : 0 } + [afi, dsfid, flags]
  }

  /// True when `block` is locked.
  public func isLocked(block: Int) -> Bool { locked.indices.contains(block) && locked[block] }

  /// The field went off and on: the tag leaves the quiet and selected states.
  public func reset() {
    quiet = false
    selected = false
  }

  // MARK: - Frames

  private static func error(_ code: UInt8) -> TagResponse { .data([0x01, code]) }
  private static let ok = TagResponse.data([0x00])

  /// Answers one ISO 15693 request (flags, command code, parameters; ISO/IEC 15693-3:2009 §7.3)
  /// with a response (flags, then data or an error code; §7.4).
  public func respond(to frame: [UInt8]) -> TagResponse {
    guard frame.count >= 2 else { return .mute }
    let flags = frame[0], command = frame[1]
    var rest = frame[2...]
    if flags & 0x04 != 0 {
      return command == 0x01 ? inventory(flags: flags, rest) : .mute
    }
    let addressed = flags & 0x20 != 0
    let selectFlag = flags & 0x10 != 0
    if (0xA0...0xDF).contains(command) {
      // Custom commands carry the IC manufacturer code before the UID.
      guard let code = rest.first, code == 0x04 else { return .mute }
      rest = rest.dropFirst()
    }
    if addressed {
      guard rest.count >= 8 else { return .mute }
      guard Array(rest.prefix(8)) == identifier else { return .mute }
      rest = rest.dropFirst(8)
    } else if selectFlag {
      guard selected else { return .mute }
    } else if quiet {
      return .mute
    }
    if addressed && selectFlag { return .mute }  // ISO 15693-3: both set is an invalid request
    let option = flags & 0x40 != 0
    let params = Array(rest)

    switch command {
    case 0x02:
      guard addressed else { return .mute }
      quiet = true
      selected = false
      return .mute  // STAY QUIET has no answer
    case 0x20: return readBlocks(params, multiple: false, option: option)
    case 0x21: return writeBlock(params)
    case 0x22: return lockBlock(params)
    case 0x23: return readBlocks(params, multiple: true, option: option)
    case 0x25:
      guard addressed else { return .mute }
      selected = true
      quiet = false
      return Self.ok
    case 0x26:
      quiet = false
      selected = false
      return Self.ok
    case 0x27:
      guard params.count == 1 else { return Self.error(0x0F) }
      guard !afiLocked else { return Self.error(0x12) }
      afi = params[0]
      memoryGeneration += 1
      return Self.ok
    case 0x28:
      guard !afiLocked else { return Self.error(0x11) }
      afiLocked = true
      memoryGeneration += 1
      return Self.ok
    case 0x29:
      guard params.count == 1 else { return Self.error(0x0F) }
      guard !dsfidLocked else { return Self.error(0x12) }
      dsfid = params[0]
      memoryGeneration += 1
      return Self.ok
    case 0x2A:
      guard !dsfidLocked else { return Self.error(0x11) }
      dsfidLocked = true
      memoryGeneration += 1
      return Self.ok
    case 0x2B:
      return .data([0x00, 0x0F] + identifier + [dsfid, afi, UInt8(Self.blockCount - 1), UInt8(Self.blockSize - 1),
                                                Self.icReference])
    case 0x2C:
      guard params.count == 2 else { return Self.error(0x0F) }
      let first = Int(params[0]), count = Int(params[1]) + 1
      guard first + count <= Self.blockCount else { return Self.error(0x10) }
      return .data([0x00] + (first ..< first + count).map { locked[$0] ? 0x01 : 0x00 })
    default:
      return Self.error(0x01)
    }
  }

  private func inventory(flags: UInt8, _ rest: ArraySlice<UInt8>) -> TagResponse {
    guard flags & 0x20 != 0 else { return .mute }  // 16-slot inventories are not emulated
    guard !quiet else { return .mute }
    var rest = rest
    if flags & 0x10 != 0 {
      guard let wanted = rest.popFirst() else { return .mute }
      if wanted != 0, wanted != afi { return .mute }
    }
    guard let maskLength = rest.popFirst().map(Int.init), maskLength <= 64 else { return .mute }
    let mask = Array(rest)
    guard mask.count == (maskLength + 7) / 8 else { return .mute }
    for bit in 0..<maskLength {
      let a = (identifier[bit / 8] >> UInt8(bit % 8)) & 1
      let b = (mask[bit / 8] >> UInt8(bit % 8)) & 1
      if a != b { return .mute }
    }
    return .data([0x00, dsfid] + identifier)
  }

  private func readBlocks(_ params: [UInt8], multiple: Bool, option: Bool) -> TagResponse {
    guard params.count == (multiple ? 2 : 1) else { return Self.error(0x0F) }
    let first = Int(params[0])
    let count = multiple ? Int(params[1]) + 1 : 1
    guard first + count <= Self.blockCount else { return Self.error(0x10) }
    var out: [UInt8] = [0x00]
    for block in first ..< first + count {
      if option { out.append(locked[block] ? 0x01 : 0x00) }
      out += memory[(block * Self.blockSize) ..< ((block + 1) * Self.blockSize)]
    }
    return .data(out)
  }

  private func writeBlock(_ params: [UInt8]) -> TagResponse {
    guard params.count == 1 + Self.blockSize else { return Self.error(0x0F) }
    let block = Int(params[0])
    guard block < Self.blockCount else { return Self.error(0x10) }
    guard !locked[block] else { return Self.error(0x12) }
    memory.replaceSubrange((block * Self.blockSize) ..< ((block + 1) * Self.blockSize), with: params[1...])
    memoryGeneration += 1
    return Self.ok
  }

  private func lockBlock(_ params: [UInt8]) -> TagResponse {
    guard params.count == 1 else { return Self.error(0x0F) }
    let block = Int(params[0])
    guard block < Self.blockCount else { return Self.error(0x10) }
    guard !locked[block] else { return Self.error(0x11) }
    locked[block] = true
    memoryGeneration += 1
    return Self.ok
  }
}
