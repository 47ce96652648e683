import Testing
@testable import NTAG424

/// AES-128 key diversification against NXP AN10922 §2.2.1's example.
@Suite struct KeyDiversificationTests {
  @Test func reproducesAN10922() throws {
    let diversified = try KeyDiversification.aes128(
      master: key("00112233445566778899AABBCCDDEEFF"),
      input: bytes("04782E21801D80 3042F5 4E585020416275"))   // UID, AID, system identifier
    #expect(diversified.bytes == bytes("A8DD63A3B89D54B37CA802473FDA9175"))
  }

  @Test func refusesInputsItCannotDiversifyExactly() {
    #expect(throws: NTAG424Error.invalidLength(field: "AN10922 diversification input", expected: 16, actual: 7)) {
      try KeyDiversification.aes128(master: .factory, input: bytes("04782E21801D80"))
    }
    #expect(throws: NTAG424Error.invalidLength(field: "AN10922 diversification input", expected: 31, actual: 32)) {
      try KeyDiversification.aes128(master: .factory, input: [UInt8](repeating: 1, count: 32))
    }
  }
}
