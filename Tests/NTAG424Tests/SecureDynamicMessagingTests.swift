import Testing
@testable import NTAG424

/// SUN verification against NXP AN12196 rev 2.0 §3.3 (session keys) and §3.4 (the two SUN
/// examples), and a third message with non-zero keys from the Bolt card test vectors.
@Suite struct SecureDynamicMessagingTests {
  /// AN12196 §3.3, Table 1: the SDM session keys for one read.
  @Test func sessionKeysReproduceAN12196() throws {
    let keys = try SDMSessionKeys(fileReadKey: key("5ACE7E50AB65D5D51FD5BF5A16B8205B"),
                                  uid: bytes("04C767F2066180"), readCounter: 1)   // SDMReadCtr 010000, LSB first
    #expect(keys.encryption.bytes == bytes("66DA61797E23DECA5D8ECA13BBADF7A9"))
    #expect(keys.mac.bytes == bytes("3A3E8110E05311F7A3FCF0D969BF2B48"))
  }

  /// AN12196 §3.4.2.1 and §3.4.4.2.1 (Table 4): encrypted PICCData, SDMMAC over an empty input.
  /// https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086
  @Test func sun1ReproducesAN12196() throws {
    let picc = try PICCData(decrypting: bytes("EF963FF7828658A599F3041510671E88"), metaReadKey: .factory)
    #expect(picc.uid == bytes("04DE5F1EACC040"))
    #expect(picc.readCounter == 0x3D)
    let keys = try SDMSessionKeys(fileReadKey: .factory, uid: picc.uid, readCounter: picc.readCounter)
    #expect(keys.mac.bytes == bytes("3FB5F6E3A807A03D5E3570ACE393776F"))
    #expect(try SecureDynamicMessaging.mac(over: [], sessionKeys: keys) == bytes("94EED9EE65337086"))
    let message = try SecureDynamicMessaging.verify(
      encryptedPICCData: bytes("EF963FF7828658A599F3041510671E88"), sdmMAC: bytes("94EED9EE65337086"),
      metaReadKey: .factory, fileReadKey: .factory)
    #expect(message == SUNMessage(uid: bytes("04DE5F1EACC040"), readCounter: 61, fileData: nil))
  }

  /// AN12196 §3.4: PICCData, SDMENCFileData and an SDMMAC over the ASCII from the file data to "&cmac=".
  /// https://www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=CEE9A53E3E463EF1F459635736738962&cmac=ECC1E7F6C6C73BF6
  @Test func sun2WithFileDataReproducesAN12196() throws {
    let picc = try PICCData(decrypting: bytes("FD91EC264309878BE6345CBE53BADF40"), metaReadKey: .factory)
    #expect(picc.uid == bytes("04958CAA5C5E80"))
    #expect(picc.readCounter == 8)
    let keys = try SDMSessionKeys(fileReadKey: .factory, uid: picc.uid, readCounter: picc.readCounter)
    #expect(keys.mac.bytes == bytes("3ED0920E5E6A0320D823D5987FEAFBB1"))
    #expect(keys.encryption.bytes == bytes("42132D669442AD43E072C8C0C9828A72"))
    let message = try SecureDynamicMessaging.verify(
      encryptedPICCData: bytes("FD91EC264309878BE6345CBE53BADF40"), sdmMAC: bytes("ECC1E7F6C6C73BF6"),
      macInput: Array("CEE9A53E3E463EF1F459635736738962&cmac=".utf8),
      encryptedFileData: bytes("CEE9A53E3E463EF1F459635736738962"),
      metaReadKey: .factory, fileReadKey: .factory)
    #expect(message.fileData == Array("xxxxxxxxxxxxxxxx".utf8))
    #expect(message.readCounter == 8)
  }

