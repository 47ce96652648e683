import NFCTransport

/// A FeliCa Lite-S with factory content.
func makeFeliCaLiteS(uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
  try FeliCaLiteSVirtualTag(idm: uid)
}

/// A FeliCa Lite-S from a memory image (see ``FeliCaLiteSVirtualTag`` for the layout): the whole
/// image, or only the 14 user blocks; `uid` is the IDm of a tag from user blocks only.
func makeFeliCaLiteS(image: [UInt8], uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
  if image.count == FeliCaLiteSVirtualTag.userImageSize { return try FeliCaLiteSVirtualTag(userBlocks: image, idm: uid) }
  return try FeliCaLiteSVirtualTag(image: image)
}

/// A Sony FeliCa Lite-S (RC-S966) as an NFC Forum Type 3 tag: Polling (00h), Check (06h) and
/// Update (08h) without encryption, no authentication.
///
/// Memory (16-byte blocks): S_PAD0–S_PAD13 (00h–0Dh, user), REG (0Eh), and the system blocks
/// RC (80h, write-only), MAC (81h), ID (82h), D_ID (83h: IDm and PMm, read-only), SER_C (84h),
/// SYS_C (85h), CKV (86h), CK (87h, write-only), MC (88h), WCNT (90h), MAC_A (91h), STATE (92h).
/// Sources: nfcpy `tt3_sony.py` (`FelicaLite.dump`, `FelicaLiteS.dump` block labels, `_format`,
/// `_protect`); Sony FeliCa Lite-S user's manual as summarised by the
/// onakasuita wiki "FeliCa/ブロック/MC".
///
/// The MC block (88h): bytes 0–1 MC_SP, one bit per S_PAD0–13 (bits 0–13), REG (bit 14) and
/// "MC bytes 0–1 and 6–12" (bit 15), 1 = read/write, 0 = read-only, one-way; byte 2 MC_ALL,
/// FFh = the system blocks and MC bytes 2–5 writable, 00h = read-only, one-way; byte 3 MC_SYS_OP,
/// 01h = NDEF (the tag answers Polling for 12FCh instead of 88B4h); byte 4 RF_PRM; byte 5
/// MC_CKCKV_W_MAC_A; bytes 6–7 read-after-authentication bits; bytes 8–11 write-after-
/// authentication and write-with-MAC bits; byte 12 MC_STATE_W_MAC_A. This emulator has no
/// authentication, so a block with a read restriction answers `SF1 B1`, and a block with a write
/// restriction refuses writes.
///
/// Status flags (decision; the Lite-S manual's own table was not available): frame-level errors
/// answer SF1 FFh (A1h number of services, A2h number of blocks; seen from a real Lite-S in an
/// ST RFAL demo trace: `FF A1`); a bad service code answers `01 A6` (nfcpy `tt3.py`);
/// block-level errors answer SF1 = the block's bit in the list (01h, 02h, 04h, 08h, as nfcpy's
/// FeliCa Lite codes) with SF2 A7h (access mode), A8h (no such block, not readable, or not
/// writable: read-only by MC, a system block under MC_ALL 00h, or a one-way MC bit set back) or
/// B1h (authentication required to read).
///
/// Factory content (decision): the issue asks for a tag "as shipped: NDEF-formatted", so the
/// factory image is a Lite-S already formatted as nfcpy formats one: MC `FF FF FF 01 07 00…`
/// (all writable, NDEF on), the attribute block `10 04 01 00 0D 00 00 00 00 00 01 00 00 00 00 23`
/// (Nbr 4, Nbw 1, Nmaxb 13, RWFlag 01, Ln 0) and empty user blocks. A Lite-S straight from Sony
/// has MC_SYS_OP 00h and answers 88B4h; write 00h to MC byte 3 through a factory image to get one.
///
/// Image file: 20 blocks of 16 bytes, in address order: S_PAD0–S_PAD13 (00h–0Dh), REG (0Eh),
/// ID (82h), D_ID (83h: IDm, PMm), CKV (86h), MC (88h), WCNT (90h) — the blocks a reader can read,
/// so a dump (`Type3Tag.readMemory`) is an image. RC, MAC, SER_C, SYS_C, CK, MAC_A and STATE are
/// not kept (volatile, derived or unreadable). The short form, only S_PAD0–S_PAD13 (224 bytes, the
/// user blocks nfcpy and other tools keep), loads too: the other blocks take factory values (REG
/// zero, MC as formatted above, the IDm from `--uid` or ``defaultIDm``); ``ImageFile`` writes such a
/// file back in the same 224-byte form.
/// - Warning: Not thread-safe; a reader face serialises access.
public final class FeliCaLiteSVirtualTag: VirtualTag {
  /// NFC Forum Type 3.
  public var platform: TagPlatform { .type3 }
  /// The IDm (D_ID bytes 0–7).
  public private(set) var identifier: [UInt8]
  /// The PMm (D_ID bytes 8–15): IC code F1h = FeliCa Lite-S.
  public private(set) var pmm: [UInt8]
  /// "FeliCa Lite-S".
  public var productName: String { "FeliCa Lite-S" }
  /// Increases whenever a command changed the memory, so an image file can be written back.
  public private(set) var memoryGeneration = 0

