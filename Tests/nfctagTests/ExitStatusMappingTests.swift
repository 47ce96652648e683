import Foundation
import Testing
@testable import nfctag
@testable import nfctag_provision
@testable import NFCEmulatorVPCD
@testable import NFCTagCLI
import NFCEmulator
import NFCSession
import NFCTags
import NFCTransport
import NTAG424
import NTAG424Tag
import PCSC
import Provisioning
import ProvisionCommands
import ProvisioningLedger

/// Every case of every failure type the tool maps goes through `cliFailure(for:)`, the one entry
/// point, and ends with the status docs/exit-codes.md gives it: each case names words of the
/// doc's table row that describes it, and that row's status must be the one the mapping chose.
/// The switches below have no `default`: a new case does not compile until it is given its row.
@Suite struct ExitStatusMapping {
  /// The rows of docs/exit-codes.md's tables: a status and the row's text.
  static let rows: [(status: Int32, text: String)] = {
    let url = packageRoot.appendingPathComponent("docs/exit-codes.md")
    guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
    return text.split(separator: "\n").compactMap { line in
      guard line.hasPrefix("| ") else { return nil }
      let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      guard let status = cells.first.flatMap({ Int32($0) }) else { return nil }
      return (status, cells.dropFirst().joined(separator: " | "))
    }
  }()

