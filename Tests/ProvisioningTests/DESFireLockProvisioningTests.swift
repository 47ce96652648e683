import DESFire
import DESFireEmulator
import DESFireTag
import Locking
import NFCEmulator
import NFCTags
import NFCTransport
import Provisioning
import ProvisioningLedger
import Testing

/// `provision --lock` onto MIFARE DESFire cards in process, through the simulated ACR122U: after the
/// message is written and read back and the two keys changed, the NDEF file is made read-only for
/// good (write, read&write and change never, read free) and the CC's write access byte FFh (NXP
/// AN11004's read-only state); a card taken away after any APDU is finished by a rerun; a card whose
/// NDEF file the job could not lock is refused before anything is written.
@Suite(.serialized) struct DESFireLockProvisioningTests {
  let base = DESFireProvisioningTests()

  @discardableResult
  func run(_ poller: StepTagPoller, job: DESFireProvisioning, ledger: InMemoryLedger, content: JobContent) -> (ProvisioningEnd, [ProvisionedTag]) {
    _ = try? ledger.importRows(RowsFile.counted(1).rows.map(\.ledgerInput))
    let events = Locked<[ProvisionedTag]>([])
    let options = ProvisioningOptions(station: "unit", lock: true, timeout: 5, desfire: job, recordedStatus: { _ in 1 })
    let run = ProvisioningRun(ledger: ledger, content: content, options: options) { event in
      if case .tag(let tag) = event { events.withLock { $0.append(tag) } }
    }
    return (run.run(pollers: [poller]), events.withLock { $0 })
  }

  /// The NDEF file's rights and the CC's write access byte, read with no key: `lockNDEF` with a
  /// key source that refuses answers "already read-only" only when both are read-only.
  func expectLocked(_ tag: DESFireVirtualTag, _ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let card = DESFireCard(link: DirectDESFireLink(tag))
    try card.selectApplication(.ndefApplication)
    let access = try card.fileSettings(2).access
    #expect(access == DESFireFileAccess(read: 0xE, write: 0xF, readWrite: 0xF, change: 0xF), "\(access), \(context)",
            sourceLocation: sourceLocation)
    let outcome = try card.lockNDEF { _ throws(DESFireCommandError) in throw .invalidArgument("no key: \(context)") }
    #expect(outcome == .alreadyReadOnly, "\(context)", sourceLocation: sourceLocation)
  }

  @Test(arguments: [DESFireSecretKey.Kind.aes, .twoKeyTripleDES])
  func aLockJobLeavesEveryCardReadOnly(kind: DESFireSecretKey.Kind) throws {
    let tag = try DESFireVirtualTag(chip: .ev3With8K, uid: DESFireProvisioningTests.uid)
    let ledger = InMemoryLedger()
    let job = try base.job(kind), content = try base.content()
    let (end, tags) = run(try StepTagPoller(tag), job: job, ledger: ledger, content: content)
    #expect(end == .complete && tags.first?.status == .done, "\(tags)")
    try base.expectFinished(tag, job: job, ledger: ledger, content: content, "lock \(kind)")
    try expectLocked(tag, "lock \(kind)")
  }

  /// The card taken away after each APDU of a lock job's run (between the NDEF file's change and
  /// the CC's among them), then the job run again: the card finished and read-only.
  @Test func aRemovalAfterAnyAPDUIsFinishedByARerun() throws {
    let job = try base.job(.aes), content = try base.content()
    let whole = try StepTagPoller(try DESFireVirtualTag(chip: .ev2With4K, uid: DESFireProvisioningTests.uid))
    run(whole, job: job, ledger: InMemoryLedger(), content: content)
    let total = whole.exchangeCount
    #expect(total > 10)
    for k in 1..<total {
      let tag = try DESFireVirtualTag(chip: .ev2With4K, uid: DESFireProvisioningTests.uid)
      let ledger = InMemoryLedger()
      run(try StepTagPoller(tag, removeAfter: k), job: job, ledger: ledger, content: content)
      let committed = try ledger.records().first?.status == .done
      let (_, tags) = run(try StepTagPoller(tag), job: job, ledger: ledger, content: content)
      #expect(tags.first?.status == (committed ? nil : .done), "rerun after APDU \(k): \(tags)")
      try base.expectFinished(tag, job: job, ledger: ledger, content: content, "removed after APDU \(k) of \(total)")
      try expectLocked(tag, "removed after APDU \(k) of \(total)")
    }
  }

  /// A card whose NDEF file's change right is not key 0 (here never): the job could not lock it,
  /// so nothing is written and no key changed.
  @Test func aCardWhoseNDEFFileCannotBeLockedIsRefusedBeforeAnyWrite() throws {
    let tag = try DESFireVirtualTag(chip: .ev2With4K, uid: DESFireProvisioningTests.uid)
    let card = DESFireCard(link: DirectDESFireLink(tag))
    let version = try card.getVersion()
    _ = try Type4Tag.formatDESFireKnownMissing(card, version: version, options: DESFireNDEFFormatOptions(applicationKeyType: .aes),
                                               authenticate: DESFireSecretKey.zero().authentication)
    try card.selectApplication(.ndefApplication)
    try DESFireSecretKey.zero(.aes).authenticate(card, keyNumber: 0, version: version)
    try card.changeFileSettings(2, communication: .plain, access: DESFireFileAccess(read: 0xE, write: 0xE, readWrite: 0xE, change: 0xF),
                                changeRight: 0)
    let ledger = InMemoryLedger()
    let job = try base.job(.aes), content = try base.content()
    let (_, tags) = run(try StepTagPoller(tag), job: job, ledger: ledger, content: content)
    #expect(tags.first?.status == .failed, "\(tags)")
    #expect(tags.first?.reason?.contains("cannot be made read-only") == true, "\(tags)")
    try card.selectApplication(.ndefApplication)
    #expect(try card.readData(file: 2, offset: 0, length: 2) == [0, 0], "nothing written: NLEN 0000 as the format left it")
    try base.expectKeys(tag, job: job, done: false, "refused")
    let versions = try [DESFireApplicationID.ndefApplication, .picc].map { aid throws -> UInt8 in
      try card.selectApplication(aid)
      return try card.keyVersion(0)
    }
    #expect(versions == [0, 0], "no key changed")
  }
}