  /// The PMm of an RC-S966: `00 F1 00 00 00 01 43 00` (ROM type 00, IC code F1, response time
  /// parameters), as real Lite-S tags answer (ST RFAL demo trace, several card readers' sources).
  public static let factoryPMm: [UInt8] = [0x00, 0xF1, 0x00, 0x00, 0x00, 0x01, 0x43, 0x00]
  /// The IDm of the factory tag when none is given.
  public static let defaultIDm: [UInt8] = [0x01, 0x2E, 0x4C, 0x69, 0x74, 0x65, 0x53, 0x01]
  /// The blocks of the image file, in order.
  public static let imageBlocks: [Int] = Array(0x00...0x0E) + [0x82, 0x83, 0x86, 0x88, 0x90]

  /// S_PAD0–13 and REG.
  private var user: [[UInt8]]
  private var id: [UInt8]
  private var ckv: [UInt8]
  private var ck: [UInt8] = [UInt8](repeating: 0, count: 16)
  private var mc: [UInt8]
  private var wcnt: [UInt8]

  /// The system code the tag answers Polling with: 12FCh when MC_SYS_OP is 01h, else 88B4h.
  public var systemCode: [UInt8] { mc[3] == 0x01 ? [0x12, 0xFC] : [0x88, 0xB4] }

  /// FeliCa with the tag's PMm and system code.
  public var technology: RFTechnology { .felica(pmm: pmm, systemCode: systemCode) }

  /// A tag as shipped (NDEF-formatted, empty message; see the type's discussion).
  /// - Parameter idm: 8 bytes; ``defaultIDm`` when nil.
  public init(idm: [UInt8]? = nil) throws(EmulatorError) {
    let idm = idm ?? Self.defaultIDm
    guard idm.count == 8 else { throw EmulatorError("a FeliCa IDm has 8 bytes (got \(idm.count))") }
    identifier = idm
    pmm = Self.factoryPMm
    user = [[UInt8]](repeating: [UInt8](repeating: 0, count: 16), count: 15)
    user[0] = [0x10, 0x04, 0x01, 0x00, 0x0D, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x23]
    id = idm + [UInt8](repeating: 0, count: 8)
    ckv = [UInt8](repeating: 0, count: 16)
    mc = [0xFF, 0xFF, 0xFF, 0x01, 0x07] + [UInt8](repeating: 0, count: 11)
    wcnt = [UInt8](repeating: 0, count: 16)
  }

  /// Bytes in an image of the user blocks only (S_PAD0–S_PAD13).
  public static let userImageSize = 14 * 16

  /// A factory tag holding `userBlocks`: S_PAD0–S_PAD13, 224 bytes.
  /// - Parameters:
  ///   - userBlocks: the 224 bytes of S_PAD0–S_PAD13.
  ///   - idm: 8 bytes; ``defaultIDm`` when nil.
  public convenience init(userBlocks: [UInt8], idm: [UInt8]? = nil) throws(EmulatorError) {
    guard userBlocks.count == Self.userImageSize else {
      throw EmulatorError("a FeliCa Lite-S user-block image has \(Self.userImageSize) bytes (S_PAD0-13); this one has \(userBlocks.count)")
    }
    try self.init(idm: idm)
    for i in 0..<14 { user[i] = Array(userBlocks[(i * 16)..<(i * 16 + 16)]) }
  }

  /// A tag from an image: 20 blocks × 16 bytes in the order of ``imageBlocks``.
  public init(image: [UInt8]) throws(EmulatorError) {
    let size = Self.imageBlocks.count * 16
    guard image.count == size else {
      throw EmulatorError("a FeliCa Lite-S image has \(size) bytes (\(Self.imageBlocks.count) blocks of 16: "
                          + "S_PAD0-13, REG, ID, D_ID, CKV, MC, WCNT) or \(Self.userImageSize) (S_PAD0-13 only); this one has \(image.count)")
    }
    func block(_ i: Int) -> [UInt8] { Array(image[(i * 16)..<(i * 16 + 16)]) }
    user = (0..<15).map(block)
    id = block(15)
    let dID = block(16)
    identifier = Array(dID[0..<8])
    pmm = Array(dID[8..<16])
    ckv = block(17)
    mc = block(18)
    wcnt = block(19)
  }

