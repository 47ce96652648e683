/// The two status bytes SW1 SW2 that end every ISO 7816-4 response APDU.
///
/// Card answers (Type 4 tags) and reader answers (PC/SC Part 3 pseudo-APDUs, ACR122U
/// pseudo-APDUs, the `C0` status object of a transparent exchange session) all end with one.
/// Parse it here and compare with the named values, never with raw bytes:
///
/// ```swift
/// guard let response = ResponseAPDU(reply) else { throw .malformedResponse(reply) }
/// guard response.statusWord.isSuccess else { throw .status(response.statusWord) }
/// ```
///
/// An unknown status word round-trips unchanged (its ``meaning`` is "unknown status"), so a new
/// code never breaks a caller. ISO/IEC 7816-4 §5.1.3 (tables 5 and 6); PC/SC Part 3 §3.2.2.1.
public struct StatusWord: Hashable, Sendable, CustomStringConvertible, ExpressibleByIntegerLiteral {
  /// The first status byte: the category (`90` done, `61` more data, `6A` wrong parameters…).
  public let sw1: UInt8
  /// The second status byte: the detail within the category.
  public let sw2: UInt8

  /// A status word from its two bytes.
  public init(_ sw1: UInt8, _ sw2: UInt8) {
    self.sw1 = sw1
    self.sw2 = sw2
  }

  /// A status word from its 16-bit value, SW1 in the high byte (`0x6A82`).
  public init(_ value: UInt16) {
    self.init(UInt8(value >> 8), UInt8(value & 0xFF))
  }

  /// A status word written as a literal, SW1 in the high byte: `.status(0x6A82)`.
  public init(integerLiteral value: UInt16) {
    self.init(value)
  }

  /// The status word at the end of `response`, nil when it holds fewer than two bytes.
  ///
  /// - Parameter response: a complete response APDU (data, then SW1 SW2), as a reader returns it.
  public init?(trailerOf response: some Collection<UInt8>) {
    guard response.count >= 2 else { return nil }
    let trailer = Array(response.suffix(2))
    guard trailer.count == 2 else { return nil }
    self.init(trailer[0], trailer[1])
  }

  /// SW1 SW2 as one value, SW1 in the high byte.
  public var value: UInt16 { UInt16(sw1) << 8 | UInt16(sw2) }

  /// The two bytes in wire order.
  public var bytes: [UInt8] { [sw1, sw2] }

  /// True for `90 00` alone (normal processing, no further qualification).
  ///
  /// `61 xx` is normal processing too, but the data is not all there yet: see ``moreDataLength``.
  public var isSuccess: Bool { self == .success }

  /// True when SW1 is one ISO/IEC 7816-4 §5.1.3 allows (`61`–`6F`, `90`–`9F`): an answer that
  /// ends with anything else is not a response APDU at all (garbled on its way back).
  public var isWellFormed: Bool { (0x61...0x6F).contains(sw1) || (0x90...0x9F).contains(sw1) }

  /// For `61 xx`: how many more bytes GET RESPONSE would return (`00` means 256 or more); nil otherwise.
  public var moreDataLength: Int? { sw1 == 0x61 ? (sw2 == 0 ? 256 : Int(sw2)) : nil }

  /// For `6C xx`: the Le the card wants (`00` means 256); nil otherwise.
  public var exactLength: Int? { sw1 == 0x6C ? (sw2 == 0 ? 256 : Int(sw2)) : nil }

  /// For `63 Cx`: the counter x (typically the verification tries left); nil otherwise.
  public var counter: Int? { sw1 == 0x63 && sw2 & 0xF0 == 0xC0 ? Int(sw2 & 0x0F) : nil }

  /// Lowercase hex, four digits: "6a82".
  public var description: String { hexString([sw1, sw2]) }

  /// A short phrase for people ("file or application not found"), or "unknown status".
  public var meaning: String { knownMeaning ?? "unknown status" }

  /// True when ``meaning`` names this status word (it is not "unknown status").
  public var isKnown: Bool { knownMeaning != nil }

  private var knownMeaning: String? {
    if let n = moreDataLength { return "\(n == 256 ? "256 or more" : String(n)) more bytes available" }
    if let n = exactLength { return "wrong Le: \(n) bytes available" }
    if let n = counter { return "verification failed, counter \(n)" }
    switch value {
    case 0x9000: return "success"
    case 0x6281: return "part of the returned data may be corrupted"
    case 0x6282: return "end of file reached before Le bytes"
    case 0x6300: return "no information given"
    case 0x6400: return "execution error"
    case 0x6401: return "no response from the card"
    case 0x6581: return "memory failure"
    case 0x6700: return "wrong length"
    case 0x6800: return "function in CLA not supported"
    case 0x6981: return "command incompatible with the file structure"
    case 0x6982: return "security status not satisfied"
    case 0x6983: return "authentication method blocked"
    case 0x6985: return "conditions of use not satisfied"
    case 0x6986: return "command not allowed"
    case 0x6A80: return "incorrect data"
    case 0x6A81: return "function not supported"
    case 0x6A82: return "file or application not found"
    case 0x6A86: return "incorrect P1 P2"
    case 0x6B00: return "wrong parameters P1 P2"
    case 0x6D00: return "instruction not supported"
    case 0x6E00: return "class not supported"
    case 0x6F00: return "no precise diagnosis"
    default: return nil
    }
  }
}

