import NFCTransport
import Testing
@testable import NFCReaders

/// A reader's escape channel that answers from a table keyed by control code and command.
final class FakeEscapes: ReaderEscaping {
  let readerName: String
  var answers: [UInt32: [[UInt8]: [UInt8]]]
  private(set) var sent: [(UInt32, [UInt8])] = []
  init(name: String, _ answers: [UInt32: [[UInt8]: [UInt8]]]) {
    readerName = name
    self.answers = answers
  }
  func control(code: UInt32, _ data: [UInt8]) throws(TransceiveError) -> [UInt8] {
    sent.append((code, data))
    guard let reply = answers[code]?[data] else { throw .transport("SCARD_E_UNSUPPORTED_FEATURE") }
    return reply
  }
}

private let acsFirmware: [UInt8] = [0xE0, 0x00, 0x00, 0x18, 0x00]

@Suite struct ReaderIdentificationTests {
  @Test func anACR1252UIsToldByItsFirmwareWhateverItsName() {
    // ACM1252U-Y3 Reference Manual §5.3.1: E1 00 00 00 0F "ACR1252U_V202.2".
    let reply: [UInt8] = [0xE1, 0x00, 0x00, 0x00, 0x0F] + Array("ACR1252U_V202.2".utf8)
    let escape = FakeEscapes(name: "Some Reader 00 00", [1: [acsFirmware: reply]])
    let id = ReaderIdentification.identify(escape)
    #expect(id.model == .acr1252u)
    #expect(id.evidence == .firmware("ACR1252U_V202.2", controlCode: 1))
    #expect(escape.sent.map(\.0) == [3500, 1])  // acsccid's code first, then libccid's
  }

  @Test func anACR122UAnswersItsPseudoAPDUThroughTheEscape() {
    let escape = FakeEscapes(name: "x", [3500: [[0xFF, 0x00, 0x48, 0x00, 0x00]: Array("ACR122U207".utf8)]])
    #expect(ReaderIdentification.identify(escape) == ReaderIdentification(model: .acr122u,
                                                                           evidence: .firmware("ACR122U207", controlCode: 3500)))
  }

  @Test func aReaderThatAnswersNoEscapeIsToldByItsNameOnly() {
    let names: [(String, ReaderModel?)] = [
      ("ACS ACR1252 1S CL Reader [ACR1252 Dual Reader PICC] 00 00", .acr1252u),
      ("Identiv uTrust 3700 F CL Reader [uTrust 3700 F CL Reader] (55021716210255) 00 00", .utrust3700f),
      ("HID Global OMNIKEY 5022 Smart Card Reader [OMNIKEY 5022 Smart Card Reader] 00 00", .omnikey5022),
      ("HID Global OMNIKEY 5422 Smartcard Reader [OMNIKEY 5422CL Smartcard Reader] 00 00", .omnikey5422),
      ("SCL3711 Reader and NFC Device 00 00", .scl3711),
      ("ACS ACR1552 1S CL Reader PICC 02 00", .acr1552u),
      ("ACS ACR122U PICC Interface 00 00", .acr122u),
      ("Virtual PCD 00 00", nil),
    ]
    for (name, model) in names {
      let id = ReaderIdentification.identify(FakeEscapes(name: name, [:]))
      #expect(id.model == model, "\(name)")
      #expect(id.evidence == (model == nil ? .unknown : .nameOnly))
    }
  }

  @Test func aFirmwareAnswerWithAWrongLengthIsNoFirmware() {
    let escape = FakeEscapes(name: "x", [1: [acsFirmware: [0xE1, 0x00, 0x00, 0x00, 0x20] + Array("ACR1252U".utf8)]])
    #expect(ReaderIdentification.identify(escape).model == nil)
  }
}

@Suite struct ACSEscapeTests {
  @Test func ledsAndBuzzerAreTheManualsFrames() throws {
    // ACM1252U-Y3 §5.3.2 LED control E0 00 00 29 01 state; buzzer E0 00 00 28 01 t (10 ms units).
    let escape = FakeEscapes(name: "x", [3500: [
      [0xE0, 0x00, 0x00, 0x29, 0x01, 0x02]: [0xE1, 0x00, 0x00, 0x00, 0x01, 0x02],
      [0xE0, 0x00, 0x00, 0x28, 0x01, 0x0A]: [0xE1, 0x00, 0x00, 0x00, 0x01, 0x00],
      [0xE0, 0x00, 0x00, 0x29, 0x01, 0x01]: [0xE1, 0x00, 0x00, 0x00, 0x01, 0x01],
      [0xE0, 0x00, 0x00, 0x28, 0x01, 0x1E]: [0xE1, 0x00, 0x00, 0x00, 0x01, 0x00],
    ]])
    let acs = ACSEscape(escape: escape, code: 3500)
    try acs.signal(.success)
    try acs.signal(.failure)
    #expect(escape.sent.count == 4)
    #expect(throws: TransceiveError.self) { try acs.firmware() }  // not in the table
  }

