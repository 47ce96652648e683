#if os(Linux)

/// The flags byte of an ISO 15693 answer (ISO/IEC 15693-3 §7.4.1). Core NFC's
/// `NFCISO15693ResponseFlag`, which ``NFCISO15693Tag/sendRequest(requestFlags:commandCode:data:completionHandler:)``
/// hands back with the answer.
///
/// ```swift
/// let (flags, data) = try await tag.sendRequest(requestFlags: 0x22, commandCode: 0x2B, data: uid)
/// if flags.contains(.error) { print("refused, error", data?.first ?? 0) }
/// ```
public struct NFCISO15693ResponseFlag: OptionSet, Hashable, Sendable {
  /// The flags byte.
  public let rawValue: UInt8
  /// Flags from their byte.
  public init(rawValue: UInt8) { self.rawValue = rawValue }
  /// 01h: the tag refused the request; the data is its error code.
  public static let error = NFCISO15693ResponseFlag(rawValue: 0x01)
  /// 02h: the tag's response buffer holds an answer (READ BUFFER, 3Ah, fetches it).
  public static let responseBufferValid = NFCISO15693ResponseFlag(rawValue: 0x02)
  /// 04h: the last answer of a multi-step exchange (an authentication).
  public static let finalResponse = NFCISO15693ResponseFlag(rawValue: 0x04)
  /// 08h: the answer is in the extended protocol format.
  public static let protocolExtension = NFCISO15693ResponseFlag(rawValue: 0x08)
  /// 10h: the first bit of a block security status the command defines.
  public static let blockSecurityStatusBit5 = NFCISO15693ResponseFlag(rawValue: 0x10)
  /// 20h: the second bit of a block security status the command defines.
  public static let blockSecurityStatusBit6 = NFCISO15693ResponseFlag(rawValue: 0x20)
  /// 40h: the tag needs more time than the frame's timeout (it answers later).
  public static let waitTimeExtension = NFCISO15693ResponseFlag(rawValue: 0x40)
}
#endif
