import Locking
import NFCEmulator
import NFCTags
import NFCTransport
import Provisioning
import ProvisioningLedger
import Testing

/// A tag whose UID the reader does not give (GET DATA `FF CA 00 00 00` answered `6F 00` or
/// garbage: a reader fault the soak met, seed 2 of docs/reliability.md) is refused before its row
/// is claimed: rows are keyed by UID, and a row done on an empty UID could be claimed again by
/// any other tag whose UID went unread.
@Suite(.serialized) struct UnreadUIDTests {
  @Test(arguments: [[UInt8]([0x6F, 0x00]), [0x12, 0x34, 0x56]])
  func aTagWithoutAUIDIsRefusedBeforeItsRowIsClaimed(_ answer: [UInt8]) throws {
    let tag = try Type2VirtualTag(chip: .ntag216, uid: TagStepsTests.uid)
    let poller = try StepTagPoller(tag, intercept: { apdu in apdu == [0xFF, 0xCA, 0x00, 0x00, 0x00] ? answer : nil })
    let ledger = InMemoryLedger()
    let c = TagStepsTests.Combination()
    let job = try TagStepsTests().content(c, text: "unread-uid")
    let (_, events) = TagStepsTests().run(poller, c, ledger: ledger, job: job)
    #expect(events.count == 1 && events.first?.status == .failed, "\(events)")
    #expect(events.first?.rowID == nil, "a row was claimed: \(events)")
    #expect(events.first?.reason?.contains("UID") == true, "\(String(describing: events.first?.reason))")
    let record = try #require(try ledger.records().first)
    #expect(record.status == .pending && record.uid == nil, "\(record)")
    #expect(tag.memoryImage[16] != 0x03 || tag.memoryImage[17] == 0, "the tag was written")
  }
}
