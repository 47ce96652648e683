import NFCTransport

/// The Type 1 chips the emulator models.
///
/// Broadcom (Innovision) Topaz: HR0 HR1 `11 48` for the 120-byte static-memory Topaz
/// (BCM20203T96) and `12 4C` for the 512-byte dynamic-memory Topaz 512 (BCM20203T512).
/// Source: nfcpy `tt1_broadcom.py` `activate`.
public enum Type1Chip: String, CaseIterable, Sendable {
  case topaz96, topaz512

  /// Bytes of memory: 15 blocks (0–E) for the static Topaz, 64 blocks for the Topaz 512.
  public var memorySize: Int { self == .topaz96 ? 120 : 512 }
  /// Header ROM HR0 HR1, answered to RID and RALL.
  public var headerROM: [UInt8] { self == .topaz96 ? [0x11, 0x48] : [0x12, 0x4C] }
  /// True for dynamic memory (HR0 low nibble 2): RSEG, READ8, WRITE-E8 and WRITE-NE8 exist.
  public var isDynamic: Bool { self == .topaz512 }
  /// The product name with its Broadcom part number.
  public var productName: String { self == .topaz96 ? "Topaz (BCM20203T96)" : "Topaz 512 (BCM20203T512)" }

  /// The NDEF bytes nfcpy's `format` writes from byte 8: the CC (`E1 10 TMS 00`), then for the
  /// Topaz 512 a Lock Control TLV (48 lock bits at byte 122, one per 8-byte block from block 10h)
  /// and a Memory Control TLV (2 reserved bytes at 120), then an empty NDEF TLV.
  /// Source: nfcpy `tt1_broadcom.py` `_format`.
  public var factoryNDEF: [UInt8] {
    switch self {
    case .topaz96: return [0xE1, 0x10, 0x0E, 0x00, 0x03, 0x00]
    case .topaz512:
      return [0xE1, 0x10, 0x3F, 0x00, 0x01, 0x03, 0xF2, 0x30, 0x33, 0x02, 0x03, 0xF0, 0x02, 0x03, 0x03, 0x00]
    }
  }
}

/// A Broadcom Topaz (Type 1 tag) with 8-byte blocks, answering the frames of nfcpy `tt1.py`
/// as the tag receives them (command, address, data, UID0–UID3; no CRC).
///
/// Faithful where a reader could tell:
/// - RID `78 00×6` → `HR0 HR1 UID0–3`; RALL → `HR0 HR1` + blocks 0–E (120 bytes); READ → `ADD DATA`;
///   WRITE-E / WRITE-NE → `ADD DATA` (the byte after the write); on the Topaz 512 also RSEG
///   (`ADDS` + 128 bytes), READ8 / WRITE-E8 / WRITE-NE8 (`ADD8` + the 8 bytes after the command).
/// - A frame with the wrong length, an unknown command, a UID that is not this tag's, or a write
///   the tag refuses gets no answer (``TagResponse/mute``): Type 1 tags have no NAK.
/// - Block 0 (UID) and block D (reserved, "can't be written" per libnfc `nfc-jewel.c`) are
///   read-only. The static lock bits LOCK0/LOCK1 (bytes 112–113) lock blocks 0–E, bit n for block n
///   (libnfc `jewel.h` block map, nfcpy `tt1.py`). On the Topaz 512 the 48 dynamic lock bits
///   in bytes 122–127 lock blocks 10h–3Fh, bit n for block 10h + n, as its factory Lock Control
///   TLV (`F2 30 33`) says.
/// - Lock bytes, OTP bytes (114–119) and the rest of block F are one-time programmable: any write
///   only sets bits (WRITE-E cannot clear them), WRITE-NE always ORs bits in.
/// - The dynamic memory wraps: READ8/RSEG/WRITE-x8 beyond the last block address block mod 64,
///   as nfcpy `tt1.py` `_dump` says ("return data for every address"); a write that wraps onto
///   block 0 is refused, which is how nfcpy finds the end of memory.
public final class Type1VirtualTag: VirtualTag {
  /// Which Topaz this is (static or dynamic memory).
  public let chip: Type1Chip
  /// NFC Forum Type 1.
  public var platform: TagPlatform { .type1 }
  /// UID0–UID6 (block 0 bytes 0–6).
  public private(set) var identifier: [UInt8]
  /// SENS_RES `0C 00` as a PN532 reports it (libnfc `nfc-list` prints Jewel ATQA `0c 00`; the
  /// Topaz512-driver's ATQA constant is `0C 00`): no bit-frame anticollision, proprietary `C`.
  public var technology: RFTechnology { .jewel(sensRes: [0x0C, 0x00], headerROM: chip.headerROM) }
  /// The chip's product name (``Type1Chip/productName``).
  public var productName: String { chip.productName }
  /// Increases whenever a command changed the memory, so an image file can be written back.
  public private(set) var memoryGeneration = 0
  /// The whole memory, byte 0 first (120 or 512 bytes, ``Type1Chip/memorySize``).
  public var memoryImage: [UInt8] { memory }

  private var memory: [UInt8]

