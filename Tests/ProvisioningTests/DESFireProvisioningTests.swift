import DESFire
import DESFireEmulator
import DESFireTag
import Locking
import NFCEmulator
import NFCTags
import NFCTransport
import NTAG424
import Provisioning
import ProvisioningLedger
import Testing

/// A virtual DESFire reached directly (no reader), to check what a run left on it.
final class DirectDESFireLink: Transceiver {
  let tag: DESFireVirtualTag
  init(_ tag: DESFireVirtualTag) { self.tag = tag; tag.reset() }
  var capabilities: LinkCapabilities { .init(maxResponseLength: 256, maxCommandLength: 250, rawCommands: true) }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard case .data(let answer) = tag.respond(to: command) else { return [] }
    return answer
  }
}

/// `provision` onto MIFARE DESFire cards in process, through the simulated ACR122U: a factory card
/// is given AN11004's NDEF application, its row's message and its two keys (the NDEF
/// application's key 0 and the PICC master key) diversified from the master key by AN10922 from
/// its real UID; a card taken away after any APDU is finished by a rerun, never authenticated
/// with a key that failed on it.
@Suite(.serialized) struct DESFireProvisioningTests {
  static let uid: [UInt8] = [0x04, 0x51, 0x62, 0x73, 0x84, 0x95, 0xA6]
  static let masterBytes: [UInt8] = (0..<24).map { UInt8($0 * 7 + 3) }

  init() { DESFireEmulator.register() }

  static func key(_ bytes: [UInt8], _ kind: DESFireSecretKey.Kind) throws -> DESFireSecretKey {
    try DESFireSecretKey.make(bytes, kind: kind, what: "test key").get()
  }

  func job(_ kind: DESFireSecretKey.Kind, factory: DESFireSecretKey = .zero()) throws -> DESFireProvisioning {
    let master = try Self.key(Array(Self.masterBytes.prefix(kind == .threeKeyTripleDES ? 24 : 16)), kind)
    return DESFireProvisioning(keyType: kind, keys: .diversified(master: master), factoryPICCKey: factory)
  }

  func content(rows: Int = 1) throws -> JobContent {
    let rowsFile = RowsFile.counted(rows)
    let t = MessageTemplate.url(try Template("https://example.com/d/{n:04}?u={uid}"))
    return JobContent(rows: rowsFile, template: t, mirror: nil, validation: JobValidation(rows: rowsFile, template: t, mirror: nil))
  }

  @discardableResult
  func run(_ poller: StepTagPoller, job: DESFireProvisioning, ledger: InMemoryLedger, content: JobContent) -> (ProvisioningEnd, [ProvisionedTag]) {
    _ = try? ledger.importRows(RowsFile.counted(1).rows.map(\.ledgerInput))
    let events = Locked<[ProvisionedTag]>([])
    let options = ProvisioningOptions(station: "unit", timeout: 5, desfire: job, recordedStatus: { _ in 1 })
    let run = ProvisioningRun(ledger: ledger, content: content, options: options) { event in
      if case .tag(let tag) = event { events.withLock { $0.append(tag) } }
    }
    return (run.run(pollers: [poller]), events.withLock { $0 })
  }

  /// The card's keys: each one factory (version 00) or this job's (version 01, and it
  /// authenticates); both the job's when `done`.
  func expectKeys(_ tag: DESFireVirtualTag, job: DESFireProvisioning, done: Bool, _ context: String,
                  sourceLocation: SourceLocation = #_sourceLocation) throws {
    let card = DESFireCard(link: DirectDESFireLink(tag))
    let info = try card.getVersion()
    let keys = try job.targetKeys(uid: Self.uid)
    for (aid, target, factory) in [(DESFireApplicationID.ndefApplication, keys.application, job.factoryApplicationKey),
                                   (.picc, keys.picc, job.factoryPICCKey)] {
      guard (try? card.selectApplication(aid)) != nil else {
        #expect(!done && aid == .ndefApplication, "no application, \(context)", sourceLocation: sourceLocation)
        continue
      }
      let version = try card.keyVersion(0)
      #expect(version == 0 || version == 1, "\(aid) key version \(version), \(context)", sourceLocation: sourceLocation)
      if done { #expect(version == 1, "\(aid) key not changed, \(context)", sourceLocation: sourceLocation) }
      try card.selectApplication(aid)
      #expect(throws: Never.self, "\(aid) key \(version), \(context)", sourceLocation: sourceLocation) {
        try (version == 1 ? target : factory).authenticate(card, keyNumber: 0, version: info)
      }
    }
  }