  /// Non-zero SDMMetaRead and SDMFileRead keys (Bolt card test vectors, docs/TEST_VECTORS.md of
  /// boltcard/boltcard): p=4E2E289D945A66BB13377A728884E867, c=E19CCB1FED8892CE.
  @Test func sun3WithDistinctKeys() throws {
    let meta = key("0c3b25d92b38ae443229dd59ad34b85d"), file = key("b45775776cb224c75bcde7ca3704e933")
    let message = try SecureDynamicMessaging.verify(
      encryptedPICCData: bytes("4E2E289D945A66BB13377A728884E867"), sdmMAC: bytes("E19CCB1FED8892CE"),
      metaReadKey: meta, fileReadKey: file)
    #expect(message.uid == bytes("04996c6a926980"))
    #expect(message.readCounter == 3)
    // The keys in each other's role: PICCData does not decrypt, or the MAC does not verify.
    #expect(throws: NTAG424Error.self) {
      try SecureDynamicMessaging.verify(
        encryptedPICCData: bytes("4E2E289D945A66BB13377A728884E867"), sdmMAC: bytes("E19CCB1FED8892CE"),
        metaReadKey: file, fileReadKey: meta)
    }
  }

  @Test func aForgedMessageIsRefused() throws {
    // One bit changed in the MAC.
    #expect(throws: NTAG424Error.sdmMACMismatch) {
      try SecureDynamicMessaging.verify(
        encryptedPICCData: bytes("EF963FF7828658A599F3041510671E88"), sdmMAC: bytes("94EED9EE65337087"),
        metaReadKey: .factory, fileReadKey: .factory)
    }
    // One bit changed in the MAC input.
    #expect(throws: NTAG424Error.sdmMACMismatch) {
      try SecureDynamicMessaging.verify(
        encryptedPICCData: bytes("FD91EC264309878BE6345CBE53BADF40"), sdmMAC: bytes("ECC1E7F6C6C73BF6"),
        macInput: Array("CEE9A53E3E463EF1F459635736738963&cmac=".utf8),
        encryptedFileData: bytes("CEE9A53E3E463EF1F459635736738962"),
        metaReadKey: .factory, fileReadKey: .factory)
    }
    // One bit changed in PICCData: another UID or counter, or no valid PICCData at all.
    #expect(throws: NTAG424Error.self) {
      try SecureDynamicMessaging.verify(
        encryptedPICCData: bytes("EF963FF7828658A599F3041510671E89"), sdmMAC: bytes("94EED9EE65337086"),
        metaReadKey: .factory, fileReadKey: .factory)
    }
  }

  @Test func lengthsAreChecked() {
    #expect(throws: NTAG424Error.invalidLength(field: "encrypted PICCData", expected: 16, actual: 15)) {
      try PICCData(decrypting: [UInt8](repeating: 0, count: 15), metaReadKey: .factory)
    }
    #expect(throws: NTAG424Error.invalidLength(field: "SDMMAC", expected: 8, actual: 7)) {
      try SecureDynamicMessaging.verify(
        encryptedPICCData: bytes("EF963FF7828658A599F3041510671E88"), sdmMAC: bytes("94EED9EE653370"),
        metaReadKey: .factory, fileReadKey: .factory)
    }
    #expect(throws: NTAG424Error.invalidLength(field: "UID", expected: 7, actual: 4)) {
      try SDMSessionKeys(fileReadKey: .factory, uid: [1, 2, 3, 4], readCounter: 1)
    }
    #expect(throws: NTAG424Error.invalidLength(field: "SDMENCFileData", expected: 16, actual: 10)) {
      try SecureDynamicMessaging.decryptFileData(
        [UInt8](repeating: 0, count: 10), readCounter: 1,
        sessionKeys: SDMSessionKeys(fileReadKey: .factory, uid: nil, readCounter: 1))
    }
  }

  /// The verifier's shortcuts give what the plain operations give: two CMACs from one copied
  /// context, and one block decrypted as AES-CBC with a zero IV decrypts it.
  @Test func theVerifiersShortcutsMatchThePlainOperations() throws {
    let k = key("5ACE7E50AB65D5D51FD5BF5A16B8205B")
    let first = bytes("C33C00010080 04DE5F1EACC040 3D0000 0000"), second = bytes("3CC300010080 04DE5F1EACC040 3D0000 0000")
    let pair = try AESPrimitives.cmac(first, second, key: k)
    let one = try AESPrimitives.cmac(first, key: k), two = try AESPrimitives.cmac(second, key: k)
    #expect(pair.0 == one && pair.1 == two)
    #expect(pair.0 != pair.1)
    let block = bytes("EF963FF7828658A599F3041510671E88")
    let cbc = try AESPrimitives.cbcDecrypt(block, key: k, iv: EV2Authentication.zeroIV)
    #expect(try AESPrimitives.decryptBlock(block, key: k) == cbc)
  }
}
