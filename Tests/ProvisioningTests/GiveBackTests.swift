import Foundation
import NFCEmulator
import NFCSession
import NFCTransport
@testable import Provisioning
import ProvisioningLedger
import Testing

/// A row whose tag failed before the first write goes back to pending even when the ledger was
/// unavailable at that moment (docs/provisioning.md, "Per tag").
@Suite(.serialized) struct GiveBackTests {
  func job() throws -> JobContent {
    let rows = RowsFile.counted(2)
    let t = MessageTemplate.url(try Template("https://example.com/{n}"))
    return JobContent(rows: rows, template: t, mirror: nil, validation: JobValidation(rows: rows, template: t, mirror: nil))
  }

  func run(_ ledger: any Ledger, _ poller: any TagPoller, timeout: Double = 5) throws -> ProvisioningEnd {
    _ = try ledger.importRows(RowsFile.counted(2).rows.map(\.ledgerInput))
    let options = ProvisioningOptions(station: "unit", timeout: timeout, recordedStatus: { _ in 77 })
    return ProvisioningRun(ledger: ledger, content: try job(), options: options) { _ in }.run(pollers: [poller])
  }

  func readOnlyTag() throws -> Type2VirtualTag {
    var image = try Type2VirtualTag(chip: .ntag213).memoryImage
    image[15] = 0x0F  // CC write access: read-only
    return try Type2VirtualTag(chip: .ntag213, image: image)
  }

  @Test func aGiveBackTheLedgerRefusedIsRedoneOnceItIsBack() throws {
    let ledger = InMemoryLedger()
    ledger.unclaimOutages.withLock { $0 = 1 }
    _ = try run(ledger, try StepTagPoller(try readOnlyTag()))
    let records = try ledger.records()
    #expect(records.allSatisfy { $0.status == .pending && $0.uid == nil }, "\(records)")
    #expect(try ledger.tagFailures().count == 1)
  }

  /// The ledger still refuses the give-back when the run ends: the row stays claimed, and the
  /// run names it (with its tag) so that the tool can say how to free it.
  @Test func aGiveBackStillRefusedAtTheEndIsNamedByTheRun() throws {
    let ledger = InMemoryLedger()
    ledger.unclaimOutages.withLock { $0 = 1_000_000 }
    _ = try ledger.importRows(RowsFile.counted(2).rows.map(\.ledgerInput))
    let options = ProvisioningOptions(station: "unit", timeout: 1, recordedStatus: { _ in 77 })
    let run = ProvisioningRun(ledger: ledger, content: try job(), options: options) { _ in }
    _ = run.run(pollers: [try StepTagPoller(try readOnlyTag())])
    let claimed = try ledger.records().filter { $0.status == .claimed }
    #expect(claimed.count == 1)
    #expect(run.rowsNotGivenBack.map(\.rowID) == claimed.map(\.id))
    #expect(run.rowsNotGivenBack.map(\.uid) == claimed.map { $0.uid ?? "" })
  }

  @Test func theSameTagBackBeforeTheLedgerTookTheGiveBackTakesItsRowOverAsNew() throws {
    let ledger = InMemoryLedger()
    ledger.unclaimOutages.withLock { $0 = 1 }
    _ = try ledger.importRows(RowsFile.counted(2).rows.map(\.ledgerInput))
    let place = LedgerPlace(station: "unit", reader: "r", time: "t")
    guard case .claimed(let row) = try ledger.claim(uid: "04aa", at: place) else { Issue.record("no claim"); return }
    let waiting = PendingGiveBacks()
    waiting.add(rowID: row.id, uid: "04aa", failure: LedgerFailure(reason: "read-only", exitStatus: 77, place: place))
    // The ledger refuses the give-back once more, then the tag's claim resumes the row: the
    // claim takes the give-back over, so no later retry gives back a row its tag is being written.
    let (claim, tookOver) = try waiting.claim(uid: "04aa", on: ledger) { () throws(LedgerError) in try ledger.claim(uid: "04aa", at: place) }
    #expect(tookOver)
    guard case .resumed(let again) = claim else { Issue.record("\(claim)"); return }
    #expect(again.id == row.id)
    waiting.retry(on: ledger)
    #expect(try ledger.row(boundTo: "04aa")?.status == .claimed)
  }
}

/// A claim that fails names the ledger once, whatever the ledger's own line says.
@Suite struct LedgerReasonTests {
  @Test func theLedgerIsNamedOnce() {
    let unavailable = TagProvisioner.ledgerReason(LedgerError.unavailable("connection reset"))
    #expect(unavailable == "the ledger is unavailable, nothing of this step was committed: connection reset")
    #expect(TagProvisioner.ledgerReason(LedgerError.incompatible("x.sqlite is not a ledger")) == "the ledger: x.sqlite is not a ledger")
    #expect(TagProvisioner.ledgerReason(LedgerError.closed) == "the ledger is closed")
  }
}
