import Hex

/// Why a URL is not a SUN message this module can verify. No case holds key material; the values
/// named are the URL's own, which anyone who tapped the tag has seen.
public enum SUNURLError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The URL has no query (`?…`) to take the parameters from.
  case noQuery
  /// A parameter the form needs is not in the query.
  case missingParameter(String)
  /// A parameter appears more than once, so which one the tag wrote is unknown.
  case duplicateParameter(String)
  /// A parameter's value is not hexadecimal digits.
  case notHex(parameter: String)
  /// A parameter's value has the wrong number of hex digits.
  case wrongLength(parameter: String, expectedDigits: Int, actualDigits: Int)
  /// The SDMMAC comes before the file data, so the MAC cannot cover it (NT4H2421Gx datasheet §9.3.7).
  case macBeforeFileData
  /// An offset of a layout points outside the URL or before the field it must follow.
  case offsetOutOfRange(field: String, offset: Int, urlLength: Int)
  /// The PICCData parameter has 48 hex digits: a tag in LRP mode wrote it (PICCRand, 8 bytes,
  /// then 16 bytes encrypted with LRP: NT4H2421Gx datasheet §9.3.4.2), and this module verifies
  /// AES-mode SUN messages only (32 digits, §9.3.4.1).
  case lrpMode(parameter: String)

  /// One line for people.
  public var description: String {
    switch self {
    case .noQuery: return "the URL has no query (?…) holding the SUN parameters"
    case .missingParameter(let name): return "the URL has no '\(name)' parameter"
    case .duplicateParameter(let name): return "the URL has the '\(name)' parameter more than once"
    case .notHex(let name): return "the '\(name)' parameter is not hexadecimal"
    case .wrongLength(let name, let expected, let actual):
      return "the '\(name)' parameter has \(actual) hex digits, expected \(expected)"
    case .macBeforeFileData: return "the MAC parameter comes before the file data it must cover"
    case .offsetOutOfRange(let field, let offset, let length):
      return "\(field) offset \(offset) does not fit a URL of \(length) bytes"
    case .lrpMode(let name):
      return "an LRP-mode SUN (48-hex-digit PICCData in '\(name)'), not supported: only AES-mode SUN messages are verified"
    }
  }
}

/// Where a tag put each SUN field inside the URL, as offsets into the URL's bytes (UTF-8, as
/// received), for URLs whose fields are not named query parameters.
///
/// They are the ChangeFileSettings offsets (NT4H2421Gx datasheet §10.7.1) less the offset of the
/// URL's first byte in the NDEF file.
public struct SUNURLLayout: Hashable, Sendable {
  /// Where the 32 hex digits of encrypted PICCData start (PICCDataOffset).
  public var piccDataOffset: Int
  /// Where the MACed bytes start (SDMMACInputOffset).
  public var macInputOffset: Int
  /// Where the 16 hex digits of the SDMMAC start (SDMMACOffset); the MAC covers
  /// `macInputOffset ..< macOffset`.
  public var macOffset: Int
  /// Where SDMENCFileData starts and how many hex digits it has (SDMENCOffset and half of
  /// SDMENCLength, datasheet §9.3.6), nil when the URL carries none.
  public var fileData: (offset: Int, digits: Int)?

  /// A layout from its offsets.
  public init(piccDataOffset: Int, macInputOffset: Int, macOffset: Int, fileData: (offset: Int, digits: Int)? = nil) {
    self.piccDataOffset = piccDataOffset
    self.macInputOffset = macInputOffset
    self.macOffset = macOffset
    self.fileData = fileData
  }

  /// Two layouts are equal when every offset is.
  public static func == (a: Self, b: Self) -> Bool {
    a.piccDataOffset == b.piccDataOffset && a.macInputOffset == b.macInputOffset && a.macOffset == b.macOffset
      && a.fileData?.offset == b.fileData?.offset && a.fileData?.digits == b.fileData?.digits
  }

  /// Hashes every offset.
  public func hash(into hasher: inout Hasher) {
    hasher.combine(piccDataOffset); hasher.combine(macInputOffset); hasher.combine(macOffset)
    hasher.combine(fileData?.offset); hasher.combine(fileData?.digits)
  }
}

/// The fields of a SUN URL, ready for ``SecureDynamicMessaging/verify(encryptedPICCData:sdmMAC:macInput:encryptedFileData:metaReadKey:fileReadKey:)``.
///
/// Two forms: named query parameters (`?p=…&c=…`, with `&enc=…` for SDMENCFileData), or a
/// ``SUNURLLayout`` of offsets.
public struct SUNURL: Hashable, Sendable {
  /// The 16 bytes of encrypted PICCData.
  public let encryptedPICCData: [UInt8]
  /// The 8-byte SDMMAC.
  public let sdmMAC: [UInt8]
  /// SDMENCFileData's ciphertext, nil when the URL carries none.
  public let encryptedFileData: [UInt8]?
  /// The bytes the tag MACed (the URL's own ASCII).
  public let macInput: [UInt8]

