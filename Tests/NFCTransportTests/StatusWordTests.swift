import NFCTransport
import Testing

@Suite struct StatusWordTests {
  @Test func splitsDataAndStatusWord() throws {
    let response = try #require(ResponseAPDU([0xE1, 0x03, 0x90, 0x00]))  // two data bytes, 90 00
    #expect(response.data == [0xE1, 0x03])
    #expect(response.statusWord == .success)
    #expect(response.statusWord.isSuccess)
    let bare = try #require(ResponseAPDU([0x6A, 0x82]))                   // status word alone
    #expect(bare.data.isEmpty)
    #expect(bare.statusWord == .fileNotFound)
    #expect(!bare.statusWord.isSuccess)
  }

  @Test func shortInputIsNilNeverATrap() {
    #expect(ResponseAPDU([UInt8]()) == nil)
    #expect(ResponseAPDU([0x90]) == nil)
    #expect(StatusWord(trailerOf: [UInt8]()) == nil)
    #expect(StatusWord(trailerOf: [0x90]) == nil)
    #expect(StatusWord(trailerOf: [0x01, 0x02, 0x63, 0x00]) == .noInformation)
  }

  @Test func parsesSlicesWhoseIndicesDoNotStartAtZero() throws {
    let reply: [UInt8] = [0xAA, 0xBB, 0x62, 0x82]
    let slice = reply.dropFirst()                                        // indices 1..<4
    #expect(StatusWord(trailerOf: slice) == .endOfFileReached)
    #expect(try #require(ResponseAPDU(slice)).data == [0xBB])
  }

  @Test func valueBytesAndLiteralAgree() {
    let sw = StatusWord(0x6A, 0x82)
    #expect(sw.value == 0x6A82)
    #expect(sw.sw1 == 0x6A && sw.sw2 == 0x82)
    #expect(sw.bytes == [0x6A, 0x82])
    #expect(StatusWord(0x6A82) == sw)
    let literal: StatusWord = 0x6A82
    #expect(literal == sw)
    #expect(StatusWord(0x9000) == .success)
  }

  @Test func describesAsFourHexDigits() {
    #expect(StatusWord.fileNotFound.description == "6a82")
    #expect(StatusWord(0x01, 0xA6).description == "01a6")
    #expect("\(StatusWord.success)" == "9000")
  }

  @Test(arguments: [
    (StatusWord.success, "success"),
    (.endOfFileReached, "end of file reached before Le bytes"),
    (.noInformation, "no information given"),
    (.noResponse, "no response from the card"),
    (.memoryFailure, "memory failure"),
    (.wrongLength, "wrong length"),
    (.securityStatusNotSatisfied, "security status not satisfied"),
    (.authenticationMethodBlocked, "authentication method blocked"),
    (.conditionsOfUseNotSatisfied, "conditions of use not satisfied"),
    (.commandNotAllowed, "command not allowed"),
    (.incorrectData, "incorrect data"),
    (.functionNotSupported, "function not supported"),
    (.fileNotFound, "file or application not found"),
    (.incorrectP1P2, "incorrect P1 P2"),
    (.wrongParameters, "wrong parameters P1 P2"),
    (.instructionNotSupported, "instruction not supported"),
    (.classNotSupported, "class not supported"),
    (.noPreciseDiagnosis, "no precise diagnosis"),
  ])
  func namesEachKnownStatusWord(_ sw: StatusWord, _ meaning: String) {
    #expect(sw.meaning == meaning)
    #expect(sw.isKnown)
  }

  @Test func unknownStatusWordsRoundTrip() {
    let odd = StatusWord(0x01, 0xA6)  // FeliCa status flags, not an ISO status word
    #expect(odd.meaning == "unknown status")
    #expect(!odd.isKnown)
    #expect(odd.value == 0x01A6)
    #expect(StatusWord(0x6A, 0x99).meaning == "unknown status")
  }

  @Test func countedStatusWordsCarryTheirNumber() {
    #expect(StatusWord(0x61, 0x10).moreDataLength == 16)
    #expect(StatusWord(0x61, 0x00).moreDataLength == 256)
    #expect(StatusWord(0x61, 0x10).meaning == "16 more bytes available")
    #expect(StatusWord.success.moreDataLength == nil)
    #expect(StatusWord(0x6C, 0x0F).exactLength == 15)
    #expect(StatusWord(0x6C, 0x0F).meaning == "wrong Le: 15 bytes available")
    #expect(StatusWord.fileNotFound.exactLength == nil)
    #expect(StatusWord(0x63, 0xC2).counter == 2)
    #expect(StatusWord(0x63, 0xC2).meaning == "verification failed, counter 2")
    #expect(StatusWord.noInformation.counter == nil)  // 63 00 has no counter
  }

  @Test func transceiveErrorNamesTheStatusWord() {
    #expect(TransceiveError.status(.fileNotFound).description == "status word 6a82 (file or application not found)")
    #expect(TransceiveError.status(StatusWord(0x01, 0xA6)).description == "status word 01a6")
    #expect(TransceiveError.status(0x6300) == .status(.noInformation))
  }

  @Test func everyTwoByteInputParses() {
    // Exhaustive over SW1 SW2: no value traps, and every one round-trips through value and bytes.
    var known = 0
    for sw1 in UInt8.min...UInt8.max {
      for sw2 in UInt8.min...UInt8.max {
        let sw = StatusWord(sw1, sw2)
        #expect(StatusWord(sw.value) == sw && StatusWord(trailerOf: sw.bytes) == sw)
        if sw.isKnown { known += 1 } else { #expect(sw.meaning == "unknown status") }
      }
    }
    #expect(known == 256 + 256 + 16 + 22)  // 61xx, 6Cxx, 63Cx and the 22 single values
  }
}
