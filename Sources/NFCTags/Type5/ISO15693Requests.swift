/// The ISO/IEC 15693-3 request frames: the one place they are built, for the Type 5 platform's
/// command layer (non-addressed, high data rate) and for CoreNFC's and NFCSession's
/// `NFCISO15693Tag` (with the flags the caller gives, addressed as Core NFC sends them).
///
/// A frame is `flags code [manufacturer] [UID] parameters`: the flags byte (§7.3.1), the command
/// code, the IC manufacturer code for a custom command (§10.5), the UID when the request is
/// addressed (least significant byte first, §7.3.3), then the command's parameters.
/// Block numbers are one byte; in the extended commands (30h–34h, 3Ch: ISO/IEC 15693-3:2019
/// §10.4) two, least significant first.
///
/// Source: ISO/IEC 15693-3:2009 §7.3 (request format), §10.3 and §10.4 (the mandatory and
/// optional commands and their parameters).
package struct ISO15693Requests: Hashable, Sendable {
  /// The flags byte every request carries.
  package let flags: UInt8
  /// The UID as sent on the air (least significant byte first) for addressed requests; empty
  /// for requests that are not.
  package let address: [UInt8]

  /// Requests with `flags`, addressed to the tag whose on-air UID is `address` (none: not addressed).
  package init(flags: UInt8, address: [UInt8] = []) {
    self.flags = flags
    self.address = address
  }

  /// `flags code [manufacturer] [UID] parameters`.
  package func frame(_ code: UInt8, _ parameters: [UInt8] = [], manufacturer: UInt8? = nil) -> [UInt8] {
    [flags, code] + (manufacturer.map { [$0] } ?? []) + address + parameters
  }

  /// STAY QUIET (02h).
  package func stayQuiet() -> [UInt8] { frame(0x02) }
  /// READ SINGLE BLOCK (20h).
  package func readSingleBlock(_ block: UInt8) -> [UInt8] { frame(0x20, [block]) }
  /// WRITE SINGLE BLOCK (21h) of `data` (one block).
  package func writeSingleBlock(_ block: UInt8, _ data: [UInt8]) -> [UInt8] { frame(0x21, [block] + data) }
  /// LOCK BLOCK (22h).
  package func lockBlock(_ block: UInt8) -> [UInt8] { frame(0x22, [block]) }
  /// READ MULTIPLE BLOCKS (23h, extended 33h).
  package func readMultipleBlocks(_ blocks: ISO15693BlockRange) -> [UInt8] {
    frame(blocks.extended ? 0x33 : 0x23, blocks.bytes)
  }
  /// WRITE MULTIPLE BLOCKS (24h, extended 34h) of `data`, the blocks one after the other.
  package func writeMultipleBlocks(_ blocks: ISO15693BlockRange, _ data: [UInt8]) -> [UInt8] {
    frame(blocks.extended ? 0x34 : 0x24, blocks.bytes + data)
  }
  /// SELECT (25h).
  package func select() -> [UInt8] { frame(0x25) }
  /// RESET TO READY (26h).
  package func resetToReady() -> [UInt8] { frame(0x26) }
  /// WRITE AFI (27h).
  package func writeAFI(_ afi: UInt8) -> [UInt8] { frame(0x27, [afi]) }
  /// LOCK AFI (28h).
  package func lockAFI() -> [UInt8] { frame(0x28) }
  /// WRITE DSFID (29h).
  package func writeDSFID(_ dsfid: UInt8) -> [UInt8] { frame(0x29, [dsfid]) }
  /// LOCK DSFID (2Ah).
  package func lockDSFID() -> [UInt8] { frame(0x2A) }
  /// GET SYSTEM INFORMATION (2Bh).
  package func getSystemInformation() -> [UInt8] { frame(0x2B) }
  /// GET MULTIPLE BLOCK SECURITY STATUS (2Ch, extended 3Ch).
  package func blockSecurityStatus(_ blocks: ISO15693BlockRange) -> [UInt8] {
    frame(blocks.extended ? 0x3C : 0x2C, blocks.bytes)
  }
  /// EXTENDED READ SINGLE BLOCK (30h).
  package func extendedReadSingleBlock(_ block: UInt16) -> [UInt8] { frame(0x30, Self.twoBytes(block)) }
  /// EXTENDED WRITE SINGLE BLOCK (31h) of `data` (one block).
  package func extendedWriteSingleBlock(_ block: UInt16, _ data: [UInt8]) -> [UInt8] {
    frame(0x31, Self.twoBytes(block) + data)
  }
  /// EXTENDED LOCK BLOCK (32h).
  package func extendedLockBlock(_ block: UInt16) -> [UInt8] { frame(0x32, Self.twoBytes(block)) }

  /// A custom command (A0h–DFh, §10.5) of the manufacturer `manufacturer`; nil for another code.
  package func custom(_ code: UInt8, manufacturer: UInt8, _ parameters: [UInt8]) -> [UInt8]? {
    (0xA0...0xDF).contains(code) ? frame(code, parameters, manufacturer: manufacturer) : nil
  }

  /// A multiple-block answer cut into `count` blocks of one size (with the Option flag each
  /// starts with its security status byte); nil when it is empty or does not divide so.
  package static func blocks(_ answer: [UInt8], count: Int) -> [ArraySlice<UInt8>]? {
    guard count >= 1, !answer.isEmpty, answer.count % count == 0 else { return nil }
    let size = answer.count / count
    return stride(from: 0, to: answer.count, by: size).map { answer[$0 ..< $0 + size] }
  }

  static func twoBytes(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}

/// A run of blocks as READ and WRITE MULTIPLE BLOCKS and GET MULTIPLE BLOCK SECURITY STATUS name
/// it: the first block, then the number of blocks less one; a byte each, or in the extended
/// commands two bytes each, least significant first (ISO/IEC 15693-3:2019 §10.4).
package struct ISO15693BlockRange: Hashable, Sendable {
  /// The first block.
  package let first: Int
  /// The number of blocks (at least one).
  package let count: Int
  /// True for the extended commands' two-byte numbers.
  package let extended: Bool

  /// nil when `count` is below one or the run leaves blocks 0–255 (0–65535 when `extended`).
  package init?(first: Int, count: Int, extended: Bool = false) {
    let limit = extended ? 0x1_0000 : 0x100
    guard count >= 1, first >= 0, first <= limit - count else { return nil }
    self.first = first
    self.count = count
    self.extended = extended
  }

  /// The parameters as sent: first block, count − 1.
  package var bytes: [UInt8] {
    guard extended else { return [UInt8(first), UInt8(count - 1)] }
    return ISO15693Requests.twoBytes(UInt16(first)) + ISO15693Requests.twoBytes(UInt16(count - 1))
  }
}
