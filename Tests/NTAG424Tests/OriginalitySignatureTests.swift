import NTAG424Originality
import Testing

/// The originality signature through OpenSSL: NXP's published example verifies with NXP's key,
/// one changed bit does not, and the virtual tag's test key pair signs and verifies apart from it.
@Suite struct OriginalitySignatureTests {
  /// NXP AN12196 §7.2, Table 30: a tag's UID and its Read_Sig answer.
  static let uid = bytes("04518DFAA96180")
  static let signature = bytes("""
    D1940D17CFEDA4BFF80359AB975F9F6514313E8F90C1D3CAAF5941AD
    744A1CDF9A83F883CAFE0FE95D1939B1B7E47113993324473B785D21
    """)

  @Test func nxpsPublishedSignatureVerifiesWithNXPsKey() {
    #expect(OriginalitySignature.nxpPublicKey.count == 57 && OriginalitySignature.nxpPublicKey.first == 0x04)
    #expect(OriginalitySignature.verify(uid: Self.uid, signature: Self.signature, publicKey: OriginalitySignature.nxpPublicKey) == true)
    #expect(OriginalitySignature.check(uid: Self.uid, signature: Self.signature) == .nxp)
  }

  @Test func oneChangedBitAnywhereIsNotNXPSigned() {
    for index in [0, 27, 28, 55] {
      var forged = Self.signature
      forged[index] ^= 0x01
      #expect(OriginalitySignature.check(uid: Self.uid, signature: forged) == .invalid, "signature byte \(index)")
    }
    var otherUID = Self.uid
    otherUID[6] ^= 0x01
    #expect(OriginalitySignature.check(uid: otherUID, signature: Self.signature) == .invalid)
  }

  @Test func hostileLengthsAndKeysAreRefusedWithoutATrap() {
    #expect(OriginalitySignature.check(uid: Self.uid, signature: Array(Self.signature.dropLast())) == .invalid)
    #expect(OriginalitySignature.check(uid: Self.uid, signature: []) == .invalid)
    #expect(OriginalitySignature.check(uid: [], signature: Self.signature) == .invalid)
    #expect(OriginalitySignature.check(uid: Self.uid, signature: [UInt8](repeating: 0, count: 56)) == .invalid)
    #expect(OriginalitySignature.check(uid: Self.uid, signature: [UInt8](repeating: 0xFF, count: 56)) == .invalid)
    var notAPoint = OriginalitySignature.nxpPublicKey
    notAPoint[10] ^= 0x01
    #expect(OriginalitySignature.verify(uid: Self.uid, signature: Self.signature, publicKey: notAPoint) == nil)
    #expect(OriginalitySignature.verify(uid: Self.uid, signature: Self.signature, publicKey: [0x04]) == nil)
  }

  @Test func theTestKeySignsAndVerifiesApartFromNXPs() throws {
    let uid = bytes("04424D1A9B6E80")
    let first = try #require(OriginalitySignature.testSignature(uid: uid))
    let second = try #require(OriginalitySignature.testSignature(uid: uid))
    #expect(first.count == 56)
    #expect(first != second, "ECDSA draws a new nonce each time")
    #expect(OriginalitySignature.check(uid: uid, signature: first) == .testKey)
    #expect(OriginalitySignature.check(uid: uid, signature: second) == .testKey)
    #expect(OriginalitySignature.verify(uid: uid, signature: first, publicKey: OriginalitySignature.nxpPublicKey) == false)
    #expect(OriginalitySignature.check(uid: Self.uid, signature: first) == .invalid)
  }
}
