/// FeliCa command packets: the one place they are built, for the Type 3 platform's command layer
/// (`Type3Commands`, which sends them with their length byte) and CoreNFC's `NFCFeliCaTag` (whose
/// session adds it), and the parts of the answers both read.
///
/// A packet is the command code and its parameters, without the length byte; every command but
/// Polling names the card by its IDm, and every answer is the command code plus one and the IDm,
/// then (for the commands that have them) the status flags SF1 SF2. Node, service and system
/// codes in lists go as the card takes them, little-endian (000Bh is `0B 00`); a block list
/// element is `80 nn` (service 0, block below 256) or `00 lo hi`.
///
/// Source: JIS X 6319-4 (Polling, the packet format); Sony, FeliCa Card User's Manual, Excerpted
/// Edition (the other commands, their answers and the status flags).
package struct FeliCaPackets: Hashable, Sendable {
  /// The card's IDm (8 bytes).
  package let idm: [UInt8]

  /// Packets for the card `idm`.
  package init(idm: [UInt8]) { self.idm = idm }

  /// Polling (00h): `00 SC SC RC TSN`, the system code as sent (FFh bytes are wildcards).
  package static func polling(systemCode: [UInt8], requestCode: UInt8, timeSlot: UInt8) -> [UInt8] {
    [0x00] + systemCode + [requestCode, timeSlot]
  }

  /// `code IDm body`.
  package func packet(_ code: UInt8, _ body: [UInt8] = []) -> [UInt8] { [code] + idm + body }

  /// Request Service (02h): `02 IDm n nodes`.
  package func requestService(nodes: [[UInt8]]) -> [UInt8] { packet(0x02, Self.list(nodes)) }
  /// Request Response (04h): `04 IDm`.
  package func requestResponse() -> [UInt8] { packet(0x04) }
  /// Read Without Encryption (06h, Check): `06 IDm n services m blocks`.
  package func readWithoutEncryption(services: [[UInt8]], blocks: [[UInt8]]) -> [UInt8] {
    packet(0x06, Self.list(services) + Self.list(blocks))
  }
  /// Write Without Encryption (08h, Update): `08 IDm n services m blocks data`, 16 bytes per block.
  package func writeWithoutEncryption(services: [[UInt8]], blocks: [[UInt8]], data: [UInt8]) -> [UInt8] {
    packet(0x08, Self.list(services) + Self.list(blocks) + data)
  }
  /// Request System Code (0Ch): `0C IDm`.
  package func requestSystemCode() -> [UInt8] { packet(0x0C) }
  /// Request Service V2 (32h): `32 IDm n nodes`.
  package func requestServiceV2(nodes: [[UInt8]]) -> [UInt8] { packet(0x32, Self.list(nodes)) }
  /// Request Specification Version (3Ch): `3C IDm 00 00` (the reserved bytes).
  package func requestSpecificationVersion() -> [UInt8] { packet(0x3C, [0x00, 0x00]) }
  /// Reset Mode (3Eh): `3E IDm 00 00` (the reserved bytes).
  package func resetMode() -> [UInt8] { packet(0x3E, [0x00, 0x00]) }

  /// A count byte, then the elements one after the other.
  static func list(_ elements: [[UInt8]]) -> [UInt8] { [UInt8(truncatingIfNeeded: elements.count)] + elements.flatMap { $0 } }

  /// A service code as a list names it: little-endian.
  package static func serviceCode(_ code: UInt16) -> [UInt8] { [UInt8(code & 0xFF), UInt8(code >> 8)] }

  /// The block list element for `block` of the list's first service: `80 nn` below 256, else
  /// `00 lo hi`; nil outside 0–FFFFh.
  package static func blockListElement(_ block: Int) -> [UInt8]? {
    guard let number = UInt16(exactly: block) else { return nil }
    return number < 256 ? [0x80, UInt8(number)] : [0x00, UInt8(number & 0xFF), UInt8(number >> 8)]
  }

  /// What follows the IDm in `answer` to the command `code`, when the answer is `code+1 IDm …`
  /// from this card with at least `minimum` bytes after the IDm; nil otherwise.
  package func answer(_ answer: [UInt8], to code: UInt8, minimum: Int = 0) -> ArraySlice<UInt8>? {
    guard answer.count >= 1 + idm.count + minimum, answer.first == code &+ 1,
          answer.dropFirst().prefix(idm.count).elementsEqual(idm) else { return nil }
    return answer.dropFirst(1 + idm.count)
  }

  /// `bytes` as `count` two-byte codes (key versions, system codes); nil for another length.
  package static func twoByteCodes(_ bytes: ArraySlice<UInt8>, count: Int) -> [ArraySlice<UInt8>]? {
    guard count >= 0, bytes.count == 2 * count else { return nil }
    return stride(from: bytes.startIndex, to: bytes.endIndex, by: 2).map { bytes[$0 ..< $0 + 2] }
  }

  /// A count byte, then that many two-byte codes (Request Service's key versions, Request System
  /// Code's system codes); nil for another shape.
  package static func countedCodes(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>]? {
    guard let count = bytes.first else { return nil }
    return twoByteCodes(bytes.dropFirst(), count: Int(count))
  }

  /// A Read Without Encryption answer's data, after the status flags: the block count, which must
  /// be `count`, and 16 bytes per block; nil for another shape.
  package static func blockData(_ bytes: ArraySlice<UInt8>, count: Int) -> [ArraySlice<UInt8>]? {
    guard bytes.first.map(Int.init) == count, bytes.count == 1 + 16 * count else { return nil }
    return stride(from: bytes.startIndex + 1, to: bytes.endIndex, by: 16).map { bytes[$0 ..< $0 + 16] }
  }

  /// A Request Service V2 answer after its status flags (00h 00h): the encryption identifier
  /// (4Fh AES, 41h AES and DES), the node count, which must be `nodes`, and the AES key version of
  /// each node, then for 41h its DES key version; nil for another shape.
  package static func serviceV2(_ bytes: ArraySlice<UInt8>, nodes: Int)
    -> (encryption: UInt8, aes: [ArraySlice<UInt8>], des: [ArraySlice<UInt8>])? {
    guard bytes.count >= 2, let encryption = bytes.first, encryption == 0x4F || encryption == 0x41,
          Int(bytes[bytes.startIndex + 1]) == nodes else { return nil }
    let lists = bytes.dropFirst(2), listSize = 2 * nodes
    guard lists.count == (encryption == 0x41 ? 2 : 1) * listSize,
          let aes = twoByteCodes(lists.prefix(listSize), count: nodes),
          let des = twoByteCodes(lists.dropFirst(listSize), count: encryption == 0x41 ? nodes : 0) else { return nil }
    return (encryption, aes, des)
  }

  /// A Request Specification Version answer after its status flags (00h 00h): the format version
  /// (00h), the basic version (2 bytes), the option count and the option versions (2 bytes each);
  /// nil for another shape.
  package static func specificationVersion(_ bytes: ArraySlice<UInt8>) -> (basic: ArraySlice<UInt8>, options: ArraySlice<UInt8>)? {
    let start = bytes.startIndex
    guard bytes.count >= 4, bytes.count == 4 + 2 * Int(bytes[start + 3]) else { return nil }
    return (bytes[(start + 1)..<(start + 3)], bytes[(start + 4)...])
  }
}
