import CPCSC
import Testing
@testable import PCSC
import NFCReaders
import NFCTransport

/// A scripted seam: records calls and answers with canned results.
///
/// `@unchecked Sendable` because `PCSCCalls` requires it; each test uses its own instance on its
/// own thread only.
final class ScriptedCalls: PCSCCalls, @unchecked Sendable {
  var readers: Result<[UInt8], PCSCError> = .success([])
  var transmitReply: Result<[UInt8], PCSCError> = .success([0x90, 0x00])
  var established: Result<SCARDCONTEXT, PCSCError> = .success(7)
  var lastTransmit: (protocol: DWORD, command: [UInt8], capacity: Int)?
  var eventStates: [UInt32] = []

  func establishContext() -> Result<SCARDCONTEXT, PCSCError> { established }
  func releaseContext(_ context: SCARDCONTEXT) {}
  func listReaders(_ context: SCARDCONTEXT) -> Result<[UInt8], PCSCError> { readers }
  func getStatusChange(_ context: SCARDCONTEXT, timeout: DWORD, states: inout [ReaderState]) -> PCSCError? {
    for (i, s) in eventStates.enumerated() where i < states.count { states[i].eventState = s }
    return nil
  }
  func cancel(_ context: SCARDCONTEXT) -> PCSCError? { nil }
  /// Refusals the next connects get, in order, before they succeed.
  var connectRefusals: [PCSCError] = []
  var connects = 0
  func connect(_ context: SCARDCONTEXT, reader: String, share: DWORD, protocols: DWORD) -> Result<(SCARDHANDLE, DWORD), PCSCError> {
    connects += 1
    if !connectRefusals.isEmpty { return .failure(connectRefusals.removeFirst()) }
    return reader == "empty" ? .failure(.noSmartcard) : .success((9, DWORD(SCARD_PROTOCOL_T1)))
  }
  func reconnect(_ handle: SCARDHANDLE, share: DWORD, protocols: DWORD, initialization: DWORD) -> Result<DWORD, PCSCError> { .success(2) }
  func disconnect(_ handle: SCARDHANDLE, disposition: DWORD) -> PCSCError? { nil }
  func transmit(_ handle: SCARDHANDLE, protocol: DWORD, command: [UInt8], capacity: Int) -> Result<[UInt8], PCSCError> {
    lastTransmit = (`protocol`, command, capacity)
    return transmitReply
  }
  var controlReply: Result<[UInt8], PCSCError> = .failure(.unsupportedFeature)
  var lastControl: (code: DWORD, input: [UInt8], capacity: Int)?
  func control(_ handle: SCARDHANDLE, code: DWORD, input: [UInt8], capacity: Int) -> Result<[UInt8], PCSCError> {
    lastControl = (code, input, capacity)
    return controlReply
  }
  func status(_ handle: SCARDHANDLE) -> Result<(reader: String, state: DWORD, protocol: DWORD, atr: [UInt8]), PCSCError> {
    .success(("r", 0x34, 2, [0x3B, 0x00]))
  }
  func beginTransaction(_ handle: SCARDHANDLE) -> PCSCError? { nil }
  func endTransaction(_ handle: SCARDHANDLE, disposition: DWORD) -> PCSCError? { .notTransacted }
}

@Suite struct ErrorCodes {
  @Test func namedCodesCarryTheirValuesAndAdvice() {
    #expect(PCSCError.noService.rawValue == 0x8010001D)
    #expect(PCSCError.removedCard.rawValue == 0x80100069)
    #expect(PCSCError.noReadersAvailable.rawValue == 0x8010002E)
    // Facts only: what to do about them is the tool's to say.
    #expect(PCSCError.noService.description.contains("pcscd"))
    #expect(PCSCError.removedCard.description.contains("removed"))
    #expect(!PCSCError.noReadersAvailable.description.contains("nfctag"))
    #expect(PCSCError(rawValue: 0x8010FFFF).description == "PC/SC error 0x8010ffff")
  }

  @Test func failureNamesOperationAndReader() {
    let failure = PCSCFailure(.sharingViolation, operation: "SCardConnect", reader: "ACS ACR122U")
    #expect(failure.description.contains("SCardConnect on \"ACS ACR122U\""))
    #expect(failure.description.contains("exclusively"))
  }
}

@Suite struct ContextThroughTheSeam {
  @Test func readerListIsAMultiString() throws {
    let calls = ScriptedCalls()
    calls.readers = .success(Array("Virtual PCD 00 00\0Virtual PCD 00 01\0\0".utf8))
    let context = try PCSCContext(calls: calls)
    #expect(try context.listReaders() == ["Virtual PCD 00 00", "Virtual PCD 00 01"])
  }

  @Test func noReadersIsAnEmptyList() throws {
    let calls = ScriptedCalls()
    calls.readers = .failure(.noReadersAvailable)
    #expect(try PCSCContext(calls: calls).listReaders() == [])
  }

  @Test func serviceDownIsATypedFailure() {
    let calls = ScriptedCalls()
    calls.established = .failure(.noService)
    #expect(throws: PCSCFailure.self) { try PCSCContext(calls: calls) }
  }