  /// The 20 readable blocks of the image-file layout above, 16 bytes each.
  public var memoryImage: [UInt8] {
    user.flatMap { $0 } + id + identifier + pmm + ckv + mc + wcnt
  }

  /// Nothing to drop: the tag keeps no session state here.
  public func reset() {}

  // MARK: - Frames

  /// Answers one FeliCa frame (LEN, command code, …) with the rules above; a frame of the wrong
  /// length, or for another IDm, gets no answer.
  public func respond(to frame: [UInt8]) -> TagResponse {
    guard frame.count >= 2, Int(frame[0]) == frame.count else { return .mute }
    switch frame[1] {
    case 0x00: return polling(frame)
    case 0x06, 0x08:
      guard frame.count >= 10, Array(frame[2..<10]) == identifier else { return .mute }
      return frame[1] == 0x06 ? check(frame) : update(frame)
    default: return .mute
    }
  }

  /// Polling: `06 00 SC SC RC TSN`; FFh in either system code byte is a wildcard.
  private func polling(_ frame: [UInt8]) -> TagResponse {
    guard frame.count == 6 else { return .mute }
    let sc = systemCode
    guard frame[2] == 0xFF || frame[2] == sc[0], frame[3] == 0xFF || frame[3] == sc[1] else { return .mute }
    var answer: [UInt8] = [0x12, 0x01] + identifier + pmm
    if frame[4] == 0x01 {
      answer += sc
      answer[0] = 0x14
    }
    return .data(answer)
  }

  private func status(_ code: UInt8, _ sf1: UInt8, _ sf2: UInt8) -> TagResponse {
    .data([0x0C, code] + identifier + [sf1, sf2])
  }

  /// Parses `n SC… m BL…` after the IDm; returns the block numbers and where the data starts, or
  /// an error answer.
  private func parseLists(_ frame: [UInt8], code: UInt8, services allowed: [[UInt8]], maxBlocks: Int)
    -> Result<(blocks: [Int], dataStart: Int), FeliCaFrameError> {
    var i = 10
    guard i < frame.count else { return .failure(.flags(0xFF, 0xA1)) }
    let n = Int(frame[i])
    guard n == 1 else { return .failure(.flags(0xFF, 0xA1)) }
    i += 1
    guard i + 2 <= frame.count else { return .failure(.flags(0xFF, 0xA1)) }
    let service = Array(frame[i..<(i + 2)])
    guard allowed.contains(service) else { return .failure(.flags(0x01, 0xA6)) }
    i += 2
    guard i < frame.count else { return .failure(.flags(0xFF, 0xA2)) }
    let m = Int(frame[i])
    guard (1...maxBlocks).contains(m) else { return .failure(.flags(0xFF, 0xA2)) }
    i += 1
    var blocks: [Int] = []
    for k in 0..<m {
      let bit = UInt8(1 << min(k, 7))
      guard i < frame.count else { return .failure(.flags(0xFF, 0xA2)) }
      let head = frame[i]
      guard head & 0x70 == 0 else { return .failure(.flags(bit, 0xA7)) }
      guard head & 0x0F == 0 else { return .failure(.flags(bit, 0xA3)) }
      if head & 0x80 != 0 {
        guard i + 2 <= frame.count else { return .failure(.flags(0xFF, 0xA2)) }
        blocks.append(Int(frame[i + 1]))
        i += 2
      } else {
        guard i + 3 <= frame.count else { return .failure(.flags(0xFF, 0xA2)) }
        blocks.append(Int(frame[i + 1]) | Int(frame[i + 2]) << 8)
        i += 3
      }
    }
    return .success((blocks, i))
  }

  /// Check (06h): up to 4 blocks of service 000Bh or 0009h.
  private func check(_ frame: [UInt8]) -> TagResponse {
    switch parseLists(frame, code: 0x06, services: [[0x0B, 0x00], [0x09, 0x00]], maxBlocks: 4) {
    case .failure(.flags(let sf1, let sf2)): return status(0x07, sf1, sf2)
    case .success(let parsed):
      guard parsed.dataStart == frame.count else { return status(0x07, 0xFF, 0xA2) }
      var data: [UInt8] = []
      for (k, block) in parsed.blocks.enumerated() {
        let bit = UInt8(1 << k)
        if (0..<15).contains(block), spBit(mc[6], mc[7], block) { return status(0x07, bit, 0xB1) }
        guard let bytes = read(block) else { return status(0x07, bit, 0xA8) }
        data += bytes
      }
      let answer: [UInt8] = [0x07] + identifier + [0x00, 0x00, UInt8(parsed.blocks.count)] + data
      return .data([UInt8(answer.count + 1)] + answer)
    }
  }

