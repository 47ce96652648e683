import NFCTags
import NFCTransport

/// A MIFARE Classic Mini, 1K or 4K as the reader's side of Crypto1 sees it.
///
/// Crypto1 itself is not modelled: the reader does it (a PN532, a PC/SC reader). So ``respond(to:)``
/// takes the MIFARE commands in the form a PN532's InDataExchange takes them (NXP PN532 User
/// Manual §7.3.8, Table "MIFARE commands"): the reader runs the two-step exchanges itself.
///
/// | frame | command (MF1S50yyX §8.2.4, §8.2.5, §9.1) | answer |
/// |---|---|---|
/// | `60`/`61` blk key(6) uid(4) | AUTHENTICATION with key A / B | ack; mute on a wrong key or UID, and silent until selected again |
/// | `30` blk | READ | 16 bytes |
/// | `A0` blk data(16) | WRITE | ack |
/// | `C1`/`C0`/`C2` blk value(4) | INCREMENT / DECREMENT / RESTORE into the transfer buffer | ack |
/// | `B0` blk | TRANSFER the buffer into a value block | ack |
/// | `50 00` | HALT | mute, and silent until selected again |
///
/// A refused command answers NAK 4 ("invalid operation", transfer buffer invalid: MF1S50yyX §9.3,
/// Table 10) and ends the authentication, as the chip's error leaves the authenticated state. An authentication lasts until a HALT, a failed authentication,
/// an error, an access outside its sector, or the field going off (``reset()``).
///
/// A failed authentication (a wrong key, a wrong UID, a block past the end) leaves the card
/// silent: "each time an Authentication operation … fails, the MIFARE Classic … remains silent and
/// it does not respond anymore to any commands", and it "needs to be re-activated and selected"
/// (NXP AN1304 §6.4.1, NDEF detection procedure; the MF1S50yyX command flow, §8.2 Figure 4, has
/// no way from a failed authentication back to the authentication). So ``isHalted`` holds and every
/// frame is mute until the reader selects the card again (``reset()``: InListPassiveTarget, a
/// card reset, the field off and on). The note says the same of a failed READ or WRITE: a refused
/// command answers its NAK and the card is then silent too.
///
/// The memory is the whole card, trailers included; reading a trailer shows key A as zeros and key B as
/// zeros unless the access bits make it readable (§8.7.2).
public final class MIFAREClassicVirtualTag: VirtualTag {
  /// Mini, 1K or 4K.
  public let chip: MIFAREClassicChip
  /// MIFARE Classic is no NFC Forum platform. It is an ISO 14443-3A card without ISO-DEP that
  /// reads 16 bytes at a time, and the reader faces treat it as that, with its own commands.
  public var platform: TagPlatform { .type2 }
  /// The 4-byte NUID or 7-byte UID, as block 0 begins.
  public let identifier: [UInt8]
  /// Type A with the chip's ATQA and SAK, no ISO-DEP.
  public var technology: RFTechnology {
    .typeA(sensRes: chip.atqa(uidLength: identifier.count), selRes: chip.sak, ats: nil)
  }
  /// "MIFARE Classic 1K" and so on.
  public var productName: String { chip.productName }
  /// Increases with every block written.
  public private(set) var memoryGeneration = 0

  private var memory: [UInt8]
  /// The authenticated sector and the key used, nil when not authenticated.
  public private(set) var authenticated: (sector: Int, key: MIFAREClassicKeyType)?
  /// The transfer buffer the value commands fill (MF1S50yyX §8.2.5).
  private var transferBuffer: [UInt8]?
  /// True after a failed authentication, a refused READ, WRITE or value command, or a HALT: the
  /// card answers nothing until it is selected again (``reset()``; AN1304 §6.4.1).
  public private(set) var isHalted = false

  /// NAK "invalid operation", transfer buffer invalid (MF1S50yyX §9.3, Table 10).
  public static let nakInvalidOperation: UInt8 = 0x04
  /// The factory key (A and B): FF FF FF FF FF FF (MF1S50yyX §8.6.3).
  public static let factoryKey: [UInt8] = Array(repeating: 0xFF, count: 6)
  /// The factory trailer: key A, access bits `FF 07 80`, GPB `69`, key B (§8.6.3, §8.7).
  public static let factoryTrailer: [UInt8] = factoryKey + [0xFF, 0x07, 0x80, 0x69] + factoryKey

