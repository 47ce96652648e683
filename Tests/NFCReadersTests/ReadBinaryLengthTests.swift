import NFCTransport
import Testing
@testable import NFCReaders

/// A Part 3 reader without transparent exchange holding a Type 2 tag of `pages` pages, whose
/// READ BINARY returns what that reader returns rather than what Le asks for.
final class LengthQuirkReader: APDUTransport {
  enum Answer {
    /// As asked (Le bytes).
    case asAsked
    /// One 4-byte page whatever Le asks: the uTrust 3700 F (Identiv CLOUD 47x0 F Reference
    /// Manual §6.2.1 "regardless of the value given in Le"; nfc4pc `NDEF.java`).
    case onePage
    /// One Type 2 READ (16 bytes, wrapping past the last page) whatever Le asks: the OMNIKEY
    /// 5022 (nfc4pc `NDEF.java`, "returns 16 bytes even if asked for 4";
    /// https://github.com/martinpaljak/nfc4pc/issues/14).
    case fourPages
  }
  let readerName = "quirk reader"
  let atr = ultralightATR
  let memory: [UInt8]
  let answer: Answer
  private(set) var readBinaries: [UInt8] = []
  /// A page refused once (`63 00`, a passing failure), then read.
  var refuseOnce: UInt8?

  init(pages: Int, answer: Answer) {
    memory = (0..<(pages * 4)).map { UInt8(truncatingIfNeeded: $0) }
    self.answer = answer
  }

  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard apdu.count == 5, apdu[0] == 0xFF, apdu[1] == 0xB0, apdu[2] == 0x00 else { return [0x6A, 0x81] }
    let page = Int(apdu[3])
    readBinaries.append(apdu[3])
    if refuseOnce == apdu[3] {
      refuseOnce = nil
      return [0x63, 0x00]
    }
    // The last page is the end of the memory: a page beyond it is "block not found" (6A 82,
    // SCL3711 Reference Manual §6.2.1's status list).
    guard page * 4 < memory.count else { return [0x6A, 0x82] }
    let asked = apdu[4] == 0 ? 256 : Int(apdu[4])
    let count: Int
    switch answer {
    case .asAsked: count = asked
    case .onePage: count = 4
    case .fourPages: count = 16
    }
    let bytes = (0..<count).map { memory[(page * 4 + $0) % memory.count] }
    return bytes + [0x90, 0x00]
  }

  /// Type 2 READ of `page`: 16 bytes from the page on, wrapping to page 0 (NTAG213/215/216 §10.2).
  func expectedRead(_ page: Int) -> [UInt8] { (0..<16).map { memory[(page * 4 + $0) % memory.count] } }
}

@Suite struct ReadBinaryLengths {
  @Test(arguments: [LengthQuirkReader.Answer.asAsked, .onePage, .fourPages])
  func aType2ReadGivesSixteenBytesWhateverTheReaderReturns(_ answer: LengthQuirkReader.Answer) throws {
    let reader = LengthQuirkReader(pages: 45, answer: answer)  // an NTAG213: pages 0–2Ch
    let link = PartThreeType2Link(transport: reader)
    for page in [0, 4, 41] {
      #expect(try link.transceive([0x30, UInt8(page)]) == reader.expectedRead(page))
    }
  }

  @Test func aReadPastTheLastPageWrapsToPageZeroOnAOnePageReader() throws {
    let reader = LengthQuirkReader(pages: 45, answer: .onePage)
    let link = PartThreeType2Link(transport: reader)
    #expect(try link.transceive([0x30, 43]) == reader.expectedRead(43))  // pages 2Bh, 2Ch, 0, 1
    #expect(reader.readBinaries == [43, 44, 45, 45, 0, 1])                 // 45: refused twice, so page 0
  }

  @Test func aPageRefusedOnceIsAskedAgainNotWrapped() throws {
    let reader = LengthQuirkReader(pages: 45, answer: .onePage)
    reader.refuseOnce = 6
    let link = PartThreeType2Link(transport: reader)
    #expect(try link.transceive([0x30, 4]) == reader.expectedRead(4))
    #expect(reader.readBinaries == [4, 5, 6, 6, 7])
  }

  @Test func aReaderThatReturnsNothingOrAPartialPageIsMalformed() throws {
    let transport = ScriptedAPDU(atr: ultralightATR, [
      ([0xFF, 0xC2, 0x00, 0x00, 0x02, 0x81, 0x00, 0x00], [0x6A, 0x81]),
      ([0xFF, 0xB0, 0x00, 0x04, 0x10], [0x90, 0x00]),
      ([0xFF, 0xB0, 0x00, 0x04, 0x10], [1, 2, 3, 0x90, 0x00]),
    ])
    let link = PartThreeType2Link(transport: transport)
    #expect(throws: TransceiveError.malformedResponse([])) { try link.transceive([0x30, 0x04]) }
    #expect(throws: TransceiveError.malformedResponse([1, 2, 3])) { try link.transceive([0x30, 0x04]) }
  }
}