  @Test func aGarbledAnswerIsMalformed() {
    let escape = FakeEscapes(name: "x", [1: [[0xE0, 0x00, 0x00, 0x29, 0x01, 0x00]: [0x63, 0x00]]])
    #expect(throws: TransceiveError.malformedResponse([0x63, 0x00])) {
      try ACSEscape(escape: escape, code: 1).setLEDs(first: false, green: false)
    }
  }
}

@Suite struct ReaderCapabilityTable {
  @Test func theQuirksTheIssueNamesAreInTheTable() {
    #expect(ReaderModel.utrust3700f.capabilities.type2ReadBinary == .onePage)
    #expect(ReaderModel.omnikey5022.capabilities.type2ReadBinary == .sixteenBytes)
    #expect(ReaderModel.acr1252u.capabilities.signalling == .acsEscape)
    #expect(ReaderModel.acr122u.capabilities.claimedByPN533Module)
    #expect(ReaderModel.scl3711.capabilities.claimedByPN533Module)
    #expect(ReaderCapabilities.readers(reading: \.iso15693) == [.acr1552u, .omnikey5022])
    #expect(ReaderModel.acr1252u.capabilities.summary.contains("FeliCa"))
  }
}

/// A transport named like a real reader, with scripted APDUs and, optionally, escapes.
final class NamedReader: APDUTransport, ReaderEscaping {
  let readerName: String
  let atr = ultralightATR
  var apdus: [[UInt8]: [UInt8]]
  let escapes: FakeEscapes?
  private(set) var sentAPDUs: [[UInt8]] = []
  init(_ name: String, apdus: [[UInt8]: [UInt8]] = [:], escapes: [UInt32: [[UInt8]: [UInt8]]]? = nil) {
    readerName = name
    self.apdus = apdus
    self.escapes = escapes.map { FakeEscapes(name: name, $0) }
  }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    sentAPDUs.append(apdu)
    return apdus[apdu] ?? [0x6A, 0x81]
  }
  func control(code: UInt32, _ data: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard let escapes else { throw .transport("SCARD_E_UNSUPPORTED_FEATURE") }
    return try escapes.control(code: code, data)
  }
}

/// What ACSSignalling finds is remembered per reader name (ACSSignallingTests.swift): each test
/// here names its reader its own way.
@Suite struct ACSSignallingOnTagLinks {
  static let acr1252u = "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC]"

  @Test func aType2LinkOnAnACR1252USignalsThroughTheEscapes() throws {
    let reader = NamedReader(Self.acr1252u + " (tag links 1) 00 00", escapes: [1: [
      [0xE0, 0x00, 0x00, 0x18, 0x00]: [0xE1, 0x00, 0x00, 0x00, 0x0F] + Array("ACR1252U_V202.2".utf8),  // firmware
      [0xE0, 0x00, 0x00, 0x29, 0x01, 0x02]: [0xE1, 0x00, 0x00, 0x00, 0x01, 0x02],  // green
      [0xE0, 0x00, 0x00, 0x28, 0x01, 0x0A]: [0xE1, 0x00, 0x00, 0x00, 0x01, 0x00],  // 100 ms
    ]])
    let link = PartThreeType2Link(transport: reader)
    #expect(link.canSignal)
    try link.signal(.success)
    #expect(reader.escapes?.sent.map(\.0) == [3500, 1, 1, 1])  // firmware: 3500 refused, libccid's code answered
    #expect(reader.sentAPDUs.isEmpty)                            // nothing to the tag
  }

  @Test func withoutEscapesAnACR1252UTakesTheACR122UCommandThroughTheCard() throws {
    // ACM1252U-Y3 §5.6.1: FF 00 40 … answered 90 <LED state>.
    let green: [UInt8] = [0xFF, 0x00, 0x40, 0xAE, 0x04, 0x01, 0x00, 0x01, 0x01]
    let reader = NamedReader(Self.acr1252u + " (tag links 2) 00 00", apdus: [green: [0x90, 0x02]])
    try PartThreeType2Link(transport: reader).signal(.success)
    #expect(reader.sentAPDUs == [green])
  }

