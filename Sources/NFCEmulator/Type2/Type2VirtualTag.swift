import NFCTransport

/// The Type 2 chips the emulator models, with their datasheet parameters.
/// NXP NTAG210, NTAG213/215/216 and MIFARE Ultralight (EV1) data sheets.
public enum Type2Chip: String, CaseIterable, Sendable {
  case ntag210, ntag213, ntag215, ntag216, ultralight
  case ultralightEV1 = "ultralight-ev1"

  /// Pages in the whole memory.
  public var totalPages: Int {
    switch self {
    case .ntag210: return 20
    case .ntag213: return 45
    case .ntag215: return 135
    case .ntag216: return 231
    case .ultralight: return 16
    case .ultralightEV1: return 20
    }
  }

  /// GET_VERSION answer; nil for the original Ultralight, which does not know the command.
  public var version: [UInt8]? {
    switch self {
    case .ntag210: return [0x00, 0x04, 0x04, 0x01, 0x01, 0x00, 0x0B, 0x03]
    case .ntag213: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x0F, 0x03]
    case .ntag215: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x11, 0x03]
    case .ntag216: return [0x00, 0x04, 0x04, 0x02, 0x01, 0x00, 0x13, 0x03]
    case .ultralight: return nil
    case .ultralightEV1: return [0x00, 0x04, 0x03, 0x01, 0x01, 0x00, 0x0B, 0x03]
    }
  }

  /// The product name ("NTAG215", "MIFARE Ultralight EV1").
  public var productName: String {
    switch self {
    case .ntag210: return "NTAG210"
    case .ntag213: return "NTAG213"
    case .ntag215: return "NTAG215"
    case .ntag216: return "NTAG216"
    case .ultralight: return "MIFARE Ultralight"
    case .ultralightEV1: return "MIFARE Ultralight EV1 (MF0UL11)"
    }
  }

  /// CC byte 2: data area size / 8.
  var ccSize: UInt8 {
    switch self {
    case .ntag213: return 0x12
    case .ntag215: return 0x3E
    case .ntag216: return 0x6D
    case .ntag210, .ultralight, .ultralightEV1: return 0x06
    }
  }

  /// The first configuration page (CFG0), or nil.
  var cfg0Page: Int? {
    switch self {
    case .ntag210, .ntag213, .ntag215, .ntag216: return totalPages - 4
    case .ultralightEV1: return 0x10
    case .ultralight: return nil
    }
  }

  /// The dynamic lock page, or nil.
  var dynamicLockPage: Int? {
    switch self {
    case .ntag213, .ntag215, .ntag216: return totalPages - 5
    case .ntag210, .ultralight, .ultralightEV1: return nil
    }
  }

  /// True for the chips with the NFC counter (READ_CNT 02) and the UID and counter ASCII mirror
  /// configured by MIRROR_CONF: NTAG213/215/216. (NTAG210's UID mirror is not modelled.)
  var hasMirrorAndCounter: Bool { self == .ntag213 || self == .ntag215 || self == .ntag216 }

  /// The last user page: the page before the dynamic lock bytes (NTAG213/215/216), else the page
  /// before CFG0, else the last page.
  var lastUserPage: Int { dynamicLockPage.map { $0 - 1 } ?? cfg0Page.map { $0 - 1 } ?? lastPage }

  /// The last page the READ / WRITE address space accepts (everything, CFG and PWD included).
  var lastPage: Int { totalPages - 1 }
}

