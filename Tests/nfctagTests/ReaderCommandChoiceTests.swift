import NFCReaders
import NFCTagCLI
import NFCTransport
import Testing
@testable import nfctag

/// A reader's escapes answered from a table (control code, data); anything else refused as
/// libccid refuses an escape its Info.plist does not allow.
private final class TableEscapes: ReaderEscaping {
  let readerName: String
  let answers: [UInt32: [[UInt8]: [UInt8]]]
  private(set) var sent: [[UInt8]] = []
  init(_ name: String, _ answers: [UInt32: [[UInt8]: [UInt8]]] = [:]) {
    readerName = name
    self.answers = answers
  }
  func control(code: UInt32, _ data: [UInt8]) throws(TransceiveError) -> [UInt8] {
    sent.append(data)
    guard let reply = answers[code]?[data] else { throw .transport("SCARD_E_UNSUPPORTED_FEATURE") }
    return reply
  }
}

/// A connection through which every pseudo-APDU is refused with 6A 81.
private final class RefusingConnection: APDUTransport {
  let readerName: String
  let atr: [UInt8] = []
  private(set) var sent: [[UInt8]] = []
  init(_ name: String) { readerName = name }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    sent.append(apdu)
    return [0x6A, 0x81]
  }
}

/// `reader beep`'s choice of commands (`ReaderTarget.withCommands`), told by what the reader
/// answers, its name only a hint.
@Suite struct ReaderCommandChoice {
  @Test func aReaderWithAMisleadingNameThatAnswersTheACR1252UFirmwareEscapeBeepsThroughTheEscapes() throws {
    // ACM1252U-Y3 Reference Manual §5.3.1 (firmware) and the buzzer escape E0 00 00 28 01 t.
    let name = "Generic Reader 00 00"
    let escapes = TableEscapes(name, [3500: [
      [0xE0, 0x00, 0x00, 0x18, 0x00]: [0xE1, 0x00, 0x00, 0x00, 0x0F] + Array("ACR1252U_V202.2".utf8),
      [0xE0, 0x00, 0x00, 0x28, 0x01, 0x14]: [0xE1, 0x00, 0x00, 0x00, 0x01, 0x00],
    ]])
    let card = RefusingConnection(name)
    try ReaderTarget.withCommands(of: name, escape: escapes, { commands throws(TransceiveError) in
      try NFCTool.Reader.Beep.sound(units: 2, on: commands)
    }, openTransport: { () throws(PollError) -> any APDUTransport in card })
    #expect(escapes.sent.last == [0xE0, 0x00, 0x00, 0x28, 0x01, 0x14])
    #expect(card.sent.isEmpty)
  }

  @Test func aReaderNamedACR1252ThatAnswersNothingIsRefusedInOneLine() {
    let name = "ACS ACR1252 1S CL Reader [ACR1252 1S CL Reader PICC] 00 00"
    do {
      try ReaderTarget.withCommands(of: name, escape: TableEscapes(name), { commands throws(TransceiveError) in
        try NFCTool.Reader.Beep.sound(units: 2, on: commands)
      }, openTransport: { () throws(PollError) -> any APDUTransport in RefusingConnection(name) })
      Issue.record("beeped")
    } catch {
      let failure = cliFailure(for: error)
      #expect(failure.code == ExitStatus.dataError)
      #expect(failure.message.hasPrefix(name) && !failure.message.contains("\n"), "\(failure.message)")
      #expect(failure.message.contains("FF 00 40"), "\(failure.message)")
    }
  }
}