  @Test func otherReadersCannotSignalAndAnACR1552UWithoutEscapesRefuses() {
    #expect(!PartThreeType2Link(transport: NamedReader("Identiv uTrust 3700 F CL Reader 00 00")).canSignal)
    #expect(!APDUPassthroughLink(transport: NamedReader("Virtual PCD 00 00"), capabilities: APDUPassthroughLink.shortAPDUs).canSignal)
    // Named as an ACR1552U but answering no escape: nothing tells it is one (the name is a hint only).
    let acr1552 = PartThreeType5Link(transport: NamedReader("ACS ACR1552 1S CL Reader PICC (tag links 3) 00 00"))
    #expect(!acr1552.canSignal)
    #expect(throws: TransceiveError.self) { try acr1552.signal(.failure) }
  }
}

/// LOAD KEYS as each reader takes it: P2 a key number (ACS, Identiv, HID), or the key type
/// `60`/`61` (SCL3711 Reference Manual v1.3 §6.2.3), told by the name or by the reader's
/// `69 88` ("key number not valid") to the other form.
@Suite struct ClassicKeyLoadingPerReader {
  static let key: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
  static let authenticate: [UInt8] = [0x60, 0x04] + key + [0x01, 0x02, 0x03, 0x04]  // key A, block 4

  @Test func anSCL3711LoadsTheKeyUnderItsTypeAndAuthenticatesWithIt() throws {
    let reader = NamedReader("SCL3711 Reader and NFC Device 00 00", apdus: [
      [0xFF, 0x82, 0x00, 0x60, 0x06] + Self.key: [0x90, 0x00],
      [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, 0x04, 0x60, 0x60]: [0x90, 0x00],
    ])
    #expect(try PartThreeClassicLink(transport: reader).transceive(Self.authenticate) == [0x0A])
    #expect(reader.sentAPDUs.count == 2)
  }

  @Test func aReaderThatRefusesKeyNumberZeroIsAskedWithTheKeyTypeOnce() throws {
    let reader = NamedReader("Some Reader 00 00", apdus: [
      [0xFF, 0x82, 0x00, 0x00, 0x06] + Self.key: [0x69, 0x88],
      [0xFF, 0x82, 0x00, 0x60, 0x06] + Self.key: [0x90, 0x00],
      [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, 0x04, 0x60, 0x60]: [0x90, 0x00],
    ])
    let link = PartThreeClassicLink(transport: reader)
    #expect(try link.transceive(Self.authenticate) == [0x0A])
    #expect(try link.transceive(Self.authenticate) == [0x0A])
    // The refused form once, the key loaded once (the slot keeps it), 1 per authentication.
    #expect(reader.sentAPDUs.count == 4)
  }

  @Test func anACSReaderKeepsKeyNumberZero() throws {
    let reader = NamedReader("ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 00 00", apdus: [
      [0xFF, 0x82, 0x00, 0x00, 0x06] + Self.key: [0x90, 0x00],
      [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, 0x04, 0x60, 0x00]: [0x90, 0x00],
    ])
    #expect(try PartThreeClassicLink(transport: reader).transceive(Self.authenticate) == [0x0A])
  }
}

@Suite struct ReaderIdentificationOrder {
  @Test func aReaderNamedACR122UGetsItsOwnProbeFirstButTheAnswerDecides() {
    let acr122 = FakeEscapes(name: "ACS ACR122U PICC Interface 00 00", [1: [[0xFF, 0x00, 0x48, 0x00, 0x00]: Array("ACR122U207".utf8)]])
    #expect(ReaderIdentification.identify(acr122).model == .acr122u)
    #expect(acr122.sent.map(\.1.first) == [0xFF, 0xFF])  // 3500 refused, then 1: no ACS escape sent
    // A reader named ACR122U that answers ACS's firmware escape is what it answers.
    let reply: [UInt8] = [0xE1, 0x00, 0x00, 0x00, 0x0F] + Array("ACR1252U_V202.2".utf8)
    let renamed = FakeEscapes(name: "ACS ACR122U PICC Interface 00 00", [1: [[0xE0, 0x00, 0x00, 0x18, 0x00]: reply]])
    #expect(ReaderIdentification.identify(renamed).model == .acr1252u)
  }
}
