import Locking
import NFCEmulator
import NFCTransport
@testable import NTAG424
import NTAG424Emulator
import NTAG424Tag
import Provisioning
import ProvisioningLedger
import Testing

/// `provision --sdm-url` on the virtual NTAG 424 DNA, in process: a fresh tag is keyed from the
/// master key and its SUN verified; a tag taken away after any APDU is finished by a rerun, each
/// key changed from the value it holds, and no authentication ever fails; the exchanges per tag
/// are pinned.
@Suite(.serialized) struct SUNProvisioningTests {
  static let uid: [UInt8] = [0x04, 0x5A, 0x11, 0x22, 0x33, 0x44, 0x80]
  static let master = try! AESKey(bytes: (0..<16).map { UInt8($0 * 17 & 0xFF) })
  static let template = "https://example.com/t/{n:04}?p={picc}&c={cmac}"

  init() { NTAG424Emulator.register() }

  func content(_ source: String = template) throws -> JobContent {
    let rows = RowsFile.counted(1)
    let t = MessageTemplate.url(try Template(SUNTemplate.escaping(source)))
    return JobContent(rows: rows, template: t, mirror: nil, validation: JobValidation(rows: rows, template: t, mirror: nil))
  }

  /// Runs the job once over `poller`; returns the end and the tag events.
  @discardableResult
  func run(_ poller: StepTagPoller, lock: Bool = false, ledger: InMemoryLedger, job: JobContent) -> (ProvisioningEnd, [ProvisionedTag]) {
    _ = try? ledger.importRows(RowsFile.counted(1).rows.map(\.ledgerInput))
    let events = Locked<[ProvisionedTag]>([])
    let options = ProvisioningOptions(station: "unit", lock: lock, timeout: 5, sun: SUNProvisioning(masterKey: Self.master, lock: lock),
                                      recordedStatus: { _ in 1 })
    let run = ProvisioningRun(ledger: ledger, content: job, options: options) { event in
      if case .tag(let tag) = event { events.withLock { $0.append(tag) } }
    }
    let end = run.run(pollers: [poller])
    return (end, events.withLock { $0 })
  }