/// An NTAG21x or MIFARE Ultralight (EV1): pages of 4 bytes, the Type 2 command set.
///
/// Faithful to the data sheets where a client can tell: GET_VERSION bytes, factory content, CC
/// OTP bits, static and dynamic lock bits, READ roll-over, FAST_READ ranges, PWD/PACK read as
/// zero, PWD_AUTH and AUTH0/PROT, and mute on unknown commands. NTAG213/215/216 also have the
/// NFC counter (READ_CNT, counted on the first READ or FAST_READ after the tag entered the field)
/// and the UID and counter ASCII mirror on READ and FAST_READ (`NTAGMirror`, docs/tag-types.md).
/// The counter is not part of the memory image: a tag loaded from an image starts at 0.
public final class Type2VirtualTag: VirtualTag {
  /// Which chip this is.
  public let chip: Type2Chip
  /// NFC Forum Type 2.
  public var platform: TagPlatform { .type2 }
  /// The 7-byte UID, UID0 (04h, NXP) first: pages 0 and 1 without their check bytes.
  public private(set) var identifier: [UInt8]
  /// ISO 14443A with SENS_RES (ATQA) `00 44` and SEL_RES (SAK) `00`, as NTAG21x and Ultralight
  /// answer; no ATS (not ISO-DEP).
  public var technology: RFTechnology { .typeA(sensRes: [0x00, 0x44], selRes: 0x00, ats: nil) }
  /// The chip's product name (``Type2Chip/productName``).
  public var productName: String { chip.productName }
  /// Increases whenever a command changed the memory, so an image file can be written back.
  public private(set) var memoryGeneration = 0
  /// Every page, 4 bytes each, page 0 first (``Type2Chip/totalPages`` pages).
  public var memoryImage: [UInt8] { memory }

  private var memory: [UInt8]
  private var authenticated = false
  /// The 24-bit NFC counter (NTAG213/215/216).
  var nfcCounter = 0
  /// True until the first READ or FAST_READ after the tag entered the field (power-up or reset).
  private var counterArmed = true

  /// A tag as shipped: UID (7 bytes, 04 first) with its check bytes, CC, empty NDEF TLV.
  public init(chip: Type2Chip, uid: [UInt8]? = nil) throws(EmulatorError) {
    let uid = uid ?? [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0x80]
    guard uid.count == 7 else { throw EmulatorError("a Type 2 UID has 7 bytes (got \(uid.count))") }
    self.chip = chip
    self.identifier = uid
    memory = [UInt8](repeating: 0, count: chip.totalPages * 4)
    let bcc0 = 0x88 ^ uid[0] ^ uid[1] ^ uid[2]
    let bcc1 = uid[3] ^ uid[4] ^ uid[5] ^ uid[6]
    memory.replaceSubrange(0..<12, with: [uid[0], uid[1], uid[2], bcc0, uid[3], uid[4], uid[5], uid[6], bcc1, 0x48, 0x00, 0x00])
    memory.replaceSubrange(12..<16, with: [0xE1, 0x10, chip.ccSize, 0x00])
    if chip == .ntag213 {
      memory.replaceSubrange(16..<24, with: [0x01, 0x03, 0xA0, 0x0C, 0x34, 0x03, 0x00, 0xFE])
    } else {
      memory.replaceSubrange(16..<19, with: [0x03, 0x00, 0xFE])
    }
    if let dyn = chip.dynamicLockPage { memory[dyn * 4 + 3] = 0xBD }
    if let cfg0 = chip.cfg0Page {
      memory.replaceSubrange((cfg0 * 4)..<(cfg0 * 4 + 4), with: [0x04, 0x00, 0x00, 0xFF])  // MIRROR, RFU, MIRROR_PAGE, AUTH0
      memory.replaceSubrange((cfg0 * 4 + 4)..<(cfg0 * 4 + 8), with: [0x00, 0x05, 0x00, 0x00])  // ACCESS, VCTID
      memory.replaceSubrange((cfg0 * 4 + 8)..<(cfg0 * 4 + 12), with: [0xFF, 0xFF, 0xFF, 0xFF])  // PWD
    }
  }

  /// A tag loaded from a memory image: pages × 4 bytes in address order (nfc-mfultralight's dump).
  public init(chip: Type2Chip, image: [UInt8]) throws(EmulatorError) {
    guard image.count == chip.totalPages * 4 else {
      throw EmulatorError("\(chip.productName) images have \(chip.totalPages * 4) bytes (\(chip.totalPages) pages); this one has \(image.count)")
    }
    self.chip = chip
    memory = image
    identifier = Array(image[0..<3]) + Array(image[4..<8])
  }

  /// The field went off and on: PWD_AUTH's authentication ends and the NFC counter counts the
  /// next read again.
  public func reset() {
    authenticated = false
    counterArmed = true
  }

  /// Locks the tag read-only the way `nfctag lock` does: CC write access 0F, every static and
  /// dynamic lock bit set (block-locking bits included), so every write to pages 3 and up is
  /// refused as on a real locked tag. The configuration pages stay as they are.
  func lockReadOnly() {
    memory[15] = 0x0F
    memory[10] = 0xFF
    memory[11] = 0xFF
    if let dyn = chip.dynamicLockPage {
      for k in 0..<3 { memory[dyn * 4 + k] = 0xFF }
    }
    memoryGeneration += 1
  }

