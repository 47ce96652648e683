import DESFireEmulator
import DESFireTag
import Foundation
import Locking
import NFCEmulator
import NFCReaders
import NFCSession
import NFCTransport
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
    let poller = try StepTagPoller(try kind.makeTag(uid: nil))
    return (poller, try provision(keyType, poller: poller))
  }

  /// One row provisioned by `poller`'s card.
  func provision(_ keyType: DESFireSecretKey.Kind, poller: any TagPoller) throws -> [ProvisionedTag] {
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
    _ = run.run(pollers: [poller])
    return events.withLock { $0 }
  }

  /// 36 APDUs whatever the card and key type: detection (2); step 1 (ISO SELECT of the PICC level,
  /// GetVersion 3, SelectApplication, GetKeyVersion, authentication 2, GetCardUID: 9); the
  /// SelectApplication of 000001 the card refuses (no NDEF application: 1); the application made
  /// knowing that and step 1's GetVersion (GetFreeMemory, SelectApplication and authentication 2 of
  /// the PICC level, CreateApplication, SelectApplication, two CreateStdDataFile, WriteData of NLEN
  /// 0000 and of the CC: 10); the message (WriteData of the message, then of NLEN, as a DESFire's
  /// standard data file has no tearing protection, ReadData: 3); the keys (SelectApplication,
  /// authentication 2, ChangeKey, SelectApplication, authentication 2, ChangeKey: 8); the final
  /// read (SelectApplication, ReadData: 2); the LED (1). GetVersion is sent once.
  @Test(arguments: [(VirtualTagKind.desfireEV1With4K, DESFireSecretKey.Kind.twoKeyTripleDES), (.desfireEV1With4K, .aes),
                    (.desfireEV3With4K, .aes)])
  func apdusPerCardArePinned(kind: VirtualTagKind, keyType: DESFireSecretKey.Kind) throws {
    let (poller, tags) = try provision(kind, keyType)
    #expect(tags.count == 1 && tags.first?.status == .done, "\(tags)")
    #expect(poller.exchangeCount == 36, "\(kind) \(keyType): \(poller.exchangeCount) APDUs")
    let ms = Double(poller.modelledMicroseconds) / 1000
    print("\(kind.rawValue) \(keyType): \(poller.exchangeCount) APDUs, \(Int(ms.rounded())) ms, \(Int((60_000 / ms).rounded())) tags/min")
  }

  /// A factory card is identified once: GetVersion (`90 60`) is sent once (step 1's answer serves
  /// the format), the NDEF application is made without the Type 4 platform's commands (no
  /// SELECT of a file, UPDATE BINARY or READ BINARY: the message goes by WriteData and comes back by
  /// ReadData), and no command is refused but the SelectApplication that finds no application.
  @Test(arguments: [(VirtualTagKind.desfireEV1With4K, DESFireSecretKey.Kind.twoKeyTripleDES), (.desfireEV3With4K, .aes)])
  func aFactoryCardIsIdentifiedOnce(kind: VirtualTagKind, keyType: DESFireSecretKey.Kind) throws {
    DESFireEmulator.register()
    let poller = try RecordingPoller(try kind.makeTag(uid: nil))
    let tags = try provision(keyType, poller: poller)
    #expect(tags.count == 1 && tags.first?.status == .done, "\(tags)")
    let exchanges = poller.exchanges.withLock { $0 }
    #expect(exchanges.filter { $0.command.starts(with: [0x90, 0x60]) }.count == 1)
    #expect(!exchanges.contains { $0.command.starts(with: [0x00, 0xB0]) || $0.command.starts(with: [0x00, 0xD6])
      || $0.command.starts(with: [0x00, 0xA4, 0x00]) }, "\(exchanges.map(\.command))")
    let refused = exchanges.filter { $0.command.first != 0xFF && $0.reply.suffix(2) != [0x90, 0x00] && $0.reply.suffix(2) != [0x91, 0x00] && $0.reply.suffix(2) != [0x91, 0xAF] }
    #expect(refused.map(\.command) == [[0x90, 0x5A, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00]] && refused.first?.reply == [0x91, 0xA0],
            "\(refused)")
  }
}

/// One virtual tag in one simulated ACR122U that keeps every exchange (the reader's own included).
final class RecordingPoller: TagPoller, @unchecked Sendable {
  let readerName = "ACS ACR122U PICC Interface (recording \(UUID().uuidString)) 00 00"
  let exchanges = Locked<[(command: [UInt8], reply: [UInt8])]>([])
  private let transport: RecordingTransport
  private var delivered = false

  init(_ tag: any VirtualTag) throws {
    tag.reset()  // a new field, as StepTagPoller starts one
    transport = RecordingTransport(SimulatedAPDUTransport(readerName: readerName, card: try ReaderFaceKind.acr122u.makeFace(tag: tag)),
                                   exchanges: exchanges)
  }

  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    guard !delivered else { throw .readerUnavailable("the test's one tag was handed out") }
    delivered = true
    return [try detectTarget(on: transport)]
  }
  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {}
  func release() {}
  func releaseResetting() {}
  func cancel() {}
}

/// Passes every APDU on and keeps it with its answer.
final class RecordingTransport: APDUTransport {
  let base: any APDUTransport
  let exchanges: Locked<[(command: [UInt8], reply: [UInt8])]>
  init(_ base: any APDUTransport, exchanges: Locked<[(command: [UInt8], reply: [UInt8])]>) { self.base = base; self.exchanges = exchanges }
  var readerName: String { base.readerName }
  var atr: [UInt8] { base.atr }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    let reply = try base.transmit(apdu)
    exchanges.withLock { $0.append((apdu, reply)) }
    return reply
  }
}