extension StatusWord {
  /// `90 00`: normal processing. ISO/IEC 7816-4 table 5.
  public static let success = StatusWord(0x90, 0x00)
  /// `62 81`: part of the returned data may be corrupted. ISO/IEC 7816-4; PC/SC Part 3.
  public static let dataMayBeCorrupted = StatusWord(0x62, 0x81)
  /// `62 82`: end of file reached before reading Le bytes. ISO/IEC 7816-4; PC/SC Part 3 READ BINARY.
  public static let endOfFileReached = StatusWord(0x62, 0x82)
  /// `63 00`: no information given (an ACR122U's "operation failed"). ISO/IEC 7816-4; PC/SC Part 3.
  public static let noInformation = StatusWord(0x63, 0x00)
  /// `64 00`: execution error, memory unchanged. ISO/IEC 7816-4; PC/SC Part 3.
  public static let executionError = StatusWord(0x64, 0x00)
  /// `64 01`: the card did not answer before the reader's timer ran out. PC/SC Part 3 §3.2.2.1
  /// (transparent exchange `C0` status).
  public static let noResponse = StatusWord(0x64, 0x01)
  /// `65 81`: memory failure. ISO/IEC 7816-4 table 6.
  public static let memoryFailure = StatusWord(0x65, 0x81)
  /// `67 00`: wrong length (Lc or Le). ISO/IEC 7816-4 table 6; PC/SC Part 3.
  public static let wrongLength = StatusWord(0x67, 0x00)
  /// `68 00`: functions in CLA not supported. ISO/IEC 7816-4 table 6; PC/SC Part 3.
  public static let claFunctionNotSupported = StatusWord(0x68, 0x00)
  /// `69 81`: command incompatible with the file structure. ISO/IEC 7816-4; PC/SC Part 3.
  public static let commandIncompatible = StatusWord(0x69, 0x81)
  /// `69 82`: security status not satisfied (a password or key must be verified first).
  /// ISO/IEC 7816-4 table 6; PC/SC Part 3.
  public static let securityStatusNotSatisfied = StatusWord(0x69, 0x82)
  /// `69 83`: authentication method blocked. ISO/IEC 7816-4 table 6.
  public static let authenticationMethodBlocked = StatusWord(0x69, 0x83)
  /// `69 85`: conditions of use not satisfied. ISO/IEC 7816-4 table 6.
  public static let conditionsOfUseNotSatisfied = StatusWord(0x69, 0x85)
  /// `69 86`: command not allowed (no current EF). ISO/IEC 7816-4 table 6.
  public static let commandNotAllowed = StatusWord(0x69, 0x86)
  /// `6A 80`: incorrect parameters in the command data field. ISO/IEC 7816-4 table 6.
  public static let incorrectData = StatusWord(0x6A, 0x80)
  /// `6A 81`: function not supported. ISO/IEC 7816-4 table 6; PC/SC Part 3 (a pseudo-APDU or a
  /// transparent exchange object the reader does not know).
  public static let functionNotSupported = StatusWord(0x6A, 0x81)
  /// `6A 82`: file or application not found. ISO/IEC 7816-4 table 6.
  public static let fileNotFound = StatusWord(0x6A, 0x82)
  /// `6A 86`: incorrect parameters P1 P2. ISO/IEC 7816-4 table 6.
  public static let incorrectP1P2 = StatusWord(0x6A, 0x86)
  /// `6B 00`: wrong parameters P1 P2. ISO/IEC 7816-4 table 6; PC/SC Part 3.
  public static let wrongParameters = StatusWord(0x6B, 0x00)
  /// `6D 00`: instruction code not supported or invalid. ISO/IEC 7816-4 table 6.
  public static let instructionNotSupported = StatusWord(0x6D, 0x00)
  /// `6E 00`: class not supported. ISO/IEC 7816-4 table 6.
  public static let classNotSupported = StatusWord(0x6E, 0x00)
  /// `6F 00`: no precise diagnosis. ISO/IEC 7816-4 table 6; PC/SC Part 3.
  public static let noPreciseDiagnosis = StatusWord(0x6F, 0x00)
}

/// A response APDU split into its data and its status word.
///
/// ISO/IEC 7816-4 §5.1: the body (possibly empty) followed by SW1 SW2.
public struct ResponseAPDU: Hashable, Sendable {
  /// The response data, without SW1 SW2.
  public var data: [UInt8]
  /// The trailing SW1 SW2.
  public var statusWord: StatusWord

  /// Splits `bytes` into data and status word; nil when it holds fewer than two bytes.
  ///
  /// Safe on any input: nothing is indexed before the count is checked.
  public init?(_ bytes: some Collection<UInt8>) {
    guard let statusWord = StatusWord(trailerOf: bytes) else { return nil }
    self.data = Array(bytes.dropLast(2))
    self.statusWord = statusWord
  }

  /// A response from its parts.
  public init(data: [UInt8], statusWord: StatusWord) {
    self.data = data
    self.statusWord = statusWord
  }
}
