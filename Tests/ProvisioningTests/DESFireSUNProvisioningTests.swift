import DESFire
import DESFireEmulator
import DESFireTag
import Hex
import Locking
import NDEF
import NFCEmulator
import NFCTags
import NFCTransport
import NTAG424
import Provisioning
import ProvisioningLedger
import Testing

/// `provision --sdm-url` onto MIFARE DESFire EV3 cards in process, through the simulated ACR122U:
/// AN11004's NDEF application with five AES keys, the row's SUN URL with SDM on, the application's
/// keys derived from the SDM master key as the 424 DNA's are (so the master key alone verifies every
/// tap), the PICC master key diversified by AN10922; a card taken away after any APDU is finished by a
/// rerun; an EV1 or EV2 refused before anything is written.
@Suite(.serialized) struct DESFireSUNProvisioningTests {
  static let uid: [UInt8] = [0x04, 0x3A, 0x52, 0x61, 0x7C, 0x85, 0x90]
  static let masterBytes: [UInt8] = (0..<16).map { UInt8($0 * 11 + 5) }
  static let sdmMasterBytes: [UInt8] = (0..<16).map { UInt8($0 * 13 + 1) }

  init() { DESFireEmulator.register() }

  func jobs() throws -> (DESFireProvisioning, SUNProvisioning) {
    let master = try DESFireSecretKey.make(Self.masterBytes, kind: .aes, what: "test key").get()
    return (DESFireProvisioning(keyType: .aes, keys: .diversified(master: master)),
            SUNProvisioning(masterKey: try AESKey(bytes: Self.sdmMasterBytes), lock: false))
  }

  func content() throws -> JobContent {
    let rows = RowsFile.counted(1)
    let t = MessageTemplate.url(try Template(SUNTemplate.escaping("https://example.com/t/{n:04}?p={picc}&c={cmac}")))
    return JobContent(rows: rows, template: t, mirror: nil, validation: JobValidation(rows: rows, template: t, mirror: nil))
  }

  @discardableResult
  func run(_ poller: StepTagPoller, ledger: InMemoryLedger) throws -> (ProvisioningEnd, [ProvisionedTag]) {
    _ = try? ledger.importRows(RowsFile.counted(1).rows.map(\.ledgerInput))
    let (desfire, sun) = try jobs()
    let events = Locked<[ProvisionedTag]>([])
    let options = ProvisioningOptions(station: "unit", timeout: 5, sun: sun, desfire: desfire, recordedStatus: { _ in 1 })
    let run = ProvisioningRun(ledger: ledger, content: try content(), options: options) { event in
      if case .tag(let tag) = event { events.withLock { $0.append(tag) } }
    }
    return (run.run(pollers: [poller]), events.withLock { $0 })
  }

  /// The card's keys: each factory (version 00) or the job's (01, and it authenticates): the five
  /// application keys derived from the SDM master key as a 424 DNA's, the PICC master key by AN10922.
  func expectKeys(_ tag: DESFireVirtualTag, done: Bool, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let (desfire, sun) = try jobs()
    let card = DESFireCard(link: DirectDESFireLink(tag))
    let info = try card.getVersion()
    let derived = try SDMKeyDiversification.applicationKeys(master: sun.masterKey, uid: Self.uid)
    var checks: [(DESFireApplicationID, UInt8, DESFireSecretKey, DESFireSecretKey)] = []
    for (n, key) in derived.enumerated() {
      checks.append((.ndefApplication, UInt8(n), try DESFireSecretKey.make(key.packageBytes, kind: .aes, what: "k").get(), .zero(.aes)))
    }
    checks.append((.picc, 0, try desfire.targetKeys(uid: Self.uid).picc, desfire.factoryPICCKey))
    for (aid, number, target, factory) in checks {
      guard (try? card.selectApplication(aid)) != nil else {
        #expect(!done && aid == .ndefApplication, "no application, \(context)", sourceLocation: sourceLocation)
        return
      }
      let version = try card.keyVersion(number)
      #expect(version == 0 || version == 1, "\(aid) key \(number) version \(version), \(context)", sourceLocation: sourceLocation)
      if done { #expect(version == 1, "\(aid) key \(number) not changed, \(context)", sourceLocation: sourceLocation) }
      #expect(throws: Never.self, "\(aid) key \(number) at \(version), \(context)", sourceLocation: sourceLocation) {
        try (version == 1 ? target : factory).authenticate(card, keyNumber: number, version: info)
      }
    }
  }

