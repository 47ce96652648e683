/// What GET SYSTEM INFORMATION (2Bh) answered. Source: ISO/IEC 15693-3 §10.4.12; neard
/// `plugins/nfctype5.c`; the ACR1552 trace in NXP community thread 2093136.
public struct Type5SystemInfo: Hashable, Sendable {
  /// The info flags: 01 DSFID, 02 AFI, 04 memory size, 08 IC reference.
  public var infoFlags: UInt8
  /// The UID as the tag sent it (least significant byte first).
  public var uid: [UInt8]
  public var dsfid: UInt8?
  public var afi: UInt8?
  public var blockCount: Int?
  public var blockSize: Int?
  public var icReference: UInt8?
  /// The whole answer after the response flags.
  public var raw: [UInt8]

  /// Parses the answer after the response flags byte.
  /// - Throws: ``TagError/malformed(_:offset:)`` when a field the flags announce is missing.
  public init(parsing answer: [UInt8]) throws(TagError) {
    var cursor = answer[...]
    func take(_ n: Int) throws(TagError) -> ArraySlice<UInt8> {
      guard cursor.count >= n else {
        throw .malformed("the GET SYSTEM INFORMATION answer (\(answer.count) bytes) is truncated", offset: nil)
      }
      defer { cursor = cursor.dropFirst(n) }
      return cursor.prefix(n)
    }
    raw = answer
    infoFlags = try take(1).first ?? 0
    uid = Array(try take(8))
    if infoFlags & 0x01 != 0 { dsfid = try take(1).first }
    if infoFlags & 0x02 != 0 { afi = try take(1).first }
    if infoFlags & 0x04 != 0 {
      let size = Array(try take(2))
      blockCount = Int(size[0]) + 1
      blockSize = Int(size[1] & 0x1F) + 1
    }
    if infoFlags & 0x08 != 0 { icReference = try take(1).first }
  }
}