  /// A factory-fresh card: every data block zero, every trailer ``factoryTrailer``.
  /// - Parameters:
  ///   - chip: Mini, 1K or 4K: the memory's size and layout, ATQA and SAK.
  ///   - uid: a 4-byte NUID or a 7-byte UID; nil: `A1 B2 C3 D4`.
  /// - Throws: ``EmulatorError`` for another length.
  public init(chip: MIFAREClassicChip, uid: [UInt8]? = nil) throws(EmulatorError) {
    let uid = uid ?? [0xA1, 0xB2, 0xC3, 0xD4]
    guard uid.count == 4 || uid.count == 7 else {
      throw EmulatorError("a MIFARE Classic UID has 4 or 7 bytes (got \(uid.count))")
    }
    self.chip = chip
    self.identifier = uid
    memory = [UInt8](repeating: 0, count: chip.memorySize)
    memory.replaceSubrange(0..<16, with: Self.manufacturerBlock(uid: uid, chip: chip))
    for sector in 0..<chip.sectorCount {
      let start = chip.trailer(of: sector) * 16
      memory.replaceSubrange(start..<start + 16, with: Self.factoryTrailer)
    }
  }

  /// A card from its memory image (the `.mfd` layout: every block in order, trailers with their
  /// keys). The UID is block 0's: 4 bytes when byte 4 is their BCC, else 7, unless `uid` (the
  /// caller's UID, of 4 or 7 bytes) gives the length.
  /// - Throws: ``EmulatorError`` when the image is not 320, 1024 or 4096 bytes as the chip needs,
  ///   or `uid` has another length.
  public init(chip: MIFAREClassicChip, image: [UInt8], uid: [UInt8]? = nil) throws(EmulatorError) {
    guard image.count == chip.memorySize else {
      throw EmulatorError("a \(chip.productName) image has \(chip.memorySize) bytes (got \(image.count))")
    }
    let uidLength: Int
    if let uid {
      guard uid.count == 4 || uid.count == 7 else {
        throw EmulatorError("a MIFARE Classic UID has 4 or 7 bytes (got \(uid.count))")
      }
      uidLength = uid.count
    } else {
      uidLength = image[4] == image[0] ^ image[1] ^ image[2] ^ image[3] ? 4 : 7
    }
    self.chip = chip
    self.identifier = Array(image.prefix(uidLength))
    memory = image
  }

  /// A card formatted for NDEF as a factory card becomes one after `nfctag format`
  /// (NFCTags' `MIFAREClassicNDEF.formatWrites(for:keyB:)`: the MAD, public keys A, key B FF…FF, an
  /// empty NDEF message).
  /// - Throws: ``EmulatorError`` for a UID of another length than 4 or 7.
  public static func ndefFormatted(chip: MIFAREClassicChip, uid: [UInt8]? = nil) throws(EmulatorError) -> MIFAREClassicVirtualTag {
    let factory = try MIFAREClassicVirtualTag(chip: chip, uid: uid)
    var image = factory.memory
    for (_, blocks) in MIFAREClassicNDEF.formatWrites(for: chip) {
      for (block, bytes) in blocks { image.replaceSubrange(block * 16 ..< block * 16 + 16, with: bytes) }
    }
    return try MIFAREClassicVirtualTag(chip: chip, image: image, uid: factory.identifier)
  }

  /// Block 0 (MF1S50yyX §8.6.1): NUID, BCC, SAK, ATQA (least significant byte first), then
  /// manufacturer data; for a 7-byte UID the UID, SAK, ATQA, then manufacturer data.
  static func manufacturerBlock(uid: [UInt8], chip: MIFAREClassicChip) -> [UInt8] {
    let atqa = chip.atqa(uidLength: uid.count)
    var block = uid
    if uid.count == 4 { block.append(uid.reduce(0, ^)) }
    block += [chip.sak, atqa[1], atqa[0]]
    let manufacturer: [UInt8] = [0x62, 0x63, 0x64, 0x65, 0x66, 0x67, 0x68, 0x69]
    block += manufacturer.prefix(16 - block.count)
    return block
  }

  /// Every block in order, trailers with their keys: the `.mfd` layout.
  public var memoryImage: [UInt8] { memory }