  // MARK: - Access rules

  private var cfg0: Int? { chip.cfg0Page.map { $0 * 4 } }
  private var auth0: Int { cfg0.map { Int(memory[$0 + 3]) } ?? 0xFF }
  private var protectReads: Bool { cfg0.map { memory[$0 + 4] & 0x80 != 0 } ?? false }

  private func isReadProtected(_ page: Int) -> Bool { !authenticated && protectReads && page >= auth0 }
  private func isWriteProtected(_ page: Int) -> Bool { !authenticated && page >= auth0 }

  /// Static lock bits (page 2 bytes 2–3) and dynamic lock bits (NTAG: one bit per 16 pages).
  private func isLocked(_ page: Int) -> Bool {
    let lock0 = memory[10], lock1 = memory[11]
    switch page {
    case 3: return lock0 & 0x08 != 0
    case 4...7: return lock0 & (1 << UInt8(page)) != 0
    case 8...15: return lock1 & (1 << UInt8(page - 8)) != 0
    default: break
    }
    if let dyn = chip.dynamicLockPage, page >= 16, page < dyn {
      let bit = (page - 16) / (chip == .ntag213 ? 2 : 16)
      let byte = memory[dyn * 4 + bit / 8]
      return byte & (1 << UInt8(bit % 8)) != 0
    }
    return false
  }

  // MARK: - Commands

  /// Answers one Type 2 command (READ, WRITE, COMPATIBILITY_WRITE, FAST_READ, GET_VERSION,
  /// READ_SIG, PWD_AUTH, READ_CNT as the chip has them) with the access rules above: a NAK for a
  /// page it refuses, no answer to a command the chip does not know.
  public func respond(to frame: [UInt8]) -> TagResponse {
    guard let command = frame.first else { return .mute }
    switch command {
    case 0x30: return read(frame)
    case 0x3A: return fastRead(frame)
    case 0xA2: return write(frame)
    case 0xA0: return frame.count == 2 || frame.count == 18 ? compatibilityWrite(frame) : .nak(0)
    case 0x60:
      guard frame.count == 1, let version = chip.version else { return .mute }
      return .data(version)
    case 0x3C:
      guard chip != .ultralight, frame.count == 2 else { return .mute }
      return .data([UInt8](repeating: 0x5A, count: 32))
    case 0x1B: return passwordAuth(frame)
    case 0x39: return readCounter(frame)
    default: return .mute
    }
  }

  private func pageBytes(_ page: Int, mirror: NTAGMirror?) -> [UInt8] {
    if isReadProtected(page) { return [0, 0, 0, 0] }
    // PWD and PACK always read as zero.
    if let c = chip.cfg0Page, page == c + 2 || page == c + 3 { return [0, 0, 0, 0] }
    var bytes = Array(memory[(page * 4)..<(page * 4 + 4)])
    mirror?.overlay(&bytes, page: page)
    return bytes
  }

  // MARK: - NFC counter and mirror (NTAG213/215/216)

  private var access: UInt8 { cfg0.map { memory[$0 + 4] } ?? 0 }
  private var counterEnabled: Bool { chip.hasMirrorAndCounter && access & NTAGMirror.nfcCounterEnable != 0 }
  private var counterReadable: Bool { !(access & NTAGMirror.nfcCounterPasswordProtect != 0 && !authenticated) }

  /// The mirror the configuration pages ask for, when it applies (see `NTAGMirror`).
  private func currentMirror() -> NTAGMirror? {
    guard chip.hasMirrorAndCounter, let cfg0 else { return nil }
    return NTAGMirror(mirrorByte: memory[cfg0], mirrorPage: memory[cfg0 + 2], uid: identifier, counter: nfcCounter,
                      counterShown: counterEnabled && counterReadable, lastUserPage: chip.lastUserPage)
  }

  /// The first valid READ or FAST_READ after the tag entered the field counts, once, when the
  /// counter is enabled at that moment; the answer was built before (as Flipper's and
  /// ChameleonUltra's NTAG listeners do). The counter stops at FFFFFF.
  private func countFirstRead() {
    guard counterArmed else { return }
    counterArmed = false
    if counterEnabled, nfcCounter < 0xFF_FFFF { nfcCounter += 1 }
  }

