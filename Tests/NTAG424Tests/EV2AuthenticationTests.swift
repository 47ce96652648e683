import Testing
@testable import NTAG424

/// AuthenticateEV2First, host side, against NXP AN12196 rev 2.0 §5.6 (key 0) and §5.10 (key 3).
@Suite struct EV2AuthenticationTests {
  @Test func key0ReproducesAN12196() throws {
    #expect(try EV2Authentication.firstCommand(keyNumber: 0) == bytes("90 71 00 00 02 00 00 00"))
    let auth = try EV2Authentication(
      key: .factory, keyNumber: 0,
      encryptedRndB: bytes("A04C124213C186F22399D33AC2A30215"),          // R1, before 91 AF
      rndA: bytes("13C5DB8A5930439FC3DEF9A4C675360F"))
    #expect(auth.rndB == bytes("B9E2FC789B64BF237CCCAA20EC7E6E48"))        // D(K0, R1)
    #expect(try auth.secondCommand == bytes(
      "90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00"))
    #expect(EV2Authentication.sessionVector(label: (0xA5, 0x5A), rndA: auth.rndA, rndB: auth.rndB)
              == bytes("A55A0001008013C56268A548D8FBBF237CCCAA20EC7E6E48C3DEF9A4C675360F"))
    #expect(EV2Authentication.sessionVector(label: (0x5A, 0xA5), rndA: auth.rndA, rndB: auth.rndB)
              == bytes("5AA50001008013C56268A548D8FBBF237CCCAA20EC7E6E48C3DEF9A4C675360F"))
    let session = try auth.finish(response: bytes(
      "3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100"))
    #expect(session.transactionIdentifier == bytes("9D00C4DF"))
    #expect(session.capabilities == AuthenticationCapabilities(pdCap2: bytes("000000000000"), pcdCap2: bytes("000000000000")))
    #expect(session.keys.encryption.bytes == bytes("1309C877509E5A215007FF0ED19CA564"))   // SesAuthENCKey
    #expect(session.keys.mac.bytes == bytes("4C6626F5E72EA694202139295C7A7FC7"))          // SesAuthMACKey
    #expect(session.commandCounter == 0)
    #expect(session.keyNumber == 0)
  }

  @Test func key3ReproducesAN12196() throws {
    #expect(try EV2Authentication.firstCommand(keyNumber: 3) == bytes("9071000002030000"))
    let auth = try EV2Authentication(
      key: .factory, keyNumber: 3, encryptedRndB: bytes("B875CEB0E66A6C5CD00898DC371F92D1"),
      rndA: bytes("B98F4C50CF1C2E084FD150E33992B048"))
    #expect(auth.rndB == bytes("91517975190DCEA6104948EFA3085C1B"))
    #expect(try auth.secondCommand == bytes(
      "90AF000020FF0306E47DFBC50087C4D8A78E88E62DE1E8BE457AA477C707E2F0874916A8B100"))
    let session = try auth.finish(response: bytes(
      "0CC9A8094A8EEA683ECAAC5C7BF20584206D0608D477110FC6B3D5D3F65C3A6A 9100"))
    #expect(session.transactionIdentifier == bytes("7614281A"))
    #expect(session.keys.encryption.bytes == bytes("7A93D6571E4B180FCA6AC90C9A7488D4"))
    #expect(session.keys.mac.bytes == bytes("FC4AF159B62E549B5812394CAB1918CC"))
  }

  @Test func aTagWithoutTheKeyIsRefused() throws {
    // The key-0 transcript's answer, checked by a host that sent another RndA: RndA' differs.
    let auth = try EV2Authentication(
      key: .factory, keyNumber: 0, encryptedRndB: bytes("A04C124213C186F22399D33AC2A30215"),
      rndA: bytes("03C5DB8A5930439FC3DEF9A4C675360F"))
    #expect(throws: NTAG424Error.authenticationFailed) {
      try auth.finish(response: bytes("3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100"))
    }
    #expect(throws: NTAG424Error.status(command: 0xAF, sw1: 0x91, sw2: 0xAE)) {
      try auth.finish(response: bytes("91AE"))
    }
    #expect(throws: NTAG424Error.invalidLength(field: "AuthenticateEV2First part 2 answer", expected: 34, actual: 18)) {
      try auth.finish(response: bytes("3FA64DB5446D1F34CD6EA311167F5E49 9100"))
    }
  }

  @Test func lengthsAndKeyNumbersAreChecked() {
    #expect(throws: NTAG424Error.invalidKeyNumber(5)) { try EV2Authentication.firstCommand(keyNumber: 5) }
    #expect(throws: NTAG424Error.invalidLength(field: "E(Kx, RndB)", expected: 16, actual: 15)) {
      try EV2Authentication(key: .factory, keyNumber: 0, encryptedRndB: [UInt8](repeating: 0, count: 15))
    }
    #expect(throws: NTAG424Error.invalidLength(field: "AES-128 key", expected: 16, actual: 8)) {
      try AESKey(bytes: [UInt8](repeating: 0, count: 8))
    }
  }

  @Test func keysNeverShowTheirBytes() {
    let secret = key("5004BF991F408672B1EF00F08F9E8647")
    #expect("\(secret)" == "AES-128 key (hidden)")
    #expect(String(reflecting: secret) == "AES-128 key (hidden)")
    #expect(!"\(SessionKeys(encryption: secret, mac: secret))".lowercased().contains("5004bf"))
  }
}

extension EV2AuthenticationTests {
  @Test func dumpShowsNoKeyBytes() {
    var text = ""
    dump(SessionKeys(encryption: key("5004BF991F408672B1EF00F08F9E8647"), mac: .factory), to: &text)
    #expect(!text.contains("80"))   // 0x50 = 80: no byte of either key printed
    #expect(!text.contains("bytes"))
  }

  @Test func anAuthenticationInProgressShowsNoChallenge() throws {
    let auth = try EV2Authentication(
      key: .factory, keyNumber: 0, encryptedRndB: bytes("A04C124213C186F22399D33AC2A30215"),
      rndA: bytes("13C5DB8A5930439FC3DEF9A4C675360F"))
    var text = ""
    dump(auth, to: &text)
    #expect("\(auth)" == "AuthenticateEV2First with key 0")
    #expect(!text.contains("19") && !text.contains("185"))   // RndA 13h = 19, RndB B9h = 185
  }
}