  /// One tap: an unauthenticated read of the NDEF file, its URL verified with the master key alone.
  func tap(_ tag: DESFireVirtualTag) throws -> SUNMessage {
    let card = DESFireCard(link: DirectDESFireLink(tag))
    try card.selectApplication(.ndefApplication)
    let file = try card.readData(file: 2, offset: 0, length: 200)
    let length = Int(file[0]) << 8 | Int(file[1])
    let message = try NDEFMessage(decoding: Array(file[2..<(2 + length)]))
    let url = try #require(message.records.first.flatMap(URIRecord.init)?.uri)
    #expect(url.hasPrefix("https://example.com/t/0001?p="), "\(url)")
    let (_, sun) = try jobs()
    return try SUNVerification.verify(try SUNURL(parsing: url), keys: .master(try SUNMasterKey(sun.masterKey)))
  }

  func expectFinished(_ tag: DESFireVirtualTag, ledger: InMemoryLedger, _ context: String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
    let records = try ledger.records()
    #expect(records.count == 1 && records.first?.status == .done && records.first?.uid == hexString(Self.uid),
            "ledger, \(context): \(records)", sourceLocation: sourceLocation)
    let progress = records.first?.progress.flatMap(LedgerTagProgress.init(decoding:))
    #expect(progress?.step == "done" && progress?.keyVersions == [1, 1, 1, 1, 1, 1] && progress?.failedAuthentications == []
            && progress?.diversificationVersion == 1 && progress?.counterBaseline != nil,
            "progress, \(context): \(String(describing: progress))", sourceLocation: sourceLocation)
    try expectKeys(tag, done: true, context, sourceLocation: sourceLocation)
    let first = try tap(tag), second = try tap(tag)
    #expect(first.uid == Self.uid, "\(context)", sourceLocation: sourceLocation)
    let baseline = progress?.counterBaseline ?? .max
    #expect(first.readCounter.map(Int.init) ?? 0 > baseline, "above the run's read-back, \(context)", sourceLocation: sourceLocation)
    #expect((second.readCounter ?? 0) == (first.readCounter ?? 0) + 1, "\(context)", sourceLocation: sourceLocation)
  }

  @Test func aFactoryEV3IsFormattedWrittenWithItsSUNAndKeyed() throws {
    let tag = try DESFireVirtualTag(chip: .ev3With8K, uid: Self.uid)
    let ledger = InMemoryLedger()
    let (end, tags) = try run(try StepTagPoller(tag), ledger: ledger)
    #expect(end == .complete, "\(tags)")
    #expect(tags.first?.status == .done, "\(tags)")
    try expectFinished(tag, ledger: ledger, "factory EV3")
  }

  /// The card taken away after each APDU of a factory card's run, then the job run again: every
  /// key factory or the job's in between, and the card finished by the rerun.
  @Test func aRemovalAfterAnyAPDUIsFinishedByARerun() throws {
    let whole = try StepTagPoller(try DESFireVirtualTag(chip: .ev3With8K, uid: Self.uid))
    try run(whole, ledger: InMemoryLedger())
    let total = whole.exchangeCount
    #expect(total > 20)
    for k in 1..<total {
      let tag = try DESFireVirtualTag(chip: .ev3With8K, uid: Self.uid)
      let ledger = InMemoryLedger()
      try run(try StepTagPoller(tag, removeAfter: k), ledger: ledger)
      try expectKeys(tag, done: false, "removed after APDU \(k) of \(total)")
      let committed = try ledger.records().first?.status == .done
      let (_, tags) = try run(try StepTagPoller(tag), ledger: ledger)
      #expect(tags.first?.status == (committed ? nil : .done), "rerun after APDU \(k): \(tags)")
      try expectFinished(tag, ledger: ledger, "removed after APDU \(k) of \(total)")
    }
  }

  /// An application key 0 at version 00 that is not the zero key: the refusal is recorded with the
  /// row, and the next run does not try it again.
  @Test func aRefusedApplicationKeyIsNotTriedAgain() throws {
    // Bound to the card: taken away once the SUN is written, before any key changed.
    var k = 1
    while true {
      let probe = try DESFireVirtualTag(chip: .ev3With8K, uid: Self.uid)
      let probeLedger = InMemoryLedger()
      try run(try StepTagPoller(probe, removeAfter: k), ledger: probeLedger)
      if try probeLedger.records().first?.progress.flatMap(LedgerTagProgress.init(decoding:))?.step == "written" { break }
      k += 1
      try #require(k < 200)
    }
    let tag = try DESFireVirtualTag(chip: .ev3With8K, uid: Self.uid)
    let ledger = InMemoryLedger()
    try run(try StepTagPoller(tag, removeAfter: k), ledger: ledger)
    let card = DESFireCard(link: DirectDESFireLink(tag))
    let info = try card.getVersion()
    try card.selectApplication(.ndefApplication)
    try DESFireSecretKey.zero(.aes).authenticate(card, keyNumber: 0, version: info)
    let other = try DESFireSecretKey.make([UInt8](repeating: 0x5A, count: 16), kind: .aes, what: "k").get()
    try card.changeKey(.application(0), to: other.material, version: 0)
    let (_, first) = try run(try StepTagPoller(tag), ledger: ledger)
    #expect(first.first?.status == .failed, "\(first)")
    let recorded = try ledger.records().first?.progress.flatMap(LedgerTagProgress.init(decoding:))
    #expect(recorded?.failedAuthentications == ["NDEF application key 0 version 00"], "\(String(describing: recorded))")
    let again = try StepTagPoller(tag)
    let (_, second) = try run(again, ledger: ledger)
    #expect(second.first?.status == .failed && second.first?.reason?.contains("not tried again") == true, "\(second)")
    #expect(second.first?.failure.map { if case .step(let f) = $0 { f.kind == .security } else { false } } == true, "\(second)")
  }

  /// An EV3 that shows a random ID: keyed, and its URL verified, by GetCardUID's real UID.
  @Test func aRandomIDEV3IsKeyedAndVerifiedByItsRealUID() throws {
    let tag = try DESFireVirtualTag(chip: .ev3With8K, uid: Self.uid)
    let card = DESFireCard(link: DirectDESFireLink(tag))
    try DESFireSecretKey.zero().authenticate(card, keyNumber: 0, version: try card.getVersion())
    try card.setConfiguration(.randomUID)
    let ledger = InMemoryLedger()
    let (_, tags) = try run(try StepTagPoller(tag), ledger: ledger)
    #expect(tags.first?.status == .done && tags.first?.uid == hexString(Self.uid), "\(tags)")
    #expect(tag.identifier.first == 0x08 && tag.identifier.count == 4, "the card shows a random ID")
    try expectFinished(tag, ledger: ledger, "random ID")
  }

  /// An EV1 or EV2 has no SDM: refused after GetVersion, before any authentication or write, its
  /// row not claimed; the failure is the job's (64), not the card's.
  @Test(arguments: [DESFireChip.ev1With4K, .ev2With4K])
  func anEV1OrEV2IsRefusedBeforeAnyWrite(chip: DESFireChip) throws {
    let tag = try DESFireVirtualTag(chip: chip, uid: Self.uid)
    let ledger = InMemoryLedger()
    let poller = try StepTagPoller(tag)
    let (_, tags) = try run(poller, ledger: ledger)
    #expect(tags.first?.status == .failed, "\(tags)")
    #expect(tags.first?.reason?.contains("SDM needs a MIFARE DESFire EV3") == true, "\(tags)")
    guard case .step(let failure)? = tags.first?.failure else { Issue.record("\(tags)"); return }
    #expect(failure.kind == .notForThisCard)
    #expect(try ledger.records().first?.status == .pending, "no row claimed")
    let card = DESFireCard(link: DirectDESFireLink(tag))
    #expect(throws: DESFireCommandError.self) { try card.selectApplication(.ndefApplication) }
    try card.selectApplication(.picc)
    #expect(try card.keyVersion(0) == 0)
    // Detection, the PICC level's ISO SELECT, GetVersion (3 frames) and the reader's feedback.
    #expect(poller.exchangeCount <= 7, "\(poller.exchangeCount) APDUs")
  }
}