  /// Every key holds its derived value with the scheme's version, no authentication failed, the
  /// NDEF file has SDM on (and is locked with `lock`), and the ledger says done.
  func expectFinished(_ tag: NTAG424DNAVirtualTag, lock: Bool, ledger: InMemoryLedger, _ context: String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
    let keys = try SDMKeyDiversification.applicationKeys(master: Self.master, uid: Self.uid)
    for number in 0..<5 {
      #expect(tag.keyVersion(number) == SDMKeyDiversification.keyVersion, "key \(number)'s version, \(context)", sourceLocation: sourceLocation)
      #expect(tag.keyEquals(number, keys[number].bytes), "key \(number), \(context)", sourceLocation: sourceLocation)
      #expect(tag.failedAuthenticationCounter(key: number) == 0, "failed authentications with key \(number), \(context)", sourceLocation: sourceLocation)
    }
    let record = try ledger.records().first
    #expect(record?.status == .done && record?.uid == hexString(Self.uid), "ledger, \(context)", sourceLocation: sourceLocation)
    // The ledger's progress: done, every key at the scheme's version, the counter the run read.
    let progress = try #require(record?.progress.flatMap(LedgerTagProgress.init(decoding:)), "progress, \(context)", sourceLocation: sourceLocation)
    #expect(progress.step == "done" && progress.keyVersions == [1, 1, 1, 1, 1] && progress.diversificationVersion == 1,
            "progress \(progress), \(context)", sourceLocation: sourceLocation)
    #expect(progress.counterBaseline.map(UInt32.init) == tag.readCounter(file: 2), "baseline, \(context)", sourceLocation: sourceLocation)
    #expect(progress.failedAuthentications.isEmpty, "\(context)", sourceLocation: sourceLocation)
    let read = try NTAG424FileSettingsProbe.ndefSettings(of: tag)
    let settings = try #require(read, sourceLocation: sourceLocation)
    #expect(settings.sdm != nil, "SDM on, \(context)", sourceLocation: sourceLocation)
    #expect((settings.accessRights.write == .never) == lock, "write access, \(context)", sourceLocation: sourceLocation)
  }

  @Test(arguments: [false, true])
  func aFreshTagIsKeyedWrittenAndVerified(lock: Bool) throws {
    let tag = try NTAG424DNAVirtualTag(uid: Self.uid)
    let ledger = InMemoryLedger()
    let (end, tags) = run(try StepTagPoller(tag), lock: lock, ledger: ledger, job: try content())
    #expect(end == .complete, "\(tags)")
    #expect(tags.first?.status == .done, "\(tags)")
    try expectFinished(tag, lock: lock, ledger: ledger, "lock \(lock)")
  }

  /// A tag taken away after each APDU in turn, then the same job again: the rerun reads the key
  /// versions, authenticates with the key 0 the tag holds (never a failed attempt) and finishes it.
  @Test(arguments: [false, true])
  func aTagTakenAwayAfterAnyAPDUIsFinishedByARerun(lock: Bool) throws {
    let job = try content()
    let whole = try StepTagPoller(try NTAG424DNAVirtualTag(uid: Self.uid))
    run(whole, lock: lock, ledger: InMemoryLedger(), job: job)
    let total = whole.exchangeCount
    #expect(total >= 13)
    for k in 1..<total {
      let tag = try NTAG424DNAVirtualTag(uid: Self.uid)
      let ledger = InMemoryLedger()
      run(try StepTagPoller(tag, removeAfter: k), lock: lock, ledger: ledger, job: job)
      let (end, tags) = run(try StepTagPoller(tag), lock: lock, ledger: ledger, job: job)
      #expect(end == .complete, "taken away after APDU \(k) of \(total): \(tags)")
      try expectFinished(tag, lock: lock, ledger: ledger, "lock \(lock), taken away after APDU \(k) of \(total)")
    }
  }

  /// A tag whose key 0 has a version this scheme never writes is refused before any
  /// authentication: the run does not guess a key.
  @Test func aKeyOfAnotherSchemeIsNotGuessed() throws {
    let tag = try NTAG424DNAVirtualTag(uid: Self.uid)
    let other = try AESKey(bytes: [UInt8](repeating: 0x5A, count: 16))
    try NTAG424FileSettingsProbe.changeKey0(of: tag, to: other, version: 7)
    let ledger = InMemoryLedger()
    let (_, tags) = run(try StepTagPoller(tag), ledger: ledger, job: try content())
    #expect(tags.first?.status == .failed)
    #expect(tags.first?.reason?.contains("key 0 has version 07") == true, "\(tags)")
    #expect(tag.failedAuthenticationCounter(key: 0) == 0)
    #expect(try ledger.records().first?.status == .pending, "nothing was written: the row is given back")
  }

  /// A key 0 that the tag refuses (another system keyed it with the scheme's version, another
  /// master) fails once; the ledger records it, and a rerun does not try it again.
  @Test func aKeyThatFailedIsNeverTriedAgain() throws {
    let tag = try NTAG424DNAVirtualTag(uid: Self.uid)
    try NTAG424FileSettingsProbe.changeKey0(of: tag, to: try AESKey(bytes: [UInt8](repeating: 0xA5, count: 16)), version: 1)
    let ledger = InMemoryLedger()
    let job = try content()
    let (_, first) = run(try StepTagPoller(tag), ledger: ledger, job: job)
    #expect(first.first?.status == .failed, "\(first)")
    #expect(tag.failedAuthenticationCounter(key: 0) == 1)
    let record = try #require(try ledger.records().first)
    #expect(record.status == .failed && record.uid == hexString(Self.uid), "the row stays bound to the tag")
    #expect(record.progress.flatMap(LedgerTagProgress.init(decoding:))?.failedAuthentications == ["key 0 version 01"])
    for _ in 0..<2 {
      let (_, again) = run(try StepTagPoller(tag), ledger: ledger, job: job)
      #expect(again.first?.status == .failed)
      #expect(again.first?.reason?.contains("not tried again") == true, "\(again)")
      #expect(tag.failedAuthenticationCounter(key: 0) == 1, "no second attempt")
    }
  }

  /// The steps the ledger records on the way: written, then keys 4/5, then done.
  @Test func theLedgerFollowsTheSteps() throws {
    final class Recording: @unchecked Sendable { var steps: [String] = [] }
    let seen = Recording()
    let job = try content()
    for k in 1..<15 {
      let tag = try NTAG424DNAVirtualTag(uid: Self.uid)
      let ledger = InMemoryLedger()
      run(try StepTagPoller(tag, removeAfter: k), ledger: ledger, job: job)
      if let text = try ledger.records().first?.progress, let progress = LedgerTagProgress(decoding: text) {
        seen.steps.append(progress.step)
        if progress.step == "keys 4/5" { #expect(progress.keyVersions == [0, 1, 1, 1, 1]) }
      }
    }
    #expect(Set(seen.steps) == ["written", "keys 4/5"], "\(seen.steps)")
  }

  /// Exchanges per tag: detection (2) and the LED command (1, docs/provisioning.md) around the 424
  /// DNA's 13 (select, GetKeyVersion, authentication ×2, WriteData, ChangeFileSettings, ChangeKey
  /// ×5, select, ReadData).
  @Test func exchangesPerTagArePinned() throws {
    let poller = try StepTagPoller(try NTAG424DNAVirtualTag(uid: Self.uid))
    let (end, _) = run(poller, ledger: InMemoryLedger(), job: try content())
    #expect(end == .complete)
    let ms = Double(poller.modelledMicroseconds) / 1000
    print("NTAG 424 DNA --sdm-url: \(poller.exchangeCount) APDUs, \(Int(ms.rounded())) ms, \(Int((60_000 / ms).rounded())) tags/min")
    #expect(poller.exchangeCount == SUNProvisioningTests.pinnedExchanges, "\(poller.exchangeCount) APDUs")
  }
  static let pinnedExchanges = 16

  @Test func sdmPlaceholdersSurviveTheRowTemplate() throws {
    let escaped = SUNTemplate.escaping("https://e.com/{id}/{{x}}?p={picc}&e={enc:32}&c={cmac}&u={uid}")
    #expect(escaped == "https://e.com/{id}/{{x}}?p=%7bpicc%7d&e=%7benc:32%7d&c=%7bcmac%7d&u={uid}")
    #expect(SUNTemplate.restoring("https://e.com/a%7Bpicc%7D/?p=%7bpicc%7d&q=%7bother%7d")
            == "https://e.com/a%7Bpicc%7D/?p={picc}&q=%7bother%7d")
    // A row value `{picc}` is encoded in uppercase hex: it stays text, never a placeholder.
    let rows = RowsFile.counted(1)
    let t = MessageTemplate.url(try Template(SUNTemplate.escaping("https://e.com/{n}?p={picc}&c={cmac}")))
    let job = JobContent(rows: rows, template: t, mirror: nil, validation: JobValidation(rows: rows, template: t, mirror: nil))
    let url = try SUNProvisioning.urlTemplate(of: try job.render(rowID: "1", sequence: 1, uid: Self.uid))
    #expect(url == "https://e.com/1?p={picc}&c={cmac}")
  }

  /// The job's template is checked by `sdm setup`'s rule before any row,
  /// each row placeholder standing for a value wherever it is (host, path, a parameter).
  @Test func theTemplateIsCheckedByTheSetupRule() throws {
    let parameters = try SUNTemplate.check("https://{sku}.e.com/{id}/{n:04}?u={uid}&sig={picc}&m={cmac}")
    #expect(parameters.piccData == "sig" && parameters.mac == "m" && parameters.fileData == nil)
    // {enc:N:COLUMN}: the row's value, rendered percent-encoded, back out for the planner.
    #expect(try SUNTemplate.check("https://e.com/?p={picc}&e={enc:32:serial}&c={cmac}").fileData == "e")
    let escaped = SUNTemplate.escaping("https://e.com/?p={picc}&e={enc:32:serial}&c={cmac}")
    #expect(escaped == "https://e.com/?p=%7bpicc%7d&e=%7benc:32={serial}%7d&c=%7bcmac%7d")
    let restored = SUNTemplate.restoring("https://e.com/?p=%7bpicc%7d&e=%7benc:32=a%7D%20b%7d&c=%7bcmac%7d")
    #expect(restored == "https://e.com/?p={picc}&e={enc:32=a%7D%20b}&c={cmac}")
    let split = try SUNTemplate.fileData(in: restored)
    #expect(split.template == "https://e.com/?p={picc}&e={enc:32}&c={cmac}" && split.fileData == "a} b")
    for (template, why) in [("https://e.com/{id}?p={picc}", "{picc} needs {cmac}"),
                            ("https://e.com/{id}?p={id}{picc}&c={cmac}", "the whole value"),
                            ("https://e.com/{picc}?c={cmac}", "in the path or host"),
                            ("https://e.com/?p={picc}&e={enc:32}&c={cmac}", "{enc:N:COLUMN}")] {
      #expect(throws: SUNTemplateError.self, "\(template)") { try SUNTemplate.check(template) }
      do { _ = try SUNTemplate.check(template) } catch { #expect(error.description.contains(why), "\(template): \(error)") }
    }
  }

  @Test func theFiveKeysFollowTheDocumentedInputs() throws {
    let keys = try SDMKeyDiversification.applicationKeys(master: Self.master, uid: Self.uid)
    #expect(keys.count == 5)
    #expect(keys[2].bytes == (try SDMKeyDiversification.metaReadKey(master: Self.master)).bytes)
    #expect(keys[1].bytes == (try SDMKeyDiversification.fileReadKey(master: Self.master, uid: Self.uid)).bytes)
    #expect(keys[0].bytes == (try KeyDiversification.aes128(master: Self.master, input: Self.uid + Array("nfctag/app-key-0/v1".utf8))).bytes)
    #expect(Set(keys.map { hexString($0.bytes) }).count == 5, "five different keys")
    let otherTag = try SDMKeyDiversification.applicationKeys(master: Self.master, uid: [0x04, 1, 2, 3, 4, 5, 6])
    #expect(otherTag[2].bytes == keys[2].bytes, "the meta-read key does not depend on the UID")
    #expect(otherTag[1].bytes != keys[1].bytes && otherTag[0].bytes != keys[0].bytes)
  }
}