  @Test func transmitUsesTheActiveProtocolAndTheShortBuffer() throws {
    let calls = ScriptedCalls()
    let card = try PCSCContext(calls: calls).connect(reader: "r")
    calls.transmitReply = .success([0x01, 0x90, 0x00])
    #expect(try card.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00]) == [0x01, 0x90, 0x00])
    #expect(calls.lastTransmit?.protocol == DWORD(SCARD_PROTOCOL_T1))
    #expect(calls.lastTransmit?.capacity == 264)
  }

  @Test func removedCardSurfacesAsItsCode() throws {
    let calls = ScriptedCalls()
    let card = try PCSCContext(calls: calls).connect(reader: "r")
    calls.transmitReply = .failure(.removedCard)
    #expect { try card.transmit([0x00]) } throws: { ($0 as? PCSCFailure)?.error == .removedCard }
  }

  @Test func statusBitsAndEventCounter() throws {
    let calls = ScriptedCalls()
    calls.eventStates = [0x0002_0022]
    let context = try PCSCContext(calls: calls)
    var states = [ReaderState(reader: "r")]
    try context.waitForStatusChange(&states, timeoutMilliseconds: 0)
    #expect(states[0].flags.contains(.present))
    #expect(states[0].flags.contains(.changed))
    #expect(states[0].eventCount == 2)
  }
}

/// Against the machine's pcscd: run by `make test` (NFCTAG_E2E=1).
@Suite(.enabled(if: Environment.e2e, "needs the machine's pcscd with vsmartcard-vpcd: run `make test`"))
struct LivePCSC {
  @Test func listsTheTwoVirtualReaders() throws {
    let readers = try PCSCContext().listReaders()
    #expect(readers.contains("Virtual PCD 00 00"))
    #expect(readers.contains("Virtual PCD 00 01"))
  }

  @Test func statusChangeOnAReaderAnswers() throws {
    let context = try PCSCContext()
    var states = [ReaderState(reader: "Virtual PCD 00 00")]
    try context.waitForStatusChange(&states, timeoutMilliseconds: 100)
    #expect(states[0].flags.contains(.empty) || states[0].flags.contains(.present))
  }
}

enum Environment {
  static var e2e: Bool {
    guard let value = getenv("NFCTAG_E2E") else { return false }
    return String(cString: value) == "1"
  }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The PnP notification reader against the machine's pcscd: it answers, and a wait on it times
/// out when no reader comes or goes.
@Suite(.enabled(if: Environment.e2e, "needs the machine's pcscd with vsmartcard-vpcd: run `make test`"))
struct LivePnPNotification {
  @Test func answersAndWaitsForAReaderChange() throws {
    let context = try PCSCContext()
    var states = [ReaderState(reader: ReaderState.pnpNotification)]
    do {
      try context.waitForStatusChange(&states, timeoutMilliseconds: 0)
    } catch {
      #expect(error.error == .timeout)
    }
    states[0].currentState = states[0].eventState
    #expect { try context.waitForStatusChange(&states, timeoutMilliseconds: 200) } throws: {
      ($0 as? PCSCFailure)?.error == .timeout
    }
  }
}

/// A removal that pcsc-lite reports as SCARD_E_NOT_TRANSACTED is "the tag was removed".
@Suite struct RemovalWords {
  @Test func notTransactedWhileTheCardStillLooksPresentIsARemoval() throws {
    let calls = ScriptedCalls()
    calls.transmitReply = .failure(.notTransacted)
    let card = try PCSCContext(calls: calls).connect(reader: "r")
    let transport = PCSCCardTransport(card: card, readerName: "r", atr: [])
    #expect(throws: TransceiveError.tagRemoved) { try transport.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00]) }
    #expect(TransceiveError.tagRemoved.description == "the tag was removed")
  }
}

/// A card that has just come (or come back with a restarted pcscd) may not answer its first
/// power-up: the poller tries the connect again while the reader shows a card, a few times.
@Suite struct ConnectRetries {
  func poller(_ calls: ScriptedCalls) throws -> PCSCTagPoller {
    calls.eventStates = [UInt32(SCARD_STATE_PRESENT | SCARD_STATE_CHANGED)]
    return PCSCTagPoller(context: try PCSCContext(calls: calls), readerName: "r")
  }

  @Test func aCardThatDoesNotAnswerItsFirstPowerUpIsTriedAgain() throws {
    let calls = ScriptedCalls()
    calls.connectRefusals = [.unresponsiveCard, .unpoweredCard]
    _ = try? poller(calls).waitForTargets(timeoutMilliseconds: 1000)
    #expect(calls.connects == 3)
    #expect(calls.lastTransmit != nil, "the card was connected and identified")
  }

  @Test func aCardThatNeverAnswersIsRefusedAfterFiveTries() throws {
    let calls = ScriptedCalls()
    calls.connectRefusals = Array(repeating: .unresponsiveCard, count: 10)
    let poller = try poller(calls)
    #expect(throws: PollError.self) { try poller.waitForTargets(timeoutMilliseconds: 1000) }
    #expect(calls.connects == 5)
  }

  @Test func otherRefusalsAreNotTriedAgain() throws {
    let calls = ScriptedCalls()
    calls.connectRefusals = [.sharingViolation]
    let poller = try poller(calls)
    #expect(throws: PollError.busy(PCSCFailure(.sharingViolation, operation: "SCardConnect", reader: "r").description)) {
      try poller.waitForTargets(timeoutMilliseconds: 1000)
    }
    #expect(calls.connects == 1)
  }
}
