import DESFire
import EV2SecureMessaging
import Testing

/// Secure Dynamic Messaging's formulas as the DESFire EV3 uses them (the NTAG 424 DNA's SDM,
/// NT4H2421Gx datasheet §9.3), written once in EV2SecureMessaging (`SDMCrypto`, `SDMFrames`) and
/// run here through libcrypto's AES (`DESFireEV2Cipher`): the values of NXP AN12196 rev 2.0 §3.3
/// (Table 1) and §3.4 (the SUN examples), the same ones NTAG424Tests checks through swift-crypto.
@Suite struct SDMSharedFormulasTests {
  typealias SDM = SDMCrypto<DESFireEV2Cipher>
  let zeroKey = [UInt8](repeating: 0, count: 16)

  /// AN12196 §3.3, Table 1: SV1, SV2 and the session keys for UID 04C767F2066180, SDMReadCtr 1.
  @Test func sessionKeysReproduceAN12196() throws {
    let sv = try SDMFrames.sessionVectors(uid: hex("04C767F2066180"), readCounter: 1)
    #expect(sv.encryption == hex("C33C00010080 04C767F2066180 010000"))
    #expect(sv.mac == hex("3CC300010080 04C767F2066180 010000"))
    let keys = try SDM.sessionKeys(fileReadKey: hex("5ACE7E50AB65D5D51FD5BF5A16B8205B"),
                                   uid: hex("04C767F2066180"), readCounter: 1)
    #expect(keys.encryption == hex("66DA61797E23DECA5D8ECA13BBADF7A9"))
    #expect(keys.mac == hex("3A3E8110E05311F7A3FCF0D969BF2B48"))
  }

  /// AN12196 §3.4.2.1 and §3.4.4.2.1: PICCData decrypted, SDMMAC over an empty input.
  @Test func sun1ReproducesAN12196() throws {
    let picc = try #require(try SDM.decryptPICCData(hex("EF963FF7828658A599F3041510671E88"), metaReadKey: zeroKey))
    #expect(picc.uid == hex("04DE5F1EACC040") && picc.readCounter == 0x3D)
    let keys = try SDM.sessionKeys(fileReadKey: zeroKey, uid: picc.uid, readCounter: picc.readCounter)
    #expect(keys.mac == hex("3FB5F6E3A807A03D5E3570ACE393776F"))
    #expect(try SDM.mac(over: [], sessionKeys: keys) == hex("94EED9EE65337086"))
  }

  /// AN12196 §3.4: PICCData, SDMENCFileData both ways and the SDMMAC over the ASCII up to "&cmac=".
  @Test func sun2WithFileDataReproducesAN12196() throws {
    let picc = try #require(try SDM.decryptPICCData(hex("FD91EC264309878BE6345CBE53BADF40"), metaReadKey: zeroKey))
    #expect(picc.uid == hex("04958CAA5C5E80") && picc.readCounter == 8)
    let keys = try SDM.sessionKeys(fileReadKey: zeroKey, uid: picc.uid, readCounter: picc.readCounter)
    #expect(keys.encryption == hex("42132D669442AD43E072C8C0C9828A72"))
    #expect(SDMFrames.fileDataIVInput(readCounter: 8) == hex("080000") + [UInt8](repeating: 0, count: 13))
    #expect(try SDM.decryptFileData(hex("CEE9A53E3E463EF1F459635736738962"), readCounter: 8, sessionKeys: keys)
      == Array("xxxxxxxxxxxxxxxx".utf8))
    #expect(try SDM.encryptFileData(Array("xxxxxxxxxxxxxxxx".utf8), readCounter: 8, sessionKeys: keys)
      == hex("CEE9A53E3E463EF1F459635736738962"))
    #expect(try SDM.mac(over: Array("CEE9A53E3E463EF1F459635736738962&cmac=".utf8), sessionKeys: keys)
      == hex("ECC1E7F6C6C73BF6"))
  }

  /// The card's side: PICCData encrypted with AN12196's plaintext gives AN12196's ciphertext, and
  /// PICCData that does not parse (a wrong key) is nil, not a guess.
  @Test func piccDataEncryptionRoundTrips() throws {
    let plain = try SDM.decryptBlock(hex("FD91EC264309878BE6345CBE53BADF40"), key: zeroKey)
    #expect(Array(plain.prefix(11)) == hex("C7 04958CAA5C5E80 080000"))
    let encrypted = try SDM.encryptPICCData(uid: hex("04958CAA5C5E80"), readCounter: 8, metaReadKey: zeroKey,
                                            padding: Array(plain[11...]))
    #expect(encrypted == hex("FD91EC264309878BE6345CBE53BADF40"))
    #expect(try SDM.decryptPICCData(hex("FD91EC264309878BE6345CBE53BADF40"), metaReadKey: [UInt8](repeating: 1, count: 16)) == nil)
    #expect(throws: EV2Error.self) { try SDM.encryptPICCData(uid: [1, 2], readCounter: 8, metaReadKey: zeroKey, padding: plain) }
    #expect(throws: EV2Error.self) { try SDM.encryptFileData([1, 2, 3], readCounter: 8, sessionKeys: SDMSessionKeyPair(encryption: zeroKey, mac: zeroKey)) }
  }
}