  /// Checks that `error` maps to the status of the rows that hold `phrase` (at least one does).
  func expectDocumented(_ error: any Error, _ phrase: String, sourceLocation: SourceLocation = #_sourceLocation) {
    let statuses = Set(Self.rows.filter { $0.text.contains(phrase) }.map(\.status))
    let status = cliFailure(for: error).code
    #expect(statuses == [status], "\(error): mapped to \(status); docs/exit-codes.md rows with '\(phrase)': \(statuses.sorted())",
            sourceLocation: sourceLocation)
  }

  @Test func theDocumentHasItsTables() {
    #expect(Set(Self.rows.map(\.status)).isSuperset(of: [0, 64, 65, 66, 69, 70, 73, 74, 75, 77, 130]))
  }

  static let ledgerErrors: [LedgerError] = [
    .cannotOpen("ENOENT"), .unavailable("connection refused"), .incompatible("not a ledger"), .rowsDiffer(["row 1"]),
    .unknownRow("r9"), .unknownJob("j9"), .notBound(rowID: "r1", uid: "04aa"), .cannotRelease(rowID: "r1", status: .done),
    .closed,
  ]

  static func phrase(_ error: LedgerError) -> String {
    switch error {
    case .cannotOpen: "a provisioning ledger that cannot be opened"
    case .unavailable: "the ledger cannot be reached"
    case .incompatible: "the file is not a ledger"
    case .rowsDiffer: "rows the ledger holds under the same ids with other content"
    case .unknownRow: "`--row` names no row"
    case .unknownJob: "`--job` names no job"
    case .notBound: "a row released from its tag while the tag was written"
    case .cannotRelease: "`release` of a pending or done row"
    case .closed: "an internal error"
    }
  }

  @Test(arguments: ledgerErrors) func ledgerError(_ error: LedgerError) {
    expectDocumented(error, Self.phrase(error))
    // A tag that failed on the ledger ends, and is recorded, with the same status.
    expectDocumented(TagFailure.ledger(error), Self.phrase(error))
    #expect(TagFailure.ledger(error).exitStatus == cliFailure(for: error).code)
  }

  static func phrase(_ kind: ProvisioningFailure.Kind) -> String {
    switch kind {
    case .security: "a password was refused"
    case .verification: "401 update failure"
    case .unsupported: "not supported"
    case .jobDoesNotFit: "a job that does not fit the first tag"
    case .notForThisCard: "a MIFARE DESFire EV1 or EV2 tapped in a `--sdm-url` job"
    }
  }

  @Test(arguments: ProvisioningFailure.Kind.allCases) func provisioningStep(_ kind: ProvisioningFailure.Kind) {
    let failure = TagFailure.step(ProvisioningFailure(kind, "what happened"))
    expectDocumented(failure, Self.phrase(kind))
    #expect(failure.exitStatus == cliFailure(for: failure).code)
  }

  @Test func aRowThatCannotBeRendered() {
    let failure = TagFailure.render(RenderFailure("row 3 is in the ledger but not in the rows file"))
    expectDocumented(failure, "a row that cannot be rendered into its message")
    #expect(failure.exitStatus == cliFailure(for: failure).code)
  }

  /// The "Core NFC codes" column: a tag's failure in a run ends, and is recorded, as the same
  /// failure of any other command.
  @Test(arguments: ExitTable.allCodes) func aTagFailureInARunHasItsCoreNFCStatus(_ code: NFCReaderError.Code) throws {
    let failure = TagFailure.tag(NFCReaderError(code, "what happened"))
    let documented = try ExitTable().documented()[code.rawValue]
    #expect(documented == cliFailure(for: failure).code, "Core NFC code \(code.rawValue)")
    #expect(failure.exitStatus == cliFailure(for: failure).code)
  }

  static let pollErrors: [PollError] = [
    .serviceUnavailable("no service"), .readerUnavailable("no reader named 'x'"), .noReader("no reader found"),
    .timeout, .busy("sharing violation"), .cancelled, .failed("no answer"),
  ]

  static func phrase(_ error: PollError) -> String {
    switch error {
    case .serviceUnavailable: "pcscd is not running"
    case .readerUnavailable: "the named reader does not exist"
    case .noReader: "no reader is attached"
    case .timeout: "no tag was presented before `--timeout`"
    case .busy: "another session uses the reader"
    case .cancelled: "Ctrl-C while a command waited for a tag"
    case .failed: "a transmission failed"
    }
  }

  @Test(arguments: pollErrors) func pollError(_ error: PollError) {
    expectDocumented(error, Self.phrase(error))
  }

  @Test func noReaderIsATypedCaseWithItsAdvice() {
    #expect(cliFailure(for: PollError.noReader("no reader found")).message
            == "no reader found: plug in a reader, or start a virtual one with `nfctag emulate`")
    // Another reader problem whose text happens to begin the same way gets no such advice.
    #expect(!cliFailure(for: PollError.readerUnavailable("no reader found named x")).message.contains("plug in"))
  }

  /// A PC/SC call's failure outside a session ends as it would inside one (`readers`, `reader`).
  @Test func pcscFailures() {
    expectDocumented(PCSCFailure(.noService, operation: "SCardEstablishContext"), "pcscd is not running")
    expectDocumented(PCSCFailure(.noReadersAvailable, operation: "SCardListReaders"), "no reader is attached")
    expectDocumented(PCSCFailure(.sharingViolation, operation: "SCardConnect", reader: "R"), "another session uses the reader")
    #expect(cliFailure(for: PCSCFailure(.noService, operation: "SCardEstablishContext")).message.contains("is pcscd running?"))
  }

  static let emulatorReasons: [EmulatorError.Reason] = [.failed, .kindNotLinked(.ntag424dna)]

  /// A virtual tag's set-up failure (`emulate`, `--reader sim:`): a kind this program does not
  /// link is 69 with the library's line, whatever status the caller gives other failures, through
  /// either entry point; any other failure keeps the caller's status and line (a bad `sim:` spec
  /// here, 64).
  @Test(arguments: emulatorReasons) func emulatorError(_ reason: EmulatorError.Reason) {
    switch reason {
    case .kindNotLinked(let kind):
      let error = EmulatorError.kindNotLinked(kind)
      let line = "the virtual NTAG 424 DNA is in the NTAG424Emulator module, which this program does not link"
      expectDocumented(error, "a virtual tag kind this program does not link")
      #expect(cliFailure(for: error).message == line)
      let given = "bad simulator reader 'sim:\(kind.rawValue)': \(error)"
      for reason in [FailureReason.invalidValue(given), .malformedInput(given), .unwritableFile(given)] {
        let failure = cliFailure(for: error, otherwise: reason)
        #expect(failure.code == ExitStatus.unavailable && failure.message == line)
      }
    case .failed:
      let error = EmulatorError("unknown tag kind 'nope' in 'sim:nope'")
      let failure = cliFailure(for: error, otherwise: .invalidValue("bad simulator reader 'sim:nope': \(error)"))
      #expect(failure.message == "bad simulator reader 'sim:nope': unknown tag kind 'nope' in 'sim:nope'")
      let statuses = Set(Self.rows.filter { $0.text.contains("bad `--reader sim:` spec") }.map(\.status))
      #expect(statuses == [failure.code])
    }
  }

  static func phrase(_ reason: VPCDBridgeError.Reason) -> String {
    switch reason {
    case .unreachable, .slotInUse: "`emulate` cannot reach vpcd"
    }
  }

  @Test(arguments: [VPCDBridgeError.Reason.unreachable, .slotInUse]) func vpcdBridge(_ reason: VPCDBridgeError.Reason) {
    expectDocumented(VPCDBridgeError(reason: reason, message: "vpcd"), Self.phrase(reason))
  }

  /// The NTAG 424 DNA commands' failures (`sdm setup`, `keys`): every case of NTAG424DNAError,
  /// and every NTAG424Error a command can end with, the `91 xx` statuses the datasheet names among them.
  static let ntag424Errors: [NTAG424DNAError] = [
    .transceive(.tagRemoved, command: "WriteData (file 2)"),
    .transceive(.timeout, command: "ChangeKey (key 1)"),
    .transceive(.malformedResponse([0x91]), command: "GetKeyVersion (key 0)"),
    .applicationNotFound(StatusWord(0x6A, 0x82)),
    .notAuthenticated(command: "ChangeKey (key 0)"),
    .tooManyFrames(command: "GetVersion"),
    .authenticationDelay(command: "AuthenticateEV2First (key 0)", retries: 50),
    .lrpSecureMessaging(command: "AuthenticateEV2First (key 0)"),
    .oldKeyMismatch(keyNumber: 1),
    .notNTAG424DNA(reason: "GetVersion answered 6e00"),
  ] + ([
    .authenticationFailed,
    .status(command: 0xAF, sw1: 0x91, sw2: 0xAE), .status(command: 0x71, sw1: 0x91, sw2: 0xAD),
    .status(command: 0x8D, sw1: 0x91, sw2: 0x9D), .status(command: 0x8D, sw1: 0x91, sw2: 0xBE),
    .status(command: 0x5F, sw1: 0x91, sw2: 0x1E), .status(command: 0x5F, sw1: 0x91, sw2: 0x7E),
    .status(command: 0xA4, sw1: 0x6A, sw2: 0x82),
    .responseMACMismatch(command: 0x5F), .invalidPadding,
    .invalidLength(field: "TI", expected: 4, actual: 3), .malformedResponse(command: 0x64, reason: "2 bytes"),
    .invalidPICCData, .sdmMACMismatch,
    .sessionEnded, .invalidKeyNumber(5), .cryptoFailure(operation: "AES"), .invalidParameter("offset"),
  ] as [NTAG424Error]).map { NTAG424DNAError.tag($0, command: "a command") }

  static func phrase(_ error: NTAG424DNAError) -> String {
    switch error {
    case .transceive(.tagRemoved, _), .transceive(.timeout, _): "the tag was removed or a transmission failed"
    case .transceive: "102 tag response error"
    case .applicationNotFound: "a tag that is not an NTAG 424 DNA"
    case .notAuthenticated: "an NTAG 424 DNA command sent without the session it needs"
    case .tooManyFrames: "a malformed 424 DNA answer"
    case .authenticationDelay: "`91 AD` authentication delay"
    case .lrpSecureMessaging: "a tag in LRP secure messaging mode"
    case .oldKeyMismatch: "whose current value given is not the tag's"
    case .notNTAG424DNA: "a tag that is not an NTAG 424 DNA"
    case .tag(let error, _):
      switch error {
      case .authenticationFailed: "an answer that does not prove the key"
      case .status(_, 0x91, 0xAE): "`91 AE` authentication error"
      case .status(_, 0x91, 0xAD): "`91 AD` authentication delay"
      case .status(_, 0x91, 0x9D): "`91 9D` permission denied"
      case .status(_, 0x91, 0xBE): "`91 BE` boundary error"
      case .status(_, 0x91, 0x1E): "`91 1E` integrity error"
      case .status: "another status the 424 DNA refuses a command with"
      case .responseMACMismatch, .invalidPadding: "an NTAG 424 DNA answer whose response MAC does not verify"
      case .invalidLength, .malformedResponse, .invalidPICCData, .sdmMACMismatch: "a malformed 424 DNA answer"
      case .sessionEnded, .invalidKeyNumber, .cryptoFailure, .invalidParameter: "an internal error"
      }
    }
  }

  /// `91 AD` says what it is and what to do: the datasheet's "keep trying until full delay is spent".
  @Test func ntag424AuthenticationDelaySaysToWait() {
    let failure = cliFailure(for: NTAG424DNAError.tag(.status(command: 0x71, sw1: 0x91, sw2: 0xAD), command: "AuthenticateEV2First (key 0)"))
    #expect(failure.code == 77)
    #expect(failure.message.contains("authentication delay") && failure.message.contains("try again"))
  }

  /// `91 AD` after the retries: the same status, and how long the host kept trying.
  @Test func ntag424AuthenticationDelayAfterRetries() {
    let failure = cliFailure(for: NTAG424DNAError.authenticationDelay(command: "AuthenticateEV2First (key 0)", retries: 50))
    #expect(failure.code == 77)
    #expect(failure.message == "AuthenticateEV2First (key 0): authentication delay (91 AD): the tag still refused to authenticate"
            + " after 50 retries (after failed authentications the tag takes none until a delay that grows with each failure"
            + " is spent; try again later, with the right key)")
  }

  /// A tag in LRP mode: a plain statement, not a refused key.
  @Test func ntag424LRPIsNotSupported() {
    let failure = cliFailure(for: NTAG424DNAError.lrpSecureMessaging(command: "AuthenticateEV2First (key 0)"))
    #expect(failure.code == 65)
    #expect(failure.message.hasPrefix("AuthenticateEV2First (key 0): this tag uses LRP secure messaging, which nfctag does not support"))
  }

  @Test(arguments: ntag424Errors) func ntag424Error(_ error: NTAG424DNAError) {
    expectDocumented(error, Self.phrase(error))
    // The line names no key and is one line.
    #expect(!cliFailure(for: error).message.contains("\n"))
    // A 424 DNA of `provision --sdm-url` that failed ends, and is recorded, with the same status.
    let failure = TagFailure.ntag424(error)
    #expect(failure.exitStatus == cliFailure(for: error).code)
    #expect(cliFailure(for: failure).code == cliFailure(for: error).code)
  }

  /// A wrong key's line says which option gives key 0, and that failures count.
  /// MIFARE Classic: a sector no key opened, a MAD whose CRC is wrong, a card without a MAD.
  @Test func mifareClassicFailures() {
    expectDocumented(NFCReaderError(TagError.authenticationFailed(MIFAREClassicError.sectorsNotOpened([3]).description)),
                     "a MIFARE Classic sector that none of the keys")
    expectDocumented(NFCReaderError(TagError.malformed(MIFAREClassicError.madCRCMismatch(sector: 0, stored: 0x15, computed: 0x14).description,
                                                       offset: nil)), "Application Directory has a wrong CRC")
    expectDocumented(NFCReaderError(TagError.notFormatted(MIFAREClassicError.madAbsent(generalPurposeByte: 0x69).description)),
                     "a tag that is not NDEF formatted")
  }

  /// `sdm serve`'s own failure: an address it cannot listen on.
  @Test func sdmServeCannotListen() {
    let failure = SDMCommand.Serve.listenFailure(ListenAddress(host: "127.0.0.1", port: 8080), POSIXError(.EADDRINUSE))
    expectDocumented(failure, "cannot listen on its address")
    #expect(failure.message.hasPrefix("cannot listen on 127.0.0.1:8080: "))
  }

  @Test func aWrongKeyNamesTheOption() {
    let failure = cliFailure(for: NTAG424DNAError.tag(.status(command: 0xAF, sw1: 0x91, sw2: 0xAE), command: "AuthenticateEV2First (key 0)"))
    #expect(failure.code == 77 && failure.message.contains("--auth-key-file"), "\(failure.message)")
  }
}
