import NFCTransport

/// A MIFARE Classic value block (MF1S50yyX §8.6.2.1, "Value blocks"): a signed 4-byte value
/// stored three times (once inverted), least significant byte first, then a 1-byte address stored
/// four times (twice inverted), which a backup management system may use.
public struct MIFAREClassicValueBlock: Hashable, Sendable {
  /// The value.
  public var value: Int32
  /// The address byte (by convention the block's own number).
  public var address: UInt8

  /// A value block holding `value` and `address`.
  public init(value: Int32, address: UInt8) {
    self.value = value
    self.address = address
  }

  /// The value block `block` holds; nil when the 16 bytes are not in the value-block format (a
  /// copy that disagrees, an inverted copy that is not the inverse).
  public init?(block: [UInt8]) {
    guard block.count == 16 else { return nil }
    let v = Array(block[0..<4]), inverted = Array(block[4..<8]), copy = Array(block[8..<12])
    guard v == copy, zip(v, inverted).allSatisfy({ $0 == ~$1 }),
          block[12] == block[14], block[13] == block[15], block[12] == ~block[13] else { return nil }
    self.init(value: Int32(bitPattern: Self.littleEndian(v)), address: block[12])
  }

  /// The 16 bytes of the block.
  public var bytes: [UInt8] {
    let v = Self.littleEndianBytes(UInt32(bitPattern: value))
    return v + v.map { ~$0 } + v + [address, ~address, address, ~address]
  }

  static func littleEndian(_ bytes: [UInt8]) -> UInt32 {
    bytes.prefix(4).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
  }

  static func littleEndianBytes(_ raw: UInt32) -> [UInt8] {
    [UInt8(truncatingIfNeeded: raw), UInt8(truncatingIfNeeded: raw >> 8),
     UInt8(truncatingIfNeeded: raw >> 16), UInt8(truncatingIfNeeded: raw >> 24)]
  }
}

/// A change of a value block: the card's INCREMENT or DECREMENT by an amount, then TRANSFER into
/// the same block (MF1S50yyX §8.2.5 and §9.1, Table 9).
public enum MIFAREClassicValueChange: Hashable, Sendable {
  /// INCREMENT (`C1`) by the amount.
  case increment(UInt32)
  /// DECREMENT (`C0`) by the amount.
  case decrement(UInt32)
}

/// What the MAD (AN10787 §3) says the sector of a block holds, when it is not free: the MAD itself
/// or an application's data.
public struct MIFAREClassicSectorClaim: Hashable, Sendable, CustomStringConvertible {
  /// Who holds the sector.
  public enum Holder: Hashable, Sendable {
    /// The MAD: sector 0, and sector 16 with MAD2.
    case directory
    /// The application whose AID the MAD gives the sector: NDEF (03E1: AN1304) or another, an
    /// administration code other than "free" included.
    case application(MIFAREApplicationID)
  }

  /// The sector.
  public let sector: Int
  /// Who holds it.
  public let holder: Holder

  /// "sector 0, which holds the MIFARE Application Directory", "sector 1, which the MIFARE
  /// Application Directory gives to NDEF (AID 03E1)".
  public var description: String {
    switch holder {
    case .directory: return "sector \(sector), which holds the MIFARE Application Directory"
    case .application(let aid) where aid == .ndef:
      return "sector \(sector), which the MIFARE Application Directory gives to NDEF (AID 03E1)"
    case .application(let aid):
      // As the application notes write AIDs: the stored bytes, upper-case hex.
      return "sector \(sector), which the MIFARE Application Directory gives to AID \(aid.description.uppercased())"
    }
  }
}

extension MIFAREClassicTag {
  /// What the card's MAD says of the sector of `block`: nil when the card has no MAD (sector 0's
  /// GPB with the DA bit clear, AN10787 §3), when the MAD marks the sector free (0000), or when it
  /// does not cover it (a sector past 15 with MAD1). Costs sector 0's authentication and 3 READs
  /// (a 4K with MAD2: sector 16's too).
  /// - Throws: ``TagError/unsupported(_:)`` as ``readValue(block:)``; ``TagError/malformed(_:offset:)``
  ///   for a MAD whose CRC is wrong (not trusted); ``TagError/authenticationFailed(_:)`` when no
  ///   key opens a MAD sector.
  public func sectorClaim(ofBlock block: Int) throws(TagError) -> MIFAREClassicSectorClaim? {
    try checkValueBlock(block)
    forgetReads()
    let sector = chip.sector(of: block)
    let mad: MIFAREApplicationDirectory
    do {
      mad = try readDirectory()
    } catch {
      guard case .notFormatted = error else { throw error }
      return nil
    }
    if sector == 0 || (sector == 16 && mad.version == .mad2) { return MIFAREClassicSectorClaim(sector: sector, holder: .directory) }
    guard sector < mad.sectors.count, let aid = mad.sectors[sector], aid != .free else { return nil }
    return MIFAREClassicSectorClaim(sector: sector, holder: .application(aid))
  }

