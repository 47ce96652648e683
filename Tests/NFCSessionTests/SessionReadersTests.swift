import NFCEmulator
@testable import NFCSession
import NFCTransport
import Testing

/// The one place a reader is chosen (`SessionReaders`): a `sim:` name is one reader per set of
/// simulated readers: the process's for sessions, a command's own in the tool.
@Suite struct SessionReadersTests {
  @Test func aSimulatorNameIsOneReaderInOneSetAndAnotherInAnother() throws {
    let none: (String) -> String? = { _ in nil }
    let mine = SimulatedReaders(), theirs = SimulatedReaders()
    let first = try SessionReaders.poller(named: "sim:ntag215", logger: nil, exchangeTimeout: nil,
                                          environment: none, simulators: mine)
    let again = try SessionReaders.poller(named: "sim:ntag215", logger: nil, exchangeTimeout: nil,
                                          environment: none, simulators: mine)
    let other = try SessionReaders.poller(named: "sim:ntag215", logger: nil, exchangeTimeout: nil,
                                          environment: none, simulators: theirs)
    #expect(first as AnyObject === again as AnyObject)
    #expect(first as AnyObject !== other as AnyObject)
  }

  @Test func aBadSimulatorNameKeepsTheEmulatorsReason() {
    #expect {
      _ = try SessionReaders.poller(named: "sim:nope", logger: nil, exchangeTimeout: nil,
                                    environment: { _ in nil }, simulators: SimulatedReaders())
    } throws: { error in
      guard let error = error as? NFCReaderError else { return false }
      return error.message.hasPrefix("bad simulator reader 'sim:nope': ") && error.underlyingError is EmulatorError
    }
  }
}