  /// The field went off, or the reader selected the card again: the authentication and the
  /// transfer buffer end, and a card silent after a failed authentication answers again.
  public func reset() {
    endAuthentication()
    isHalted = false
  }

  /// The authentication and the transfer buffer end; a silent card stays silent.
  private func endAuthentication() {
    authenticated = nil
    transferBuffer = nil
  }

  /// The 16 bytes of `block` as stored (keys included), or nil past the end.
  public func storedBlock(_ block: Int) -> [UInt8]? {
    guard block >= 0, block < chip.blockCount else { return nil }
    return Array(memory[block * 16 ..< block * 16 + 16])
  }

  /// The access conditions of `sector`, nil when its trailer's access bits violate their format.
  public func accessConditions(sector: Int) -> MIFAREClassicAccessConditions? {
    guard let trailer = storedBlock(chip.trailer(of: sector)) else { return nil }
    return MIFAREClassicAccessConditions(bytes: Array(trailer[6..<9]))
  }

  /// Answers one MIFARE command in the PN532's form (the table above).
  public func respond(to frame: [UInt8]) -> TagResponse {
    guard let command = frame.first, !isHalted else { return .mute }
    switch command {
    case 0x60, 0x61: return authenticate(frame)
    case 0x50:
      // HALT: the card leaves the active state for HALT (MF1S50yyX §9; ISO/IEC 14443-3) and
      // answers only a new selection.
      endAuthentication()
      isHalted = true
      return .mute
    case 0x30: return frame.count == 2 ? read(Int(frame[1])) : refuse()
    case 0xA0: return frame.count == 18 ? write(Int(frame[1]), Array(frame[2...])) : refuse()
    case 0xC0, 0xC1, 0xC2:
      return frame.count == 6 ? value(command, Int(frame[1]), Array(frame[2...])) : refuse()
    case 0xB0: return frame.count == 2 ? transfer(Int(frame[1])) : refuse()
    default: return refuse()
    }
  }

  /// NAK 4 (MF1S50yyX §9.3, Table 10); the authentication ends and the card is silent until it is
  /// selected again (AN1304 §6.4.1).
  private func refuse() -> TagResponse {
    endAuthentication()
    isHalted = true
    return .nak(Self.nakInvalidOperation)
  }

  // MARK: - Authentication (MF1S50yyX §8.2.4)

  private func authenticate(_ frame: [UInt8]) -> TagResponse {
    guard frame.count == 12, let keyType = MIFAREClassicKeyType(rawValue: frame[0]) else { return refuse() }
    let block = Int(frame[1])
    endAuthentication()
    guard block < chip.blockCount, let trailer = storedBlock(chip.trailer(of: chip.sector(of: block))) else { return halt() }
    // The reader sends the last 4 UID bytes: UID CL2 of a 7-byte UID, the whole 4-byte NUID
    // (MF1S70yyX §10.1.2, §10.2.2).
    guard Array(frame[8..<12]) == Array(identifier.suffix(4)) else { return halt() }
    let stored = keyType == .a ? Array(trailer[0..<6]) : Array(trailer[10..<16])
    guard Array(frame[2..<8]) == stored else { return halt() }
    authenticated = (chip.sector(of: block), keyType)
    return .ack
  }

  /// A failed authentication: mute now and until the card is selected again (AN1304 §6.4.1).
  private func halt() -> TagResponse {
    isHalted = true
    return .mute
  }

  /// The key the current authentication grants for `block`'s sector, or nil: not authenticated
  /// there, an access bits format violation, or key B while key B is readable (§8.7.2).
  private func grantedKey(for block: Int) -> (key: MIFAREClassicKeyType, bits: MIFAREClassicAccessBits)? {
    guard block >= 0, block < chip.blockCount, let authenticated, authenticated.sector == chip.sector(of: block),
          let conditions = accessConditions(sector: authenticated.sector) else { return nil }
    let trailerBits = conditions.groups[3]
    if authenticated.key == .b, trailerBits.keyBIsData { return nil }
    return (authenticated.key, conditions.groups[chip.accessGroup(of: block)])
  }

  // MARK: - READ and WRITE (§8.2.5)

