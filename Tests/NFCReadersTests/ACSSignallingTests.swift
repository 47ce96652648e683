import NFCTransport
import Testing
@testable import NFCReaders

/// ACS escapes as an ACR1252U answers them (ACM1252U-Y3 Reference Manual §5.3.1–5.3.2): Get
/// Firmware Version, green LED, a 100 ms beep.
private let firmwareEscape: [UInt8] = [0xE0, 0x00, 0x00, 0x18, 0x00]
private let greenEscape: [UInt8] = [0xE0, 0x00, 0x00, 0x29, 0x01, 0x02]
private let beepEscape: [UInt8] = [0xE0, 0x00, 0x00, 0x28, 0x01, 0x0A]
private let acr1252Answers: [[UInt8]: [UInt8]] = [
  firmwareEscape: [0xE1, 0x00, 0x00, 0x00, 0x0F] + Array("ACR1252U_V202.2".utf8),
  greenEscape: [0xE1, 0x00, 0x00, 0x00, 0x01, 0x02],
  beepEscape: [0xE1, 0x00, 0x00, 0x00, 0x01, 0x00],
]
/// The ACR122U's LED and buzzer pseudo-APDU for a success (ACR122U API V2.04 §6.2), which the
/// ACR1252U takes through the card (ACM1252U-Y3 §5.6.1).
private let greenPseudoAPDU: [UInt8] = [0xFF, 0x00, 0x40, 0xAE, 0x04, 0x01, 0x00, 0x01, 0x01]

/// The way to a reader's LEDs and buzzer is remembered per reader name for the process's life:
/// the escape control code that worked, or that none did. The names here are this suite's own,
/// so that no other test's reader shares what is remembered.
@Suite struct ACSSignallingMemory {
  @Test func aDriverThatTakesOnlyLibccidsCodeIsAskedWithItAloneAfterTheFirstTag() throws {
    let name = "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] (signalling memory 1) 00 00"
    var codes: [[UInt32]] = []
    for _ in 0..<3 {  // three tags, each on a connection of its own
      let reader = NamedReader(name, escapes: [1: acr1252Answers])
      let link = PartThreeType2Link(transport: reader)
      #expect(link.canSignal)
      try link.signal(.success)
      codes.append(reader.escapes?.sent.map(\.0) ?? [])
      #expect(reader.sentAPDUs.isEmpty)
    }
    #expect(codes[0] == [3500, 1, 1, 1])  // firmware: 3500 refused, 1 answered; then LED, buzzer
    #expect(codes[1] == [1, 1])           // LED, buzzer: one control call each, no probe
    #expect(codes[2] == [1, 1])
  }

  @Test func aDriverThatRefusesBothCodesIsNotAskedAgain() throws {
    let name = "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] (signalling memory 2) 00 00"
    var codes: [[UInt32]] = []
    for _ in 0..<3 {
      let reader = NamedReader(name, apdus: [greenPseudoAPDU: [0x90, 0x02]], escapes: [:])
      try PartThreeType2Link(transport: reader).signal(.success)
      codes.append(reader.escapes?.sent.map(\.0) ?? [])
      #expect(reader.sentAPDUs == [greenPseudoAPDU])  // through the card
    }
    #expect(codes == [[3500, 1], [], []])
  }
}

/// The signalling is told by what the reader answers (its firmware escape, the ACR122U's
/// `FF 00 40` through the card), its name only a hint when nothing answers.
@Suite struct ACSSignallingByAnswers {
  @Test func aReaderWithAMisleadingNameThatAnswersTheACR1252UFirmwareEscapeGetsTheEscapes() throws {
    let reader = NamedReader("Generic Reader (signalling answers 1) 00 00", escapes: [3500: acr1252Answers])
    let link = PartThreeType2Link(transport: reader)
    #expect(link.canSignal)
    try link.signal(.success)
    #expect(reader.escapes?.sent.map(\.1) == [firmwareEscape, greenEscape, beepEscape])
    #expect(reader.sentAPDUs.isEmpty)
  }

  @Test func aReaderNamedACR1252ThatAnswersNothingGetsNoSignalAndOneReason() {
    let name = "ACS ACR1252 1S CL Reader [ACR1252 1S CL Reader PICC] (signalling answers 2) 00 00"
    let reader = NamedReader(name, escapes: [:])  // every escape refused; 6A 81 to FF 00 40
    do {
      try PartThreeType2Link(transport: reader).signal(.success)
      Issue.record("signalled")
    } catch {
      guard case .unsupported(let why) = error else { Issue.record("\(error)"); return }
      #expect(why.contains(name) && !why.contains("\n"), "\(why)")
    }
    // The next tag on it: refused without a command.
    let next = NamedReader(name, escapes: [:])
    #expect(!PartThreeType2Link(transport: next).canSignal)
    #expect(next.sentAPDUs.isEmpty && next.escapes?.sent.isEmpty == true)
  }

  @Test func aReaderNamedLikeNoACSReaderThatAnswersNoEscapeCannotSignal() {
    let reader = NamedReader("Some Reader (signalling answers 3) 00 00", escapes: [:])
    #expect(!PartThreeType2Link(transport: reader).canSignal)
    #expect(reader.sentAPDUs.isEmpty)
  }
}
