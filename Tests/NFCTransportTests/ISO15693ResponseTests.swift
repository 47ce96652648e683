import NFCTransport
import Testing

@Suite struct ISO15693ResponseTests {
  @Test func emptyIsNilNeverATrap() {
    #expect(ISO15693Response([UInt8]()) == nil)
  }

  @Test func flagsAloneIsASuccessWithoutData() throws {
    let response = try #require(ISO15693Response([0x00]))  // WRITE SINGLE BLOCK's answer
    #expect(response.flags == 0x00)
    #expect(response.errorCode == nil)
    #expect(!response.isError)
    #expect(response.payload.isEmpty)
    #expect(response.bytes == [0x00])
  }

  @Test func successCarriesItsPayload() throws {
    let response = try #require(ISO15693Response([0x00, 0xE1, 0x40, 0x27, 0x01]))  // READ SINGLE BLOCK: the CC
    #expect(!response.isError)
    #expect(response.payload == [0xE1, 0x40, 0x27, 0x01])
    #expect(response.bytes == [0x00, 0xE1, 0x40, 0x27, 0x01])
    let extended = try #require(ISO15693Response([0x08, 0x01]))
    #expect(extended.hasExtension)
    #expect(extended.payload == [0x01])
    #expect(!response.hasExtension)
  }

  @Test func errorWithItsCode() throws {
    let response = try #require(ISO15693Response([0x01, 0x12]))
    #expect(response.isError)
    #expect(response.errorCode == .blockLocked)
    #expect(response.payload.isEmpty)
    #expect(response.bytes == [0x01, 0x12])
    // A code byte is the code, not payload, even when it looks like data; what follows it is payload.
    let trailing = try #require(ISO15693Response([0x01, 0x10, 0xAA]))
    #expect(trailing.errorCode == .blockNotAvailable)
    #expect(trailing.payload == [0xAA])
  }

  @Test func errorFlagWithoutItsCodeIsMalformed() {
    // ISO/IEC 15693-3 §7.4.2: the code shall follow the error flag; it is not read as 0Fh or 00h.
    #expect(ISO15693Response([0x01]) == nil)
    #expect(ISO15693Response([0x09]) == nil)  // extension and error flags, no code
  }

  @Test func parsesSlicesWhoseIndicesDoNotStartAtZero() throws {
    let frame: [UInt8] = [0xAA, 0x01, 0x11]
    let response = try #require(ISO15693Response(frame.dropFirst()))  // indices 1..<3
    #expect(response.errorCode == .blockAlreadyLocked)
    #expect(ISO15693Response(frame.dropFirst(3)) == nil)
  }

  @Test func builtFromPartsSetsTheErrorFlagToMatch() {
    #expect(ISO15693Response(errorCode: .blockLocked).bytes == [0x01, 0x12])
    #expect(ISO15693Response(flags: 0x01, payload: [0x05]).bytes == [0x00, 0x05])
    #expect(ISO15693Response(flags: 0x08, errorCode: 0x0F).flags == 0x09)
  }

  @Test func namesTheCodesOfTable7() {
    let named: [(ISO15693ErrorCode, UInt8, String)] = [
      (.commandNotSupported, 0x01, "command not supported"),
      (.commandNotRecognised, 0x02, "command not recognised (format error)"),
      (.optionNotSupported, 0x03, "option not supported"),
      (.noInformation, 0x0F, "error with no information given"),
      (.blockNotAvailable, 0x10, "block not available"),
      (.blockAlreadyLocked, 0x11, "block already locked"),
      (.blockLocked, 0x12, "block locked, its content cannot be changed"),
      (.blockNotProgrammed, 0x13, "block not successfully programmed"),
      (.blockNotLocked, 0x14, "block not successfully locked"),
    ]
    for (code, value, meaning) in named {
      #expect(code.rawValue == value)
      #expect(code.meaning == meaning)
      #expect(code.isKnown)
      #expect(!code.isCustom)
    }
    #expect(ISO15693ErrorCode(0x10) == .blockNotAvailable)
    #expect(ISO15693ErrorCode(0x12).description == "12h")
    #expect(ISO15693ErrorCode(0x0F).description == "0fh")
  }

  @Test func customAndRFUCodesRoundTrip() {
    let custom = ISO15693ErrorCode(0xA0)
    #expect(custom.isCustom && !custom.isKnown)
    #expect(custom.meaning == "custom error code")
    #expect(ISO15693ErrorCode(0xDF).isCustom)
    #expect(!ISO15693ErrorCode(0xE0).isCustom)
    let rfu = ISO15693ErrorCode(0x00)
    #expect(!rfu.isKnown && !rfu.isCustom)
    #expect(rfu.meaning == "RFU error code")
    #expect(ISO15693ErrorCode(0x15).meaning == "RFU error code")
    #expect(ISO15693Response([0x01, 0x42])?.errorCode?.rawValue == 0x42)
  }
}
