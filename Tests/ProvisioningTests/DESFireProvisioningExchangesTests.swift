import DESFireEmulator
import DESFireTag
import Locking
import NFCEmulator
import Provisioning
import ProvisioningLedger
import Testing

/// APDUs per factory MIFARE DESFire that `provision` finishes (the row's NDEF message and the two
/// keys), through the simulated ACR122U: detection, every step and the LED counted, as `make
/// bench` prints them (Benchmarks/NFCBench/DESFireProvisioningCounts.swift) and docs/performance.md
/// ("DESFire provisioning") gives them beside their bound. A round trip more or less fails here;
/// the figures there change with it.
@Suite(.serialized) struct DESFireProvisioningExchanges {
  /// The template docs/performance.md's table uses (docs/provisioning.md's NTAG215 table's).
  static let template = "https://example.com/t/{n:06}?u={uid}"

  /// One row provisioned onto a factory card of `kind`, keys of `keyType` diversified from a master key.
  func provision(_ kind: VirtualTagKind, _ keyType: DESFireSecretKey.Kind) throws -> (StepTagPoller, [ProvisionedTag]) {
    DESFireEmulator.register()
    let length = keyType == .threeKeyTripleDES ? 24 : 16
    let master = try DESFireSecretKey.make((0..<length).map { UInt8($0 * 7 + 3) }, kind: keyType, what: "test key").get()
    let rows = RowsFile.counted(1)
    let template = MessageTemplate.url(try Template(Self.template))
    let content = JobContent(rows: rows, template: template, mirror: nil,
                             validation: JobValidation(rows: rows, template: template, mirror: nil))
    let ledger = InMemoryLedger()
    _ = try ledger.importRows(rows.rows.map(\.ledgerInput))
    let options = ProvisioningOptions(station: "unit", timeout: 5, desfire: DESFireProvisioning(keyType: keyType, keys: .diversified(master: master)),
                                      recordedStatus: { _ in 1 })
    let events = Locked<[ProvisionedTag]>([])
    let run = ProvisioningRun(ledger: ledger, content: content, options: options) { event in
      if case .tag(let tag) = event { events.withLock { $0.append(tag) } }
    }
    let poller = try StepTagPoller(try kind.makeTag(uid: nil))
    _ = run.run(pollers: [poller])
    return (poller, events.withLock { $0 })
  }

  /// 61 APDUs whatever the card and key type: detection (2); step 1 (ISO SELECT of the PICC level,
  /// GetVersion 3, SelectApplication, GetKeyVersion, authentication 2, GetCardUID: 9); the Type 4
  /// discovery that finds no NDEF application (4); `format` (GetVersion 3, ISO SELECT,
  /// SelectApplication, authentication 2, GetKeySettings, SelectApplication of 000001,
  /// GetFreeMemory, SelectApplication, authentication 2, CreateApplication, SelectApplication,
  /// two CreateStdDataFile, WriteData of NLEN and of the CC, then the empty message as on any
  /// Type 4 tag with its read-back: 25); the message (read before writing 2, three UPDATE
  /// BINARYs, NLEN 0000, the message and NLEN, as a DESFire's standard data file has no tearing
  /// protection, its read-back: 6); the keys (SelectApplication, GetKeyVersion, SelectApplication,
  /// authentication 2, ChangeKey, SelectApplication, authentication 2, ChangeKey: 10); the final
  /// read (READ BINARY refused once native commands ran, SELECT application, SELECT NDEF, READ
  /// BINARY: 4); the LED (1).
  @Test(arguments: [(VirtualTagKind.desfireEV1With4K, DESFireSecretKey.Kind.twoKeyTripleDES), (.desfireEV1With4K, .aes),
                    (.desfireEV3With4K, .aes)])
  func apdusPerCardArePinned(kind: VirtualTagKind, keyType: DESFireSecretKey.Kind) throws {
    let (poller, tags) = try provision(kind, keyType)
    #expect(tags.count == 1 && tags.first?.status == .done, "\(tags)")
    #expect(poller.exchangeCount == 61, "\(kind) \(keyType): \(poller.exchangeCount) APDUs")
    let ms = Double(poller.modelledMicroseconds) / 1000
    print("\(kind.rawValue) \(keyType): \(poller.exchangeCount) APDUs, \(Int(ms.rounded())) ms, \(Int((60_000 / ms).rounded())) tags/min")
  }
}