  /// The NDEF message in the card's NDEF file (AN11004: file 02h, NLEN first).
  func message(on tag: DESFireVirtualTag) throws -> [UInt8] {
    let card = DESFireCard(link: DirectDESFireLink(tag))
    try card.selectApplication(.ndefApplication)
    let head = try card.readData(file: 2, offset: 0, length: 2)
    let length = Int(head.first ?? 0) << 8 | Int(head.last ?? 0)
    return try card.readData(file: 2, offset: 2, length: length)
  }

  func expectFinished(_ tag: DESFireVirtualTag, job: DESFireProvisioning, ledger: InMemoryLedger, content: JobContent, _ context: String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
    let expected = try content.render(rowID: "1", sequence: 1, uid: Self.uid)
    #expect(try message(on: tag) == expected.bytes, "message, \(context)", sourceLocation: sourceLocation)
    let records = try ledger.records()
    #expect(records.count == 1 && records.first?.status == .done && records.first?.uid == hexString(Self.uid),
            "ledger, \(context): \(records)", sourceLocation: sourceLocation)
    let progress = records.first?.progress.flatMap(LedgerTagProgress.init(decoding:))
    #expect(progress?.step == "done" && progress?.keyVersions == [1, 1] && progress?.failedAuthentications == [],
            "progress, \(context): \(String(describing: progress))", sourceLocation: sourceLocation)
    try expectKeys(tag, job: job, done: true, context, sourceLocation: sourceLocation)
  }

  static let cases: [(DESFireChip, DESFireSecretKey.Kind)] = [
    (.ev1With4K, .aes), (.ev1With4K, .twoKeyTripleDES), (.ev2With4K, .aes), (.ev2With4K, .threeKeyTripleDES), (.ev3With8K, .aes),
  ]

  @Test(arguments: cases.indices)
  func aFactoryCardIsFormattedWrittenAndKeyed(index: Int) throws {
    let (chip, kind) = Self.cases[index]
    let tag = try DESFireVirtualTag(chip: chip, uid: Self.uid)
    let ledger = InMemoryLedger()
    let job = try job(kind), content = try content()
    let (end, tags) = run(try StepTagPoller(tag), job: job, ledger: ledger, content: content)
    #expect(end == .complete, "\(tags)")
    #expect(tags.first?.status == .done, "\(tags)")
    try expectFinished(tag, job: job, ledger: ledger, content: content, "\(chip.productName) \(kind)")
  }

  /// The card taken away after each APDU of a factory card's run, then the job run again: every
  /// key factory or the job's in between, the card finished by the rerun, and no key that failed
  /// (the ledger records every refused authentication with the row).
  @Test(arguments: [DESFireSecretKey.Kind.aes, .twoKeyTripleDES])
  func aRemovalAfterAnyAPDUIsFinishedByARerun(kind: DESFireSecretKey.Kind) throws {
    let job = try job(kind), content = try content()
    let whole = try StepTagPoller(try DESFireVirtualTag(chip: .ev2With4K, uid: Self.uid))
    run(whole, job: job, ledger: InMemoryLedger(), content: content)
    let total = whole.exchangeCount
    #expect(total > 10)
    for k in 1..<total {
      let tag = try DESFireVirtualTag(chip: .ev2With4K, uid: Self.uid)
      let ledger = InMemoryLedger()
      run(try StepTagPoller(tag, removeAfter: k), job: job, ledger: ledger, content: content)
      try expectKeys(tag, job: job, done: false, "removed after APDU \(k) of \(total)")
      let committed = try ledger.records().first?.status == .done
      let (_, tags) = run(try StepTagPoller(tag), job: job, ledger: ledger, content: content)
      // Removed after the commit (the reader's feedback): the job is done, the rerun has no row left.
      #expect(tags.first?.status == (committed ? nil : .done), "rerun after APDU \(k): \(tags)")
      try expectFinished(tag, job: job, ledger: ledger, content: content, "removed after APDU \(k) of \(total)")
    }
  }

  /// A factory key that the card refuses is recorded with the row and not tried again.
  @Test func aRefusedKeyIsNotTriedAgain() throws {
    let tag = try DESFireVirtualTag(chip: .ev1With4K, uid: Self.uid)
    let ledger = InMemoryLedger()
    let good = try job(.aes), content = try content()
    // Bound to the card: taken away once the message is written, before any key changed.
    var k = 1
    while true {
      let probe = try DESFireVirtualTag(chip: .ev1With4K, uid: Self.uid)
      let probeLedger = InMemoryLedger()
      run(try StepTagPoller(probe, removeAfter: k), job: good, ledger: probeLedger, content: content)
      if try probeLedger.records().first?.progress.flatMap(LedgerTagProgress.init(decoding:))?.step == "written" { break }
      k += 1
      try #require(k < 200)
    }
    run(try StepTagPoller(tag, removeAfter: k), job: good, ledger: ledger, content: content)
    // 8 bytes whose parity bits read as version 00, but not the card's key.
    let wrong = try job(.aes, factory: try Self.key([UInt8](repeating: 0x10, count: 8), .des))
    let (_, first) = run(try StepTagPoller(tag), job: wrong, ledger: ledger, content: content)
    #expect(first.first?.status == .failed, "\(first)")
    let recorded = try ledger.records().first?.progress.flatMap(LedgerTagProgress.init(decoding:))
    #expect(recorded?.failedAuthentications == ["PICC master key version 00"], "\(String(describing: recorded))")
    let again = try StepTagPoller(tag)
    let (_, second) = run(again, job: wrong, ledger: ledger, content: content)
    #expect(second.first?.status == .failed)
    #expect(second.first?.reason?.contains("not tried again") == true, "\(second)")
    // Detection, the PICC level's ISO SELECT, GetVersion (3 frames), SelectApplication, GetKeyVersion
    // and the reader's feedback: no Authenticate (2 APDUs more).
    #expect(again.exchangeCount <= 9, "\(again.exchangeCount) APDUs")
  }

  /// A card that shows a random ID (08h and 3 random bytes): the row is claimed by GetCardUID's
  /// real UID, and its keys are diversified from it, never from the ID it showed.
  @Test func aRandomIDCardIsKeyedByItsRealUID() throws {
    let tag = try DESFireVirtualTag(chip: .ev3With8K, uid: Self.uid)
    let card = DESFireCard(link: DirectDESFireLink(tag))
    try DESFireSecretKey.zero().authenticate(card, keyNumber: 0, version: try card.getVersion())
    try card.setConfiguration(.randomUID)
    let ledger = InMemoryLedger()
    let job = try job(.aes), content = try content()
    let poller = try StepTagPoller(tag)
    let (_, tags) = run(poller, job: job, ledger: ledger, content: content)
    #expect(tags.first?.status == .done, "\(tags)")
    #expect(tag.identifier.first == 0x08 && tag.identifier.count == 4, "the card shows a random ID")
    #expect(tags.first?.uid == hexString(Self.uid), "the event names the real UID: \(tags)")
    try expectFinished(tag, job: job, ledger: ledger, content: content, "random ID")
  }

  /// Fixed keys (`--desfire-keys-file`): every card gets the same two keys, a DES-family key with
  /// its parity bits set to version 01.
  @Test(arguments: [DESFireSecretKey.Kind.aes, .threeKeyTripleDES])
  func fixedKeysAreWrittenWithTheJobsVersion(kind: DESFireSecretKey.Kind) throws {
    let length = kind == .threeKeyTripleDES ? 24 : 16
    let picc = try Self.key((0..<length).map { UInt8($0 * 3 + 1) }, kind)
    let application = try Self.key((0..<length).map { UInt8($0 * 5 + 2) }, kind)
    let job = DESFireProvisioning(keyType: kind, keys: .fixed(picc: picc, application: application))
    let tag = try DESFireVirtualTag(chip: .ev2With4K, uid: Self.uid)
    let ledger = InMemoryLedger(), content = try content()
    let (_, tags) = run(try StepTagPoller(tag), job: job, ledger: ledger, content: content)
    #expect(tags.first?.status == .done, "\(tags)")
    try expectFinished(tag, job: job, ledger: ledger, content: content, "fixed \(kind)")
    let keys = try job.targetKeys(uid: [0x04, 0, 0, 0, 0, 0, 1])
    #expect(DESFireProvisioning.version(of: keys.picc) == (kind == .aes ? 0 : 1), "a DES-family key's version is its parity bits")
  }
}
