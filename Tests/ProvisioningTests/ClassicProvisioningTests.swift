import Locking
import NFCEmulator
import NFCTags
import NFCTransport
import Provisioning
import ProvisioningLedger
import Testing

/// `provision` on MIFARE Classic cards in process, through the simulated ACR122U: a factory card
/// is formatted (MAD and NDEF sectors) and then written; a card taken away after any APDU, in the
/// format or after it, is finished by a rerun of the job, and the ledger never says done for a
/// card that does not hold its row's message.
@Suite struct ClassicProvisioningTests {
  static let uid: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]

  func content(lock: Bool = false) throws -> JobContent {
    let rows = RowsFile.counted(1)
    let t = MessageTemplate.url(try Template("https://example.com/classic/{n:06}?u={uid}"))
    return JobContent(rows: rows, template: t, mirror: nil, validation: JobValidation(rows: rows, template: t, mirror: nil))
  }

  @discardableResult
  func run(_ poller: StepTagPoller, lock: Bool = false, ledger: InMemoryLedger, job: JobContent) -> (ProvisioningEnd, [ProvisionedTag]) {
    _ = try? ledger.importRows(RowsFile.counted(1).rows.map(\.ledgerInput))
    let events = Locked<[ProvisionedTag]>([])
    let options = ProvisioningOptions(station: "unit", lock: lock, timeout: 5, recordedStatus: { _ in 1 })
    let run = ProvisioningRun(ledger: ledger, content: job, options: options) { event in
      if case .tag(let tag) = event { events.withLock { $0.append(tag) } }
    }
    return (run.run(pollers: [poller]), events.withLock { $0 })
  }

  /// The message in the card's NDEF area, read from its memory through the MAD (nil when the MAD
  /// or the area is not whole), and whether every NDEF sector's trailer is AN1304's.
  func ndef(in tag: MIFAREClassicVirtualTag) -> (message: [UInt8]?, trailersRight: Bool) {
    let m = tag.memoryImage
    let chip = tag.chip
    func block(_ b: Int) -> [UInt8] { Array(m[(b * 16)..<(b * 16 + 16)]) }
    let mad = try? MIFAREApplicationDirectory.decode(
      generalPurposeByte: block(3)[9], sector0: block(1) + block(2),
      sector16: chip == .classic4K ? block(64) + block(65) + block(66) : nil)
    guard let mad, let area = try? MIFAREClassicNDEFArea(chip: chip, mad: mad) else { return (nil, false) }
    let expectedSectors = (0..<chip.sectorCount).filter { $0 != 0 && !(chip == .classic4K && $0 == 16) }
    let trailersRight = area.sectors == expectedSectors && area.sectors.allSatisfy { sector in
      let trailer = block(chip.trailer(of: sector))
      return Array(trailer[0..<6]) == MIFAREClassicNDEF.publicKeyA && trailer[9] >> 4 == 0x4
    }
    return (try? area.message(in: area.blocks.flatMap(block)), trailersRight)
  }

  func expectFinished(_ tag: MIFAREClassicVirtualTag, job: JobContent, ledger: InMemoryLedger, _ context: String,
                      sourceLocation: SourceLocation = #_sourceLocation) throws {
    let expected = try job.render(rowID: "1", sequence: 1, uid: Self.uid)
    let (message, trailersRight) = ndef(in: tag)
    #expect(message == expected.bytes, "message, \(context)", sourceLocation: sourceLocation)
    #expect(trailersRight, "NDEF sectors, \(context)", sourceLocation: sourceLocation)
    let records = try ledger.records()
    #expect(records.count == 1 && records.first?.status == .done && records.first?.messageHex == expected.hex
            && records.first?.uid == hexString(Self.uid), "ledger, \(context): \(records)", sourceLocation: sourceLocation)
  }

  @Test(arguments: MIFAREClassicChip.allCases)
  func aFactoryCardIsFormattedThenWritten(chip: MIFAREClassicChip) throws {
    let tag = try MIFAREClassicVirtualTag(chip: chip, uid: Self.uid)
    #expect(ndef(in: tag).message == nil)
    let ledger = InMemoryLedger()
    let job = try content()
    let (end, tags) = run(try StepTagPoller(tag), ledger: ledger, job: job)
    #expect(end == .complete, "\(tags)")
    #expect(tags.first?.status == .done, "\(tags)")
    try expectFinished(tag, job: job, ledger: ledger, "\(chip)")
  }

  /// A formatted card is not formatted again: the run writes the message only (fewer APDUs than
  /// on a factory card, and the sectors past the message untouched); the APDUs per card pinned.
  @Test func aFormattedCardIsOnlyWritten() throws {
    let factory = try StepTagPoller(try MIFAREClassicVirtualTag(chip: .classic1K, uid: Self.uid))
    run(factory, ledger: InMemoryLedger(), job: try content())
    let tag = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: Self.uid)
    let generation = tag.memoryGeneration
    let formatted = try StepTagPoller(tag)
    let ledger = InMemoryLedger()
    let job = try content()
    #expect(run(formatted, ledger: ledger, job: job).0 == .complete)
    try expectFinished(tag, job: job, ledger: ledger, "formatted 1K")
    // The message fits in sector 1: one TLV length, the data, the length again.
    #expect(tag.memoryGeneration - generation <= 4, "\(tag.memoryGeneration - generation) blocks written")
    #expect(formatted.exchangeCount < factory.exchangeCount / 2, "\(formatted.exchangeCount) vs \(factory.exchangeCount) APDUs")
    // Pinned (docs/performance.md): detection to the LED command (docs/provisioning.md), a 42-byte
    // URL message on a 1K (the factory card's 142 include the 32 of the format's check that
    // every sector opens before its first write); the formatted card's 27 include the 6 of the format check (sector 0,
    // the last NDEF trailer), whose reads of sector 0 the status query and the write reuse (36
    // when each read it again). The write reads only the block it does not fill (the Terminator's).
    #expect(factory.exchangeCount == 142)
    #expect(formatted.exchangeCount == 27)
  }

  /// With `--lock` the card ends read-only in AN1305's form: every NDEF and MAD trailer `07 8F 0F`.
  @Test func lockMakesTheFormattedCardReadOnly() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: Self.uid)
    let ledger = InMemoryLedger()
    let job = try content()
    #expect(run(try StepTagPoller(tag), lock: true, ledger: ledger, job: job).0 == .complete)
    try expectFinished(tag, job: job, ledger: ledger, "locked")
    for sector in 0..<16 {
      #expect(tag.storedBlock(MIFAREClassicChip.classic1K.trailer(of: sector)).map { Array($0[6..<9]) } == MIFAREClassicNDEF.accessReadOnly,
              "sector \(sector)")
    }
  }

  /// The card taken away after each APDU in turn (detection, the format's check, every sector of
  /// the format, the write, the read-back), then the same job again: the rerun finishes it. After
  /// the first run the ledger binds the row to the card once the card was changed, and says done
  /// only for a card that holds the message.
  @Test(arguments: [MIFAREClassicChip.mini, .classic1K, .classic4K])
  func aCardTakenAwayAfterAnyStepIsFinishedByARerun(chip: MIFAREClassicChip) throws {
    let job = try content()
    let expected = try job.render(rowID: "1", sequence: 1, uid: Self.uid)
    let whole = try StepTagPoller(try MIFAREClassicVirtualTag(chip: chip, uid: Self.uid))
    run(whole, ledger: InMemoryLedger(), job: job)
    let total = whole.exchangeCount
    #expect(total > chip.sectorCount * 2)
    for k in 1..<total {
      let tag = try MIFAREClassicVirtualTag(chip: chip, uid: Self.uid)
      let factoryImage = tag.memoryImage
      let ledger = InMemoryLedger()
      run(try StepTagPoller(tag, removeAfter: k), ledger: ledger, job: job)
      let context = "\(chip), taken away after APDU \(k) of \(total)"
      let after = try ledger.records()
      if tag.memoryImage != factoryImage {
        #expect(after.first?.uid == hexString(Self.uid), "the changed card's row, \(context): \(after)")
      }
      if after.first?.status == .done {
        #expect(ndef(in: tag).message == expected.bytes, "done but not written, \(context)")
      }
      let (end, tags) = run(try StepTagPoller(tag), ledger: ledger, job: job)
      #expect(end == .complete, "\(context): \(tags)")
      try expectFinished(tag, job: job, ledger: ledger, context)
    }
  }
}

