import NDEF

/// Why a read-back of a planned NDEF file holds no URL: one line.
public struct SDMReadBackError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong with the read-back, one line.
  public let description: String
  init(_ description: String) { self.description = description }
}

extension SDMPlan {
  /// The URL in `bytes`, the NDEF file as read back after the set-up (NLEN, then one URI record,
  /// the mirrors filled in by the tag).
  ///
  /// - Throws: ``SDMReadBackError`` when the file is not as long as planned, its NLEN does not
  ///   match, or it holds anything but one URI record.
  public func url(inReadBack bytes: [UInt8]) throws(SDMReadBackError) -> String {
    guard bytes.count == ndefFile.count, bytes.count >= 2 else { throw SDMReadBackError("\(bytes.count) bytes read") }
    let length = Int(bytes[0]) << 8 | Int(bytes[1])
    guard length == bytes.count - 2 else { throw SDMReadBackError("NLEN is \(length)") }
    let message: NDEFMessage
    do { message = try NDEFMessage(decoding: Array(bytes.dropFirst(2))) } catch {
      throw SDMReadBackError("\(error)")
    }
    guard let record = message.records.first, message.records.count == 1, let uri = URIRecord(record) else {
      throw SDMReadBackError("the file holds no URI record")
    }
    return uri.uri
  }
}
