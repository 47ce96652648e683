import DESFire
import Testing

/// AN10922's 2TDEA and 3TDEA key diversification on the published examples (NXP AN10922 §2.3,
/// §2.4, as Proxmark3's client quotes them), and its short-input padding against a CMAC whose
/// subkey the test computes itself.
struct DESFireKeyDiversificationTests {
  static let master16: [UInt8] = [0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF]
  /// UID 04782E21801D80, AID 3042F5, system identifier "NXP Abu" (AES's M; the TDEA examples take a prefix).
  static let input: [UInt8] = [0x04, 0x78, 0x2E, 0x21, 0x80, 0x1D, 0x80, 0x30, 0x42, 0xF5,
                               0x4E, 0x58, 0x50, 0x20, 0x41, 0x62, 0x75]

  @Test func twoKeyTripleDESMatchesAN10922() throws {
    // M: the example's first 15 bytes (UID, AID, "NXP A").
    let key = try DESFireKeyDiversification.twoKeyTripleDES(master: Self.master16, input: Array(Self.input.prefix(15)))
    #expect(key == [0x16, 0xF8, 0x59, 0x7C, 0x9E, 0x89, 0x10, 0xC8, 0x6B, 0x96, 0x48, 0xD0, 0x06, 0x10, 0x7D, 0xD7])
  }

  @Test func threeKeyTripleDESMatchesAN10922() throws {
    let master = Self.master16 + [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08]
    // M: the example's first 13 bytes (UID, AID, "NXP"): under two blocks with the constant.
    let key = try DESFireKeyDiversification.threeKeyTripleDES(master: master, input: Array(Self.input.prefix(13)))
    #expect(key == [0x2F, 0x0D, 0xD0, 0x36, 0x75, 0xD3, 0xFB, 0x9A, 0x57, 0x05, 0xAB, 0x0B,
                    0xDA, 0x91, 0xCA, 0x0B, 0x55, 0xB8, 0xE0, 0x7F, 0xCD, 0xBF, 0x10, 0xEC])
  }

  /// An input under two blocks: padded `80 00…` to 16 bytes, K2 on the second block.
  @Test(arguments: [1, 5, 7, 8, 14]) func aShortInputIsPaddedToTwoBlocks(length: Int) throws {
    let input = Array(Self.input.prefix(length))
    let key = try DESFireKeyDiversification.twoKeyTripleDES(master: Self.master16, input: input)
    let cipher = try DESFireCipher.tripleDES(Self.master16)
    let zero = [UInt8](repeating: 0, count: 8)
    func shifted(_ b: [UInt8]) -> [UInt8] {
      var out = (0..<8).map { i in b[i] << 1 | (i < 7 ? b[i + 1] >> 7 : 0) }
      if b[0] & 0x80 != 0 { out[7] ^= 0x1B }
      return out
    }
    let k2 = shifted(shifted(try cipher.encrypt(zero, iv: zero)))
    func reference(_ constant: UInt8) throws -> [UInt8] {
      var padded = [constant] + input + [0x80]
      padded += [UInt8](repeating: 0, count: 16 - padded.count)
      let last = (0..<8).map { padded[8 + $0] ^ k2[$0] }
      return Array(try cipher.encrypt(Array(padded.prefix(8)) + last, iv: zero).suffix(8))
    }
    #expect(key == (try reference(0x21)) + (try reference(0x22)), "M of \(length) bytes")
  }

  @Test func wrongLengthsAreRefused() {
    #expect(throws: DESFireKeyDiversification.Failure.inputLength(0)) {
      try DESFireKeyDiversification.twoKeyTripleDES(master: Self.master16, input: [])
    }
    #expect(throws: DESFireKeyDiversification.Failure.inputLength(32)) {
      try DESFireKeyDiversification.twoKeyTripleDES(master: Self.master16, input: [UInt8](repeating: 1, count: 32))
    }
    #expect(throws: DESFireKeyDiversification.Failure.masterKeyLength(16)) {
      try DESFireKeyDiversification.threeKeyTripleDES(master: Self.master16, input: Self.input)
    }
  }
}