extension ClassicProvisioningTests {
  /// A factory 1K whose sector `sector` is behind keys none of the lists hold (both keys A and B).
  func factoryCard(closing sector: Int) throws -> MIFAREClassicVirtualTag {
    let secret: [UInt8] = [0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF]
    var image = try MIFAREClassicVirtualTag(chip: .classic1K, uid: Self.uid).memoryImage
    let trailer = MIFAREClassicChip.classic1K.trailer(of: sector) * 16
    image.replaceSubrange(trailer ..< trailer + 6, with: secret)
    image.replaceSubrange(trailer + 10 ..< trailer + 16, with: secret)
    return try MIFAREClassicVirtualTag(chip: .classic1K, image: image, uid: Self.uid)
  }

  /// Provisions ``factoryCard(closing:)`` with `sector` closed: the card, its image before, the
  /// tag's outcome (failed, naming the sector) and the ledger's rows after.
  func provisionClosing(_ sector: Int) throws -> (tag: MIFAREClassicVirtualTag, before: [UInt8], rows: [LedgerRecord]) {
    let tag = try factoryCard(closing: sector)
    let before = tag.memoryImage
    let ledger = InMemoryLedger()
    let (_, tags) = run(try StepTagPoller(tag), ledger: ledger, job: try content())
    #expect(tags.first?.status == .failed && tags.first?.reason?.contains("no key opened sector \(sector)") == true, "\(tags)")
    return (tag, before, try ledger.records())
  }

  /// The format opens every sector before its first write: when no key opens one (the first, a
  /// middle or the last), nothing was written, the card is as it was and the row is free again
  /// (pending, bound to no UID) for the next card.
  @Test(arguments: [1, 2, 15])
  func aFormatThatCannotFinishWritesNothingAndLeavesTheRowFree(sector: Int) throws {
    let (tag, before, rows) = try provisionClosing(sector)
    #expect(tag.memoryImage == before)
    #expect(rows.count == 1 && rows.first?.status == .pending && rows.first?.uid == nil, "\(rows)")
  }

  /// A format that fails after its first write (the card taken away then) changed the card: the
  /// row stays bound to it (failed) so that no other card gets it.
  @Test func aFormatThatFailsAfterItsFirstWriteKeepsTheRow() throws {
    let before = try MIFAREClassicVirtualTag(chip: .classic1K, uid: Self.uid).memoryImage
    // The first APDU count after which the card was written: the removal then cuts the format.
    for k in 30...80 {
      let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: Self.uid)
      let ledger = InMemoryLedger()
      run(try StepTagPoller(tag, removeAfter: k), ledger: ledger, job: try content())
      guard tag.memoryImage != before else { continue }
      #expect(tag.storedBlock(4) == MIFAREClassicNDEF.emptyNDEFBlock)
      let rows = try ledger.records()
      #expect(rows.count == 1 && rows.first?.status == .failed && rows.first?.uid == hexString(Self.uid), "\(rows)")
      return
    }
    Issue.record("no removal between APDUs 30 and 80 cut the format after a write")
  }
}