  /// The value block `block` holds, read with a key the sector's access bits let read it.
  /// - Throws: ``TagError/unsupported(_:)`` for block 0, a trailer or a block past the card;
  ///   ``TagError/malformed(_:offset:)`` when the block is not in the value-block format;
  ///   ``TagError/authenticationFailed(_:)`` when no key opens the sector.
  public func readValue(block: Int) throws(TagError) -> MIFAREClassicValueBlock {
    try checkValueBlock(block)
    forgetReads()
    guard let data = try read(blocks: [block])[block], let value = MIFAREClassicValueBlock(block: data) else {
      throw .malformed("block \(block) is not a value block (MF1S50yyX §8.6.2.1 format)", offset: nil)
    }
    return value
  }

  /// Writes `value` into `block` as a value block (its own number as the address), with a key
  /// the access bits let write it, and reads it back.
  /// - Throws: as ``readValue(block:)``; ``TagError/writeRefused(_:command:address:)`` when no key
  ///   may write the block; ``TagError/verifyFailed(address:)`` when the read-back differs.
  public func initializeValue(_ value: Int32, block: Int) throws(TagError) {
    try checkValueBlock(block)
    forgetReads()
    let wanted = MIFAREClassicValueBlock(value: value, address: UInt8(block))
    try write(block: block, wanted.bytes)
    forgetReads()
    guard try readValue(block: block) == wanted else { throw .verifyFailed(address: block * 16) }
  }

  /// INCREMENT or DECREMENT `block` by the amount, then TRANSFER into it, in one authentication
  /// with a key the access bits grant that operation (key A first, then key B); returns the value
  /// read back.
  /// - Throws: as ``readValue(block:)``; ``TagError/writeRefused(_:command:address:)`` when no key
  ///   may do it; ``TagError/unsupported(_:)``, nothing sent, when the result would leave the
  ///   signed 32-bit range.
  @discardableResult
  public func changeValue(block: Int, _ change: MIFAREClassicValueChange) throws(TagError) -> MIFAREClassicValueBlock {
    let before = try readValue(block: block)
    let (code, amount, name): (UInt8, UInt32, String)
    switch change {
    case .increment(let n): (code, amount, name) = (0xC1, n, "INCREMENT")
    case .decrement(let n): (code, amount, name) = (0xC0, n, "DECREMENT")
    }
    let expected = switch change {
    case .increment: Int64(before.value) + Int64(amount)
    case .decrement: Int64(before.value) - Int64(amount)
    }
    // What the card does past the 32-bit range is not specified: not asked.
    guard expected >= Int64(Int32.min), expected <= Int64(Int32.max) else {
      throw .unsupported("\(before.value) \(name == "INCREMENT" ? "+" : "-") \(amount) is past the 32-bit range of a value block")
    }
    try inSector(chip.sector(of: block), for: .data) { () throws(TagError) in
      try valueCommand([code, UInt8(block)] + MIFAREClassicValueBlock.littleEndianBytes(amount), name: name, block: block)
      try valueCommand([0xB0, UInt8(block)], name: "TRANSFER", block: block)
    }
    forgetReads()
    let after = try readValue(block: block)
    guard Int64(after.value) == expected else { throw .verifyFailed(address: block * 16) }
    return after
  }

  private func checkValueBlock(_ block: Int) throws(TagError) {
    guard block > 0, block < chip.blockCount, block != chip.trailer(of: chip.sector(of: block)) else {
      throw .unsupported("block \(block) of a \(chip.productName) cannot hold a value (block 0, a trailer, or past the card)")
    }
  }

  /// One value command (INCREMENT, DECREMENT, TRANSFER), answered by an ACK.
  private func valueCommand(_ frame: [UInt8], name: String, block: Int) throws(TagError) {
    let answer: [UInt8]
    do {
      answer = try link.transceive(frame)
      exchangeCount += 1
    } catch {
      exchangeCount += 1
      throw Self.classify(error, command: name, block: block, write: true)
    }
    guard answer == [0x0A] else { throw .writeRefused(.malformedResponse(answer), command: name, address: block) }
  }
}