  /// Reads the fields from named query parameters.
  ///
  /// The URL is taken without the whitespace around it (a pasted URL, a line's newline), and each
  /// parameter's name and value percent-decoded (RFC 3986 §2.1) before the hex digits are read.
  /// The MAC input is empty (SDMMACInputOffset = SDMMACOffset) without file data; with file data it
  /// runs from the first digit of the file data to the first digit of the MAC, as in NXP AN12196's
  /// example (`enc=…&cmac=`), decoded likewise (``SUNTemplateRule`` keeps `%` out of that span of
  /// a template). Other MAC inputs need ``init(parsing:layout:)``.
  ///
  /// - Parameters:
  ///   - url: the URL as the tag produced it.
  ///   - piccDataParameter: the name of the encrypted PICCData's parameter.
  ///   - macParameter: the name of the SDMMAC's parameter.
  ///   - fileDataParameter: the name of SDMENCFileData's parameter, used when present.
  /// - Throws: ``SUNURLError``.
  public init(parsing url: String, piccDataParameter: String = "p", macParameter: String = "c",
              fileDataParameter: String = "enc") throws(SUNURLError) {
    let text = Self.trimmed(Array(url.utf8))
    guard let question = text.firstIndex(of: UInt8(ascii: "?")) else { throw .noQuery }
    let end = text.firstIndex(of: UInt8(ascii: "#")) ?? text.count
    var values: [String: Range<Int>] = [:]
    var start = question + 1
    while start <= end {
      let stop = text[start..<end].firstIndex(of: UInt8(ascii: "&")) ?? end
      if let equals = text[start..<stop].firstIndex(of: UInt8(ascii: "=")) {
        let raw = text[start..<equals]
        let name = String(decoding: percentDecoded(raw) ?? Array(raw), as: UTF8.self)
        guard values[name] == nil else { throw .duplicateParameter(name) }
        values[name] = (equals + 1)..<stop
      }
      start = stop + 1
    }
    func value(_ name: String) throws(SUNURLError) -> Range<Int> {
      guard let range = values[name] else { throw .missingParameter(name) }
      return range
    }
    func decoded(_ range: Range<Int>, _ name: String) throws(SUNURLError) -> ArraySlice<UInt8> {
      guard let bytes = percentDecoded(text[range]) else { throw .notHex(parameter: name) }
      return bytes[...]
    }
    let picc = try decoded(try value(piccDataParameter), piccDataParameter)
    let macRange = try value(macParameter)
    if picc.count == Self.lrpPICCDataDigits, parseHex(String(decoding: picc, as: UTF8.self)) != nil {
      throw .lrpMode(parameter: piccDataParameter)
    }
    encryptedPICCData = try Self.hex(picc, parameter: piccDataParameter, digits: 32)
    sdmMAC = try Self.hex(try decoded(macRange, macParameter), parameter: macParameter, digits: 16)
    if let fileRange = values[fileDataParameter] {
      guard fileRange.upperBound <= macRange.lowerBound else { throw .macBeforeFileData }
      let file = try decoded(fileRange, fileDataParameter)
      let digits = file.count
      guard digits > 0, digits % 32 == 0 else {
        throw .wrongLength(parameter: fileDataParameter, expectedDigits: max(32, (digits + 31) / 32 * 32), actualDigits: digits)
      }
      encryptedFileData = try Self.hex(file, parameter: fileDataParameter, digits: digits)
      let span = text[fileRange.lowerBound..<macRange.lowerBound]
      macInput = percentDecoded(span) ?? Array(span)
    } else {
      encryptedFileData = nil
      macInput = []
    }
  }

  /// Reads the fields at the offsets a layout gives.
  ///
  /// - Throws: ``SUNURLError/offsetOutOfRange(field:offset:urlLength:)`` for an offset past the
  ///   URL or a MAC input that starts after the MAC; ``SUNURLError/notHex(parameter:)``.
  public init(parsing url: String, layout: SUNURLLayout) throws(SUNURLError) {
    let text = Self.trimmed(Array(url.utf8))
    func field(_ name: String, at offset: Int, digits: Int) throws(SUNURLError) -> [UInt8] {
      guard offset >= 0, digits <= text.count, offset <= text.count - digits else {
        throw .offsetOutOfRange(field: name, offset: offset, urlLength: text.count)
      }
      return try Self.hex(text[offset..<(offset + digits)], parameter: name, digits: digits)
    }
    encryptedPICCData = try field("PICCData", at: layout.piccDataOffset, digits: 32)
    sdmMAC = try field("SDMMAC", at: layout.macOffset, digits: 16)
    guard layout.macInputOffset >= 0, layout.macInputOffset <= layout.macOffset else {
      throw .offsetOutOfRange(field: "SDMMACInput", offset: layout.macInputOffset, urlLength: text.count)
    }
    macInput = Array(text[layout.macInputOffset..<layout.macOffset])
    if let file = layout.fileData {
      guard file.digits > 0, file.digits % 32 == 0 else {
        throw .wrongLength(parameter: "SDMENCFileData", expectedDigits: max(32, (file.digits + 31) / 32 * 32), actualDigits: file.digits)
      }
      encryptedFileData = try field("SDMENCFileData", at: file.offset, digits: file.digits)
    } else {
      encryptedFileData = nil
    }
  }

  /// LRP mode's PICCData in hex digits: PICCRand (8 bytes) and the encrypted 16, ASCII encoded
  /// (NT4H2421Gx datasheet §9.3.4.2: "The required placeholder length in the NDEF message is 48 bytes").
  static let lrpPICCDataDigits = 48

  /// `bytes` without the ASCII whitespace (space, tab, CR, LF, FF, VT) before and after.
  static func trimmed(_ bytes: [UInt8]) -> [UInt8] {
    func space(_ byte: UInt8) -> Bool { byte == 0x20 || (0x09...0x0D).contains(byte) }
    guard let first = bytes.firstIndex(where: { !space($0) }), let last = bytes.lastIndex(where: { !space($0) }) else { return [] }
    return Array(bytes[first...last])
  }

  private static func hex(_ digits: ArraySlice<UInt8>, parameter: String, digits count: Int) throws(SUNURLError) -> [UInt8] {
    guard digits.count == count else {
      throw .wrongLength(parameter: parameter, expectedDigits: count, actualDigits: digits.count)
    }
    guard let bytes = parseHex(String(decoding: digits, as: UTF8.self)) else { throw .notHex(parameter: parameter) }
    return bytes
  }
}
