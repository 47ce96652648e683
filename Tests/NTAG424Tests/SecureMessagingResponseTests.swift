import Testing
@testable import NTAG424

/// The decoding of secure-messaging answers without cryptography (`SecureMessagingResponse`,
/// `ChainedAnswer`, ReadData's length), with swift-crypto's cipher against NXP AN12196 rev 2.0 and
/// with a recording cipher that shows what the decoder asks of it.
@Suite struct SecureMessagingResponseTests {
  /// Records the MAC and IV inputs it is asked for; accepts the MAC it is told to, decrypts as the identity.
  final class RecordingCipher: SecureMessagingResponseCipher {
    var macInputs: [[UInt8]] = [], ivInputs: [[UInt8]] = []
    let accepts: Bool
    init(accepts: Bool = true) { self.accepts = accepts }
    func macMatches(_ mac: ArraySlice<UInt8>, over message: [UInt8]) throws(NTAG424Error) -> Bool {
      macInputs.append(message)
      return accepts
    }
    func decrypt(_ ciphertext: [UInt8], ivInput: [UInt8]) throws(NTAG424Error) -> [UInt8] {
      ivInputs.append(ivInput)
      return ciphertext
    }
  }

  /// AN12196 §6.3: GetCardUID's Full-mode answer decoded with the session keys, as the session does.
  @Test func decodesAN12196sCardUIDWithSwiftCrypto() throws {
    let keys = SessionKeys(encryption: key("2B4D963C014DC36F24F69A50A394F875"), mac: key("379D32130CE61705DD5FD8C36B95D764"))
    let body = try SecureMessagingResponse.body(of: bytes("70756055688505B52A5E26E59E329CD6 595F672298EA41B7 9100"), command: 0x51)
    let uid = try SecureMessagingResponse.data(fromBody: body, command: 0x51, mode: .full, transactionIdentifier: bytes("DF055522"),
                                               counter: 1, cipher: SessionResponseCipher(keys: keys))
    #expect(uid == bytes("04958CAA5C5E80"))
    #expect(throws: NTAG424Error.responseMACMismatch(command: 0x51)) {
      try SecureMessagingResponse.data(fromBody: body, command: 0x51, mode: .full, transactionIdentifier: bytes("DF055522"),
                                       counter: 2, cipher: SessionResponseCipher(keys: keys))
    }
  }

  @Test func buildsTheDatasheetsMACAndIVInputs() throws {
    let cipher = RecordingCipher()
    let data = try SecureMessagingResponse.data(fromBody: bytes("0102 8000000000000000000000000000 1111111111111111"),
                                                command: 0x51, mode: .full, transactionIdentifier: bytes("DF055522"),
                                                counter: 0x0102, cipher: cipher)
    #expect(data == bytes("0102"))
    #expect(cipher.macInputs == [bytes("00 0201 DF055522 0102 8000000000000000000000000000")])
    #expect(cipher.ivInputs == [bytes("5AA5 DF055522 0201 0000000000000000")])
  }

  @Test func checksLengthsStatusAndPadding() throws {
    let cipher = RecordingCipher()
    func decode(_ hex: String, _ mode: CommunicationMode, _ cipher: RecordingCipher = cipher) throws(NTAG424Error) -> [UInt8] {
      try SecureMessagingResponse.data(fromBody: SecureMessagingResponse.body(of: bytes(hex), command: 0xAD), command: 0xAD,
                                       mode: mode, transactionIdentifier: bytes("00000000"), counter: 1, cipher: cipher)
    }
    #expect(throws: NTAG424Error.invalidLength(field: "response APDU", expected: 2, actual: 1)) { try decode("91", .plain) }
    #expect(throws: NTAG424Error.status(command: 0xAD, sw1: 0x91, sw2: 0xAD)) { try decode("91AD", .plain) }
    #expect(throws: NTAG424Error.invalidLength(field: "response with MAC", expected: 8, actual: 7)) {
      try decode("01020304050607 9100", .mac)
    }
    #expect(throws: NTAG424Error.responseMACMismatch(command: 0xAD)) {
      try decode("01 0000000000000000 9100", .mac, RecordingCipher(accepts: false))
    }
    #expect(throws: NTAG424Error.invalidLength(field: "encrypted response data", expected: 16, actual: 2)) {
      try decode("0102 0000000000000000 9100", .full)
    }
    #expect(throws: NTAG424Error.invalidPadding) { try decode("01020000000000000000000000000000 0000000000000000 9100", .full) }
    #expect(throws: NTAG424Error.invalidPadding) {  // two blocks of padding: at most one is
      try decode("80000000000000000000000000000000 00000000000000000000000000000000 0000000000000000 9100", .full)
    }
    #expect(try decode("0000000000000000 9100", .full) == [])  // MACt alone: no RespData
    #expect(try decode("0102 9100", .plain) == bytes("0102"))
  }

  @Test func joinsChainedFrames() {
    var answer = ChainedAnswer()
    #expect(answer.add(bytes("0102 91AF")) == .more)
    #expect(answer.add(bytes("03 91AF")) == .more)
    #expect(answer.add(bytes("04 9100")) == .complete(bytes("01020304 9100")))
    var short = ChainedAnswer()
    #expect(short.add(bytes("91")) == .malformed(bytes("91")))
    var endless = ChainedAnswer()
    let steps = (0..<ChainedAnswer.maximumFrames).map { _ in endless.add(bytes("00 91AF")) }
    #expect(steps.dropLast().allSatisfy { $0 == .more })
    #expect(steps.last == .tooManyFrames)
  }

  @Test func readDataIsTheLengthAskedFor() throws {
    #expect(try NativeCommand.checkReadData(bytes("010203"), length: 3) == bytes("010203"))
    #expect(throws: NTAG424Error.malformedResponse(command: 0xAD, reason: "data is 2 byte(s), expected 3")) {
      try NativeCommand.checkReadData(bytes("0102"), length: 3)
    }
    #expect(try NativeCommand.checkReadData([UInt8](repeating: 0, count: 256), length: 0).count == 256)
    #expect(throws: NTAG424Error.self) { try NativeCommand.checkReadData([UInt8](repeating: 0, count: 257), length: 0) }
  }
}
