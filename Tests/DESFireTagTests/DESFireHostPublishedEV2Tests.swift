import DESFire
import DESFireTag
import EV2SecureMessaging
import NFCTestSupport
import Testing

/// The product host (`DESFireCard`, not only the shared module under it) through NXP's published
/// EV2 examples: NXP AN12343 "MIFARE DESFire Light features and hints" rev 1.1, the same scheme as
/// the DESFire EV2/EV3's. Each APDU the host sends is compared with the recorded command byte for
/// byte (`EmbeddedTransceiver` refuses any other), and the recorded answers are accepted. The
/// public sources that quote these values from AN12343 are listed in DESFireTests'
/// PublishedTranscriptTests. AN12343's WriteData and ReadData examples (tables 25, 26) use the
/// Light's command codes 8Dh and ADh, which the MAC covers; `DESFireCard` sends 3Dh and BDh, so
/// those two are reproduced by the shared module's host there, not here.
@Suite struct DESFireHostPublishedEV2Tests {
  /// AuthenticateEV2First with key 0 = 00×16, AN12343 table 16: RndA given, RndB the card's.
  static let table16Answer = "04 C6 DB D6 74 17 ED 0D 31 DD DE 4D 2E 3F FA C2 B4 B0 74 F6 38 EE F7 FF F9 25 49 63 B6 5C 77 59"

  /// The host authenticating through table 16's exchange, the card's final answer `answer`.
  static func authenticateAsInTable16(answer: String) throws -> (DESFireCard, EmbeddedTransceiver) {
    let link = EmbeddedTransceiver([
      (hexBytes("90 71 00 00 02 00 00 00"), .success(hexBytes("24 67 7D DB D4 63 49 E6 23 79 8F D7 29 00 6E 79 91 AF"))),
      (hexBytes("90 AF 00 00 20 3B 50 44 5F 21 D2 1D 77 D5 00 79 4D EB 24 5E 5A 75 4F 5F 90 18 44 25 9F 4C 9B 31 A5 C7 33 5A CD 00"),
       .success(hexBytes(answer + " 91 00"))),
    ])
    let card = DESFireCard(link: link)
    try card.authenticateEV2First(keyNumber: 0, key: DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16)),
                                  rndA: hexBytes("B0 4D 07 87 C9 3E E0 CC 8C AC C8 E8 6F 16 C6 FE"))
    return (card, link)
  }

  @Test func authenticateEV2FirstSendsTable16sFrames() throws {
    let (card, link) = try Self.authenticateAsInTable16(answer: Self.table16Answer)
    #expect(link.finish() == .clean)
    let session = try #require(card.secureMessaging as? DESFireEV2SecureMessaging)
    #expect(session.session.transactionIdentifier == hexBytes("8C F1 41 F3"))
    #expect(session.session.commandCounter == 0)
  }

  /// The same exchange with the last bit of the card's answer flipped: the host refuses it (the
  /// answer does not prove the key).
  @Test func aFlippedBitInTable16sAnswerIsRefused() throws {
    #expect(throws: DESFireCommandError.self) {
      _ = try Self.authenticateAsInTable16(answer: String(Self.table16Answer.dropLast()) + "8")
    }
  }

  /// GetCardUID in CommMode.Full in the session of AN12343 pp. 15–17 (TI 569D4B24, CmdCtr 0):
  /// the recorded command's MACt, the recorded answer deciphered to the UID.
  @Test func getCardUIDInFullModeAsOnPages15To17() throws {
    let link = EmbeddedTransceiver([
      (hexBytes("90 51 00 00 08 5C A9 EF 7C 91 2A 39 1B 00"),
       .success(hexBytes("CD FF BF 6D 34 23 1D A2 78 9D A9 D3 AB 15 D5 60 CE 75 E3 9E DB E9 4C 2F 91 00"))),
    ])
    let card = DESFireCard(link: link)
    let keys = try EV2SessionKeys(encryption: hexBytes("C1 D7 BD 9F 60 03 4D 84 32 F9 AF 34 03 D5 73 D0"),
                                  mac: hexBytes("FD 9E 26 C9 76 6F 07 C1 D0 71 06 C0 F8 F3 67 1F"))
    card.secureMessaging = DESFireEV2SecureMessaging(
      session: try EV2HostSession(transactionIdentifier: hexBytes("56 9D 4B 24"), keys: keys, keyNumber: 0))
    #expect(try card.cardUID() == hexBytes("04 DE 5F 1E AC C0 40"))
    #expect(link.finish() == .clean)
  }
}