  private func read(_ block: Int) -> TagResponse {
    guard let (key, bits) = grantedKey(for: block), var data = storedBlock(block) else { return refuse() }
    if block == chip.trailer(of: chip.sector(of: block)) {
      data.replaceSubrange(0..<6, with: [UInt8](repeating: 0, count: 6))  // key A is never readable
      if !bits.trailerAccessBitsRead.allows(key) { data.replaceSubrange(6..<10, with: [UInt8](repeating: 0, count: 4)) }
      if !bits.trailerKeyBRead.allows(key) { data.replaceSubrange(10..<16, with: [UInt8](repeating: 0, count: 6)) }
      return .data(data)
    }
    guard bits.dataRead.allows(key) else { return refuse() }
    return .data(data)
  }

  private func write(_ block: Int, _ data: [UInt8]) -> TagResponse {
    guard block != 0, let (key, bits) = grantedKey(for: block), let stored = storedBlock(block) else { return refuse() }
    if block == chip.trailer(of: chip.sector(of: block)) {
      // Each part (key A, access bits and GPB, key B) is written only where Table 7 allows it;
      // the others keep their bytes. A write no part of which is allowed is refused. Access bits
      // written in a violated format block the sector (§8.7.1): every later access is refused.
      let parts: [(Range<Int>, MIFAREClassicKeyRight)] = [
        (0..<6, bits.trailerKeyAWrite), (6..<10, bits.trailerAccessBitsWrite), (10..<16, bits.trailerKeyBWrite),
      ]
      var updated = stored
      for (range, right) in parts where right.allows(key) { updated.replaceSubrange(range, with: data[range]) }
      guard parts.contains(where: { $0.1.allows(key) }) else { return refuse() }
      store(block, updated)
      return .ack
    }
    guard bits.dataWrite.allows(key) else { return refuse() }
    store(block, data)
    return .ack
  }

  private func store(_ block: Int, _ data: [UInt8]) {
    memory.replaceSubrange(block * 16 ..< block * 16 + 16, with: data)
    memoryGeneration += 1
  }

  // MARK: - Value blocks (§8.6.2.1, §8.2.5)

  /// The value of a block in value format (value, ~value, value, addr, ~addr, addr, ~addr), or nil.
  public static func value(ofBlock data: [UInt8]) -> Int32? {
    guard data.count == 16 else { return nil }
    let v = Array(data[0..<4]), inverted = Array(data[4..<8]), copy = Array(data[8..<12])
    guard v == copy, zip(v, inverted).allSatisfy({ $0 == ~$1 }),
          data[12] == data[14], data[13] == data[15], data[12] == ~data[13] else { return nil }
    return Int32(bitPattern: UInt32(v[0]) | UInt32(v[1]) << 8 | UInt32(v[2]) << 16 | UInt32(v[3]) << 24)
  }

  /// A value block holding `value` (least significant byte first) and `address`.
  public static func valueBlock(_ value: Int32, address: UInt8) -> [UInt8] {
    let raw = UInt32(bitPattern: value)
    let v: [UInt8] = [UInt8(truncatingIfNeeded: raw), UInt8(truncatingIfNeeded: raw >> 8),
                      UInt8(truncatingIfNeeded: raw >> 16), UInt8(truncatingIfNeeded: raw >> 24)]
    return v + v.map { ~$0 } + v + [address, ~address, address, ~address]
  }

  private func value(_ command: UInt8, _ block: Int, _ operand: [UInt8]) -> TagResponse {
    guard let (key, bits) = grantedKey(for: block), block != chip.trailer(of: chip.sector(of: block)),
          let stored = storedBlock(block), let current = Self.value(ofBlock: stored) else { return refuse() }
    let right = command == 0xC1 ? bits.dataIncrement : bits.dataDecrementTransferRestore
    guard right.allows(key) else { return refuse() }
    let delta = Int32(bitPattern: UInt32(operand[0]) | UInt32(operand[1]) << 8 | UInt32(operand[2]) << 16 | UInt32(operand[3]) << 24)
    let result: Int32
    switch command {
    case 0xC1: result = current &+ delta
    case 0xC0: result = current &- delta
    default: result = current
    }
    transferBuffer = Self.valueBlock(result, address: stored[12])
    return .ack
  }

  private func transfer(_ block: Int) -> TagResponse {
    guard block != 0, let buffer = transferBuffer, let (key, bits) = grantedKey(for: block),
          block != chip.trailer(of: chip.sector(of: block)), bits.dataDecrementTransferRestore.allows(key) else {
      return refuse()
    }
    store(block, buffer)
    transferBuffer = nil
    return .ack
  }
}