  /// A tag as nfcpy's `format` leaves it: UID in block 0, the CC and TLVs from byte 8, lock and
  /// OTP bytes clear.
  /// - Parameters:
  ///   - chip: the Topaz to model (static or dynamic memory).
  ///   - uid: 7 bytes UID0–UID6; a default one when nil.
  public init(chip: Type1Chip = .topaz512, uid: [UInt8]? = nil) throws(EmulatorError) {
    let uid = uid ?? [0x5A, 0x6F, 0x1E, 0x2D, 0x00, 0x00, 0x00]
    guard uid.count == 7 else { throw EmulatorError("a Topaz UID has 7 bytes (UID0-UID6); got \(uid.count)") }
    self.chip = chip
    identifier = uid
    memory = [UInt8](repeating: 0, count: chip.memorySize)
    memory.replaceSubrange(0..<7, with: uid)
    let ndef = chip.factoryNDEF
    memory.replaceSubrange(8..<(8 + ndef.count), with: ndef)
  }

  /// A tag from a memory image: the bytes in address order (120 for a Topaz, 512 for a Topaz 512).
  public init(chip: Type1Chip = .topaz512, image: [UInt8]) throws(EmulatorError) {
    guard image.count == chip.memorySize else {
      throw EmulatorError("\(chip.productName) images have \(chip.memorySize) bytes; this one has \(image.count)")
    }
    self.chip = chip
    memory = image
    identifier = Array(image[0..<7])
  }

  /// Nothing to drop: a Topaz keeps no state from one command to the next.
  public func reset() {}

  // MARK: - Access rules

  private var blockCount: Int { chip.memorySize / 8 }

  /// True when writes to `block` are refused.
  func isLocked(block: Int) -> Bool {
    if block == 0 || block == 0x0D { return true }
    if block <= 0x0E {
      let bits = Int(memory[112]) | Int(memory[113]) << 8
      return bits & (1 << block) != 0
    }
    if chip.isDynamic, block >= 0x10 {
      let bit = block - 0x10
      let byte = 122 + bit / 8
      guard byte < 128 else { return false }
      return memory[byte] & (1 << UInt8(bit % 8)) != 0
    }
    return false
  }

  /// Lock and OTP bytes: block E (112–119) and, on the Topaz 512, block F (120–127).
  private func isOneTimeProgrammable(_ address: Int) -> Bool {
    (112..<120).contains(address) || (chip.isDynamic && (120..<128).contains(address))
  }

  /// Writes `value` at `address`: erase first unless `erase` is false or the byte is OTP.
  private func store(_ value: UInt8, at address: Int, erase: Bool) {
    let old = memory[address]
    let new = erase && !isOneTimeProgrammable(address) ? value : old | value
    if new != old {
      memory[address] = new
      memoryGeneration += 1
    }
  }

  // MARK: - Commands

  /// Answers one Type 1 command (RID, RALL, READ, WRITE-E, WRITE-NE; RSEG, READ8, WRITE-E8,
  /// WRITE-NE8 on the Topaz 512) with the rules above; a command for another UID, or one it does
  /// not know, gets no answer.
  public func respond(to frame: [UInt8]) -> TagResponse {
    guard let command = frame.first else { return .mute }
    let uid = Array(identifier.prefix(4))
    switch command {
    case 0x78:  // RID
      guard frame.count == 7 else { return .mute }
      return .data(chip.headerROM + uid)
    case 0x00, 0x01, 0x53, 0x1A:
      guard frame.count == 7, Array(frame[3..<7]) == uid else { return .mute }
      return staticCommand(command, address: Int(frame[1]), data: frame[2])
    case 0x10, 0x02, 0x54, 0x1B:
      guard chip.isDynamic, frame.count == 14, Array(frame[10..<14]) == uid else { return .mute }
      return dynamicCommand(command, address: Int(frame[1]), data: Array(frame[2..<10]))
    default:
      return .mute
    }
  }

  private func staticCommand(_ command: UInt8, address add: Int, data: UInt8) -> TagResponse {
    switch command {
    case 0x00:  // RALL: HR0 HR1 and blocks 0-E
      return .data(chip.headerROM + Array(memory[0..<120]))
    default:
      // ADD: bits 6-3 block, bits 2-0 byte (SCM SCL3711 manual §6.4.1.3); bit 7 is not an address bit.
      let address = add & 0x7F
      guard address < chip.memorySize else { return .mute }
      switch command {
      case 0x01:
        return .data([UInt8(add), memory[address]])
      default:
        guard !isLocked(block: address / 8) else { return .mute }
        store(data, at: address, erase: command == 0x53)
        return .data([UInt8(add), memory[address]])
      }
    }
  }

  private func dynamicCommand(_ command: UInt8, address: Int, data: [UInt8]) -> TagResponse {
    switch command {
    case 0x10:  // RSEG: ADDS high nibble = segment of 128 bytes
      let segment = (address >> 4) % (chip.memorySize / 128)
      return .data([UInt8(address)] + Array(memory[(segment * 128)..<(segment * 128 + 128)]))
    case 0x02:  // READ8
      let block = address % blockCount
      return .data([UInt8(address)] + Array(memory[(block * 8)..<(block * 8 + 8)]))
    default:  // WRITE-E8, WRITE-NE8
      let block = address % blockCount
      guard !isLocked(block: block) else { return .mute }
      for i in 0..<8 { store(data[i], at: block * 8 + i, erase: command == 0x54) }
      return .data([UInt8(address)] + Array(memory[(block * 8)..<(block * 8 + 8)]))
    }
  }
}
