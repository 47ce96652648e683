import Testing
@testable import Provisioning

@Suite("Password derivation") struct PasswordDerivationTests {
  /// RFC 4231 test case 1: HMAC-SHA256(key 0b×20, "Hi There") = b0344c61 d8db3853…
  @Test func rfc4231Vector() throws {
    let secret = try ProvisioningSecret(bytes: [UInt8](repeating: 0x0B, count: 20))
    let password = derivePassword(secret: secret, uid: Array("Hi There".utf8))
    #expect(password.pwd == [0xB0, 0x34, 0x4C, 0x61])
    #expect(password.pack == [0xD8, 0xDB])
  }

  /// python3 -c 'import hmac,hashlib; print(hmac.new(b"0123456789abcdef-provisioning",
  ///   bytes.fromhex("04a1b2c3d4e5f6"), hashlib.sha256).hexdigest())' → 94aa82ea9fb1a355…
  @Test func aUIDVector() throws {
    let uid: [UInt8] = [0x04, 0xA1, 0xB2, 0xC3, 0xD4, 0xE5, 0xF6]
    let secret = try ProvisioningSecret(text: "0123456789abcdef-provisioning\r\n")
    #expect(secret.byteCount == 29)
    let password = derivePassword(secret: secret, uid: uid)
    #expect(password.pwd == [0x94, 0xAA, 0x82, 0xEA])
    #expect(password.pack == [0x9F, 0xB1])
    // Another UID, another password.
    #expect(derivePassword(secret: secret, uid: [0x04] + uid.dropFirst().map { $0 ^ 1 }).pwd != password.pwd)
  }

  @Test func secretLengths() {
    #expect(throws: ProvisioningSecretError.tooShort(7)) { try ProvisioningSecret(text: "hunter2\n") }
    #expect(throws: ProvisioningSecretError.tooLong(4097)) { try ProvisioningSecret(bytes: [UInt8](repeating: 1, count: 4097)) }
    #expect(ProvisioningSecretError.tooShort(7).description == "the provisioning secret is 7 bytes; at least 16 are needed")
  }

  @Test func noBytesInDescriptions() throws {
    let secret = try ProvisioningSecret(text: "0123456789abcdef-provisioning")
    var dumped = ""
    dump(secret, to: &dumped)
    for text in [String(describing: secret), String(reflecting: secret), dumped, "\(secret)"] {
      #expect(!text.contains("0123"))
      #expect(!text.contains("30313233"))
    }
    let password = derivePassword(secret: secret, uid: [4, 1, 2, 3, 4, 5, 6])
    var dumpedPassword = ""
    dump(password, to: &dumpedPassword)
    #expect(String(describing: password) == "DerivedPassword(hidden)")
    #expect(!dumpedPassword.contains(String(password.pwd[0])))
  }
}