  /// READ_CNT (`39 02`): the counter LSB first. NAK for another counter number, when the counter
  /// is disabled, or when it is password protected and the reader did not authenticate.
  /// Ultralight EV1 answers its three counters as zero; the original Ultralight and NTAG210 do
  /// not know the command.
  private func readCounter(_ frame: [UInt8]) -> TagResponse {
    switch chip {
    case .ultralight, .ntag210: return .mute
    case .ultralightEV1:
      guard frame.count == 2 else { return .mute }
      return frame[1] <= 2 ? .data([0, 0, 0]) : .nak(0)
    case .ntag213, .ntag215, .ntag216:
      guard frame.count == 2, frame[1] == 0x02, counterEnabled, counterReadable else { return .nak(0) }
      return .data([UInt8(nfcCounter & 0xFF), UInt8((nfcCounter >> 8) & 0xFF), UInt8((nfcCounter >> 16) & 0xFF)])
    }
  }

  private func read(_ frame: [UInt8]) -> TagResponse {
    guard frame.count == 2 else { return .nak(0) }
    let start = Int(frame[1])
    guard start <= chip.lastPage else { return .nak(0) }
    if isReadProtected(start) { return .nak(0) }
    var out: [UInt8] = []
    let mirror = currentMirror()
    for k in 0..<4 {
      let page = (start + k) % chip.totalPages  // roll-over past the last page
      out += pageBytes(page, mirror: mirror)
    }
    countFirstRead()
    return .data(out)
  }

  private func fastRead(_ frame: [UInt8]) -> TagResponse {
    guard chip != .ultralight else { return .mute }
    guard frame.count == 3 else { return .nak(0) }
    let start = Int(frame[1]), end = Int(frame[2])
    guard start <= end, end <= chip.lastPage else { return .nak(0) }
    if (start...end).contains(where: isReadProtected) { return .nak(0) }
    var out: [UInt8] = []
    out.reserveCapacity((end - start + 1) * 4)
    let mirror = currentMirror()
    for page in start...end { out += pageBytes(page, mirror: mirror) }
    countFirstRead()
    return .data(out)
  }

  private func write(_ frame: [UInt8]) -> TagResponse {
    guard frame.count == 6 else { return .nak(0) }
    return store(page: Int(frame[1]), data: Array(frame[2..<6]))
  }

  private func compatibilityWrite(_ frame: [UInt8]) -> TagResponse {
    // One-frame form (libfreefare): A0 page + 16 bytes, of which the first 4 are stored.
    guard frame.count == 18 else { return .ack }
    return store(page: Int(frame[1]), data: Array(frame[2..<6]))
  }

  private func store(page: Int, data: [UInt8]) -> TagResponse {
    guard page >= 2, page <= chip.lastPage else { return .nak(0) }
    if isWriteProtected(page) { return .nak(0) }
    if isLocked(page) { return .nak(0) }
    let base = page * 4
    switch page {
    case 2:
      // Only the lock bytes can change, and only from 0 to 1.
      memory[base + 2] |= data[2]
      memory[base + 3] |= data[3]
    case 3:
      for k in 0..<4 { memory[base + k] |= data[k] }  // CC: one-time programmable
    case chip.dynamicLockPage ?? -1:
      for k in 0..<3 { memory[base + k] |= data[k] }
    default:
      if let c = chip.cfg0Page, page == c || page == c + 1, memory[(c + 1) * 4] & 0x40 != 0 {
        return .nak(0)  // CFGLCK
      }
      memory.replaceSubrange(base..<(base + 4), with: data)
    }
    memoryGeneration += 1
    return .ack
  }

  private func passwordAuth(_ frame: [UInt8]) -> TagResponse {
    guard let c = chip.cfg0Page else { return .mute }
    guard frame.count == 5 else { return .nak(0) }
    let pwd = Array(memory[((c + 2) * 4)..<((c + 2) * 4 + 4)])
    guard Array(frame[1...4]) == pwd else { return .nak(4) }
    authenticated = true
    return .data(Array(memory[((c + 3) * 4)..<((c + 3) * 4 + 2)]))
  }
}
