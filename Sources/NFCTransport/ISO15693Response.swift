/// One ISO/IEC 15693-3 response as a reader hands it over (SOF, CRC and EOF removed): the
/// response flags byte, then the error code when the error flag is set, else the command's answer.
///
/// Every Type 5 answer (a tag platform's command layer, a Part 3 reader's transparent exchange,
/// a tag reader session's requests, `send`) is read through this one type, so all agree on what a
/// refusal is. Parse it here and compare with the named codes, never with raw bytes:
///
/// ```swift
/// guard let response = ISO15693Response(reply) else { throw .malformedResponse(reply) }
/// if let code = response.errorCode { throw .nak(code.rawValue) }
/// return response.payload
/// ```
///
/// **An error flag without its code byte is malformed.** ISO/IEC 15693-3:2009 §7.4.2: when the
/// error flag is set, the error code field *shall* be included. A frame that sets the flag and
/// ends there broke off on its way back (or the tag is not ISO 15693), so ``init(_:)`` returns nil
/// for it, as for an empty frame: it is not read as `0F` ("no information") or as any other code.
///
/// Source: ISO/IEC 15693-3:2009 §7.4 (response format), §7.4.1 (response flags, table 6),
/// §7.4.2 (error codes, table 7).
public struct ISO15693Response: Hashable, Sendable {
  /// Response flag 01: the tag refused the command, and the next byte is its error code.
  /// ISO/IEC 15693-3:2009 table 6.
  public static let errorFlag: UInt8 = 0x01
  /// Response flag 08: the protocol format is extended. ISO/IEC 15693-3:2009 table 6.
  public static let extensionFlag: UInt8 = 0x08

  /// The response flags byte, as the tag sent it.
  public let flags: UInt8
  /// The tag's error code when ``flags`` carries the error flag; nil for an answer.
  public let errorCode: ISO15693ErrorCode?
  /// What follows the flags (an answer's data), or what follows the error code (nothing in a
  /// well-formed error response). Possibly empty: WRITE SINGLE BLOCK answers the flags alone.
  public let payload: [UInt8]

  /// Splits `bytes` into flags, error code and payload; nil when `bytes` is empty or sets the
  /// error flag without the error code byte that must follow it.
  ///
  /// Safe on any input: nothing is indexed before the count is checked.
  /// - Parameter bytes: the response, flags first, without CRC.
  public init?(_ bytes: some Collection<UInt8>) {
    var rest = bytes[...]
    guard let flags = rest.popFirst() else { return nil }
    self.flags = flags
    if flags & Self.errorFlag != 0 {
      guard let code = rest.popFirst() else { return nil }
      errorCode = ISO15693ErrorCode(code)
    } else {
      errorCode = nil
    }
    payload = Array(rest)
  }

  /// A response from its parts; the error flag is set in ``flags`` when `errorCode` is given.
  public init(flags: UInt8 = 0x00, errorCode: ISO15693ErrorCode? = nil, payload: [UInt8] = []) {
    self.flags = errorCode == nil ? flags & ~Self.errorFlag : flags | Self.errorFlag
    self.errorCode = errorCode
    self.payload = payload
  }

  /// True when the tag refused the command (the error flag is set).
  public var isError: Bool { errorCode != nil }

  /// True when the extension flag is set (ISO/IEC 15693-3:2009 table 6).
  public var hasExtension: Bool { flags & Self.extensionFlag != 0 }

  /// The response in wire order: flags, the error code when there is one, the payload.
  public var bytes: [UInt8] { [flags] + (errorCode.map { [$0.rawValue] } ?? []) + payload }
}

/// The error code an ISO 15693 tag sends after a response flags byte with the error flag set.
///
/// An unknown code round-trips unchanged (its ``meaning`` is "RFU error code"), so a new code
/// never breaks a caller. ISO/IEC 15693-3:2009 §7.4.2, table 7.
public struct ISO15693ErrorCode: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
  /// The code byte.
  public let rawValue: UInt8

  /// An error code from its byte.
  public init(_ rawValue: UInt8) {
    self.rawValue = rawValue
  }

  /// An error code written as a literal: `let code: ISO15693ErrorCode = 0x12`.
  public init(integerLiteral value: UInt8) {
    self.init(value)
  }

  /// Two hex digits and `h`, as the standard writes codes: "12h".
  public var description: String { hexString([rawValue]) + "h" }

  /// True for A0h–DFh: a code the tag's manufacturer defines (table 7: "custom command error codes").
  public var isCustom: Bool { (0xA0...0xDF).contains(rawValue) }

  /// A short phrase for people ("the block is locked"), "custom error code" for A0h–DFh, else
  /// "RFU error code".
  public var meaning: String { knownMeaning ?? (isCustom ? "custom error code" : "RFU error code") }

  /// True when ``meaning`` names this code (one of table 7's defined codes, not custom or RFU).
  public var isKnown: Bool { knownMeaning != nil }

  private var knownMeaning: String? {
    switch rawValue {
    case 0x01: return "command not supported"
    case 0x02: return "command not recognised (format error)"
    case 0x03: return "option not supported"
    case 0x0F: return "error with no information given"
    case 0x10: return "block not available"
    case 0x11: return "block already locked"
    case 0x12: return "block locked, its content cannot be changed"
    case 0x13: return "block not successfully programmed"
    case 0x14: return "block not successfully locked"
    default: return nil
    }
  }
}

extension ISO15693ErrorCode {
  /// `01h`: the command is not supported (the request code is not recognised). Table 7.
  public static let commandNotSupported = ISO15693ErrorCode(0x01)
  /// `02h`: the command is not recognised, for example a format error. Table 7.
  public static let commandNotRecognised = ISO15693ErrorCode(0x02)
  /// `03h`: the command option is not supported. Table 7.
  public static let optionNotSupported = ISO15693ErrorCode(0x03)
  /// `0Fh`: an error with no information given, or the specific code is not supported. Table 7.
  public static let noInformation = ISO15693ErrorCode(0x0F)
  /// `10h`: the specified block is not available (does not exist). Table 7.
  public static let blockNotAvailable = ISO15693ErrorCode(0x10)
  /// `11h`: the specified block is already locked, so it cannot be locked again. Table 7.
  public static let blockAlreadyLocked = ISO15693ErrorCode(0x11)
  /// `12h`: the specified block is locked and its content cannot be changed. Table 7.
  public static let blockLocked = ISO15693ErrorCode(0x12)
  /// `13h`: the specified block was not successfully programmed. Table 7.
  public static let blockNotProgrammed = ISO15693ErrorCode(0x13)
  /// `14h`: the specified block was not successfully locked. Table 7.
  public static let blockNotLocked = ISO15693ErrorCode(0x14)
}