/// The virtual tag's settings and keys through the host's own commands, straight to the tag.
enum NTAG424FileSettingsProbe {
  /// APDUs straight to the virtual tag's ISO-DEP layer.
  final class DirectLink: Transceiver {
    let tag: NTAG424DNAVirtualTag
    init(_ tag: NTAG424DNAVirtualTag) { self.tag = tag }
    var capabilities: LinkCapabilities { LinkCapabilities(maxResponseLength: 250, maxCommandLength: 250, rawCommands: true) }
    func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
      guard case .data(let answer) = tag.respond(to: command) else { throw .tagRemoved }
      return answer
    }
  }

  /// GetFileSettings of the NDEF file, without a key.
  static func ndefSettings(of tag: NTAG424DNAVirtualTag) throws -> FileSettings? {
    tag.reset()
    let host = NTAG424DNA(link: DirectLink(tag))
    try host.selectApplication()
    return try host.fileSettings(file: NativeCommand.ndefFile).settings
  }

  /// Key 0 changed from the factory key, as another system's provisioning would.
  static func changeKey0(of tag: NTAG424DNAVirtualTag, to key: AESKey, version: UInt8) throws {
    tag.reset()
    let host = NTAG424DNA(link: DirectLink(tag))
    try host.selectApplication()
    try host.authenticate(keyNumber: 0, key: .factory)
    try host.changeKey(keyNumber: 0, to: key, version: version)
    tag.reset()
  }
}
