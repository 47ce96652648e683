/// The native command codes of the 424 DNA this module builds (NT4H2421Gx datasheet §10),
/// and the plain parts of their frames: headers, and answers that need no key to parse.
///
/// A command is sent as `90 Cmd 00 00 Lc CmdHeader CmdData 00` (ISO/IEC 7816-4 wrapping, §10.2);
/// with a session, ``SecureMessagingSession/command(_:header:data:mode:)`` adds the MAC and
/// encrypts. Without one, ``plainCommand(_:header:data:)`` frames it.
public enum NativeCommand {
  /// AuthenticateEV2First.
  public static let authenticateEV2First: UInt8 = 0x71
  /// AuthenticateEV2NonFirst.
  public static let authenticateEV2NonFirst: UInt8 = 0x77
  /// GetVersion.
  public static let getVersion: UInt8 = 0x60
  /// The next frame of a chained answer (the tag answered `91 AF`).
  public static let additionalFrame: UInt8 = 0xAF
  /// GetFileSettings.
  public static let getFileSettings: UInt8 = 0xF5
  /// ChangeFileSettings.
  public static let changeFileSettings: UInt8 = 0x5F
  /// ReadData.
  public static let readData: UInt8 = 0xAD
  /// WriteData.
  public static let writeData: UInt8 = 0x8D
  /// ChangeKey.
  public static let changeKey: UInt8 = 0xC4
  /// GetKeyVersion.
  public static let getKeyVersion: UInt8 = 0x64
  /// GetCardUID.
  public static let getCardUID: UInt8 = 0x51
  /// GetFileCounters.
  public static let getFileCounters: UInt8 = 0xF6
  /// Read_Sig.
  public static let readSignature: UInt8 = 0x3C

  /// The three files of the 424 DNA application (NT4H2421Gx datasheet §8.2.2).
  public static let capabilityContainerFile: UInt8 = 0x01, ndefFile: UInt8 = 0x02, proprietaryFile: UInt8 = 0x03

  /// A native command in CommMode.Plain outside a session: `90 Cmd 00 00 [Lc data] 00`.
  ///
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` when the data would not fit
  ///   a short APDU.
  public static func plainCommand(_ code: UInt8, header: [UInt8] = [], data: [UInt8] = []) throws(NTAG424Error) -> [UInt8] {
    let field = header + data
    guard field.count <= 255 else { throw .invalidLength(field: "command data field", expected: 255, actual: field.count) }
    return [0x90, code, 0x00, 0x00] + (field.isEmpty ? [] : [UInt8(field.count)] + field) + [0x00]
  }

  /// The CmdHeader of ReadData and WriteData: `FileNo || Offset || Length`, both 3 bytes least
  /// significant first (NT4H2421Gx datasheet §10.8.1, §10.8.2). Length 0 reads to the end of the file.
  ///
  /// - Throws: ``NTAG424Error/invalidParameter(_:)`` for a file number above 1Fh, or an offset or
  ///   length that does not fit 3 bytes.
  public static func dataHeader(file: UInt8, offset: Int, length: Int) throws(NTAG424Error) -> [UInt8] {
    guard file <= 0x1F else { throw .invalidParameter("file number \(file) is above 31") }
    return [file] + (try littleEndian24(offset, "offset")) + (try littleEndian24(length, "length"))
  }

  /// A ReadData answer's data: exactly `length` bytes when a length was asked for; with length 0
  /// (to the end of the file) any number up to a file's largest size, 256 bytes on the 424 DNA
  /// (NT4H2421Gx datasheet §10.8.1, §8.2.2).
  ///
  /// - Throws: ``NTAG424Error/malformedResponse(command:reason:)`` for any other length.
  public static func checkReadData(_ bytes: [UInt8], length: Int) throws(NTAG424Error) -> [UInt8] {
    if length > 0 { return try exactly(length, bytes, command: readData, field: "data") }
    guard bytes.count <= largestFileSize else {
      throw .malformedResponse(command: readData, reason: "data is \(bytes.count) byte(s), more than a file holds (\(largestFileSize))")
    }
    return bytes
  }

  /// The largest file of the 424 DNA application: the NDEF file, 256 bytes (NT4H2421Gx datasheet §8.2.2).
  public static let largestFileSize = 256

  /// The SDMReadCtr a GetFileCounters answer holds: 3 bytes least significant first, then 2
  /// reserved bytes (NT4H2421Gx datasheet §10.7.3).
  ///
  /// - Throws: ``NTAG424Error/malformedResponse(command:reason:)`` unless the answer is 5 bytes.
  public static func parseFileCounter(_ bytes: [UInt8]) throws(NTAG424Error) -> UInt32 {
    var reader = ByteReader(bytes, command: getFileCounters)
    let counter = try reader.uint24("SDMReadCtr")
    _ = try reader.bytes(2, "reserved")
    try reader.finish()
    return UInt32(counter)
  }

  /// The UID a GetCardUID answer holds, decrypted: 7 bytes (NT4H2421Gx datasheet §10.5.3).
  ///
  /// - Throws: ``NTAG424Error/malformedResponse(command:reason:)`` unless the answer is 7 bytes.
  public static func parseCardUID(_ bytes: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    try exactly(7, bytes, command: getCardUID, field: "UID")
  }

  /// The key version a GetKeyVersion answer holds: 1 byte (NT4H2421Gx datasheet §10.6.2).
  ///
  /// - Throws: ``NTAG424Error/malformedResponse(command:reason:)`` unless the answer is 1 byte.
  public static func parseKeyVersion(_ bytes: [UInt8]) throws(NTAG424Error) -> UInt8 {
    try exactly(1, bytes, command: getKeyVersion, field: "KeyVer")[0]
  }

  /// The originality signature a Read_Sig answer holds: 56 bytes, an ECDSA signature over the UID
  /// on the secp224r1 curve (NT4H2421Gx datasheet "Read_Sig" command; NXP AN12196 §7.2).
  ///
  /// This module returns the signature without checking it: swift-crypto has no P-224 curve, and
  /// elliptic-curve arithmetic is not written here. Check it against NXP's published originality
  /// key with a library that has secp224r1 (OpenSSL: `openssl dgst`/`EVP_PKEY_verify`).
  ///
  /// - Throws: ``NTAG424Error/malformedResponse(command:reason:)`` unless the answer is 56 bytes.
  public static func parseSignature(_ bytes: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    try exactly(56, bytes, command: readSignature, field: "signature")
  }

  private static func exactly(_ count: Int, _ bytes: [UInt8], command: UInt8, field: String) throws(NTAG424Error) -> [UInt8] {
    guard bytes.count == count else {
      throw .malformedResponse(command: command, reason: "\(field) is \(bytes.count) byte(s), expected \(count)")
    }
    return bytes
  }
}
