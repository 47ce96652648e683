/// The byte layouts of EV2 secure messaging, without cryptography: NT4H2421Gx datasheet §9.1.4
/// (IVs), §9.1.7 (session vectors), §9.1.9 (MAC inputs and truncation), §9.1.10 (padding); the
/// DESFire EV2/EV3 and DESFire Light use the same (NXP AN12343, MF2DLHX0 §9).
public enum EV2Frames {
  /// The AES block length.
  public static let blockLength = 16
  /// MACt's length.
  public static let macLength = 8
  /// The zero IV of the authentication cryptograms (§9.1.5).
  public static let zeroIV = [UInt8](repeating: 0, count: 16)

  /// CmdCtr, least significant byte first.
  public static func counterBytes(_ counter: UInt16) -> [UInt8] { [UInt8(counter & 0xFF), UInt8(counter >> 8)] }

  /// A command's MAC input: `Cmd || CmdCtr || TI || CmdHeader || CmdData` (§9.1.9).
  public static func commandMACInput(code: UInt8, counter: UInt16, transactionIdentifier: [UInt8],
                                     header: [UInt8], data: [UInt8]) -> [UInt8] {
    [code] + counterBytes(counter) + transactionIdentifier + header + data
  }

  /// An answer's MAC input: `RC || CmdCtr+1 || TI || RespData`, RC being 00h (§9.1.9).
  public static func macInput(transactionIdentifier: [UInt8], counter: UInt16, data: [UInt8]) -> [UInt8] {
    [0x00] + counterBytes(counter) + transactionIdentifier + data
  }

  /// The input of a Full-mode IV: `label || TI || CmdCtr || 00×8`, label `A5 5A` for commands and
  /// `5A A5` for answers (§9.1.4).
  public static func ivInput(label: (UInt8, UInt8), transactionIdentifier: [UInt8], counter: UInt16) -> [UInt8] {
    [label.0, label.1] + transactionIdentifier + counterBytes(counter) + [UInt8](repeating: 0, count: 8)
  }

  /// The session vector SV1 (label A55Ah) or SV2 (5AA5h) of §9.1.7:
  /// `label || 00 01 00 80 || RndA[15..14] || (RndA[13..8] XOR RndB[15..10]) || RndB[9..0] || RndA[7..0]`,
  /// the datasheet counting bytes from the least significant (RndA[15] is the first byte sent).
  /// Both challenges are 16 bytes (checked by the callers).
  public static func sessionVector(label: (UInt8, UInt8), rndA: [UInt8], rndB: [UInt8]) -> [UInt8] {
    var sv: [UInt8] = [label.0, label.1, 0x00, 0x01, 0x00, 0x80]
    sv += rndA[0..<2]
    sv += (0..<6).map { rndA[2 + $0] ^ rndB[$0] }
    sv += rndB[6..<16]
    sv += rndA[8..<16]
    return sv
  }

  /// MACt: the 8 bytes of a 16-byte CMAC at odd indices (indices 1, 3, …, 15 from 0), §9.1.9.
  public static func truncate(_ fullMAC: [UInt8]) -> [UInt8] {
    stride(from: 1, to: fullMAC.count, by: 2).map { fullMAC[$0] }
  }

  /// A challenge rotated left by one byte (RndA', RndB').
  public static func rotateLeft(_ bytes: [UInt8]) -> [UInt8] {
    guard let first = bytes.first else { return bytes }
    return Array(bytes.dropFirst()) + [first]
  }

  /// ISO/IEC 9797-1 padding method 2: `80`, then zeros to a whole block; always at least one byte.
  public static func pad(_ data: [UInt8]) -> [UInt8] {
    var out = data
    out.reserveCapacity((data.count / blockLength + 1) * blockLength)
    out.append(0x80)
    while out.count % blockLength != 0 { out.append(0) }
    return out
  }

  /// Removes padding method 2 from the last block.
  ///
  /// - Throws: ``EV2Error/invalidPadding`` when the last block does not end in `80 00…`.
  public static func unpad(_ data: [UInt8]) throws(EV2Error) -> [UInt8] {
    var end = data.count
    while end > 0, data[end - 1] == 0, data.count - end < blockLength { end -= 1 }
    guard end > 0, data[end - 1] == 0x80, data.count - end < blockLength else { throw .invalidPadding }
    return Array(data[..<(end - 1)])
  }

  /// Constant-time comparison; false when the lengths differ.
  public static func macsMatch(_ a: [UInt8], _ b: ArraySlice<UInt8>) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    var j = b.startIndex
    for x in a {
      difference |= x ^ b[j]
      j += 1
    }
    return difference == 0
  }

  /// The data before a `91 00` status.
  ///
  /// - Throws: ``EV2Error/status(command:sw1:sw2:)`` for another status,
  ///   ``EV2Error/invalidLength(field:expected:actual:)`` for fewer than two bytes.
  public static func body(of response: [UInt8], command: UInt8) throws(EV2Error) -> [UInt8] {
    guard response.count >= 2 else { throw .invalidLength(field: "response APDU", expected: 2, actual: response.count) }
    let sw1 = response[response.count - 2], sw2 = response[response.count - 1]
    guard sw1 == 0x91, sw2 == 0x00 else { throw .status(command: command, sw1: sw1, sw2: sw2) }
    return Array(response[..<(response.count - 2)])
  }

  /// The wrapped native command `90 Cmd 00 00 [Lc field] 00` (ISO/IEC 7816-4 framing of native
  /// commands, NT4H2421Gx datasheet §8.4).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` when the field does not fit a short APDU.
  public static func wrapped(_ code: UInt8, field: [UInt8]) throws(EV2Error) -> [UInt8] {
    guard field.count <= 255 else { throw .invalidLength(field: "command data field", expected: 255, actual: field.count) }
    return [0x90, code, 0x00, 0x00] + (field.isEmpty ? [] : [UInt8(field.count)] + field) + [0x00]
  }
}