  /// Update (08h): one block of service 0009h.
  private func update(_ frame: [UInt8]) -> TagResponse {
    switch parseLists(frame, code: 0x08, services: [[0x09, 0x00]], maxBlocks: 1) {
    case .failure(.flags(let sf1, let sf2)): return status(0x09, sf1, sf2)
    case .success(let parsed):
      guard parsed.dataStart + 16 * parsed.blocks.count == frame.count, let block = parsed.blocks.first else {
        return status(0x09, 0xFF, 0xA2)
      }
      let data = Array(frame[parsed.dataStart..<(parsed.dataStart + 16)])
      guard write(block, data) else { return status(0x09, 0x01, 0xA8) }
      let count = (Int(wcnt[0]) | Int(wcnt[1]) << 8 | Int(wcnt[2]) << 16)
      if count < 0xFFFFFF {
        let next = count + 1
        wcnt[0] = UInt8(next & 0xFF)
        wcnt[1] = UInt8(next >> 8 & 0xFF)
        wcnt[2] = UInt8(next >> 16 & 0xFF)
      }
      memoryGeneration += 1
      return status(0x09, 0x00, 0x00)
    }
  }

  private func spBit(_ low: UInt8, _ high: UInt8, _ block: Int) -> Bool {
    (Int(low) | Int(high) << 8) >> block & 1 == 1
  }

  /// A block's contents as Check answers them, or nil when it cannot be read.
  private func read(_ block: Int) -> [UInt8]? {
    switch block {
    case 0x00...0x0E: return user[block]
    case 0x82: return id
    case 0x83: return identifier + pmm
    case 0x84: return [0x0B, 0x00] + [UInt8](repeating: 0, count: 14)  // SER_C: 000Bh (layout UNVERIFIED)
    case 0x85: return systemCode + [UInt8](repeating: 0, count: 14)     // SYS_C (layout UNVERIFIED)
    case 0x86: return ckv
    case 0x88: return mc
    case 0x90: return wcnt
    case 0x92: return [UInt8](repeating: 0, count: 16)                 // STATE: not authenticated
    default: return nil                                                 // RC, MAC, CK, MAC_A: not readable
    }
  }

  /// Applies a write; false when the block is not writable or the value is refused.
  private func write(_ block: Int, _ data: [UInt8]) -> Bool {
    let systemWritable = mc[2] == 0xFF
    switch block {
    case 0x00...0x0E:
      guard spBit(mc[0], mc[1], block), !spBit(mc[8], mc[9], block), !spBit(mc[10], mc[11], block) else { return false }
      user[block] = data
    case 0x80: break  // RC: taken and forgotten (no authentication)
    case 0x82:
      guard systemWritable else { return false }
      id = data
    case 0x86:
      guard systemWritable else { return false }
      ckv = [data[0], data[1]] + [UInt8](repeating: 0, count: 14)
    case 0x87:
      guard systemWritable else { return false }
      ck = data
    case 0x88: return writeMC(data)
    default: return false
    }
    return true
  }

  /// MC rules: bytes 0–1 and 6–12 change only while MC_SP bit 15 is 1; bytes 2–5 only while
  /// MC_ALL is FFh; MC_SP bits and MC_ALL only go from read/write to read-only; MC_ALL is 00h or
  /// FFh; MC_SYS_OP is 00h or 01h; bytes 13–15 are reserved (kept).
  private func writeMC(_ data: [UInt8]) -> Bool {
    var new = mc
    let spWritable = mc[1] & 0x80 != 0
    let allWritable = mc[2] == 0xFF
    for i in [0, 1] + Array(6...12) where data[i] != mc[i] {
      guard spWritable else { return false }
      new[i] = data[i]
    }
    // The one-way bits: read-only (0) may not become read/write (1) again.
    if new[0] & ~mc[0] != 0 || new[1] & ~mc[1] != 0 { return false }
    for i in 2...5 where data[i] != mc[i] {
      guard allWritable else { return false }
      new[i] = data[i]
    }
    guard new[2] == 0x00 || new[2] == 0xFF, new[3] <= 0x01 else { return false }
    mc = new
    return true
  }
}

/// A status-flag answer found while parsing a Check or Update frame.
enum FeliCaFrameError: Error {
  case flags(UInt8, UInt8)
}
