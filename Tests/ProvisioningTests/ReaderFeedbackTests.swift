import Foundation
import Locking
import NFCEmulator
import NFCReaders
import NFCSession
import NFCTransport
import NTAG424Emulator
import Provisioning
import ProvisioningLedger
import Testing

/// On an ACR122U every tag `provision` is done with gets the LEDs and the
/// buzzer (`FF 00 40 …`, ACR122U API V2.04 §6.2) as its last command, whatever its family: Type 1,
/// Type 2, Type 4 (a Type 4 tag, an NTAG 424 DNA) and MIFARE Classic.
@Suite struct ReaderFeedbackTests {
  /// The commands sent to a simulated ACR122U, in order.
  final class RecordingTransport: APDUTransport, @unchecked Sendable {  // one session thread at a time
    let base: any APDUTransport
    private(set) var sent: [[UInt8]] = []
    init(_ base: any APDUTransport) { self.base = base }
    var readerName: String { base.readerName }
    var atr: [UInt8] { base.atr }
    func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
      sent.append(apdu)
      return try base.transmit(apdu)
    }
    func reactivateCard() throws(TransceiveError) { try base.reactivateCard() }
  }

  /// One tag on a simulated ACR122U, recording what the run sends; the run ends once it was handed out.
  final class RecordingPoller: TagPoller, @unchecked Sendable {
    let readerName = "ACS ACR122U PICC Interface (feedback \(UUID().uuidString)) 00 00"
    let recording: RecordingTransport
    private var delivered = false
    init(_ tag: any VirtualTag) throws {
      recording = RecordingTransport(SimulatedAPDUTransport(readerName: readerName, card: try ReaderFaceKind.acr122u.makeFace(tag: tag)))
    }
    func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
      guard !delivered else { throw .readerUnavailable("the test's one tag was handed out") }
      delivered = true
      return [try detectTarget(on: recording)]
    }
    func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {}
    func release() {}
    func cancel() {}
  }

  static func tags() throws -> [(String, any VirtualTag)] {
    [("Type 1", try Type1VirtualTag(chip: .topaz512)), ("Type 2", try Type2VirtualTag(chip: .ntag213)),
     ("Type 4", try Type4VirtualTag()), ("NTAG 424 DNA", try NTAG424DNAVirtualTag(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])),
     ("MIFARE Classic", try MIFAREClassicVirtualTag(chip: .classic1K, uid: [0xA1, 0xB2, 0xC3, 0xD4]))]
  }

  @Test func everyTagFamilyGetsTheLEDAndBuzzerWhenDone() throws {
    for (family, tag) in try Self.tags() {
      let poller = try RecordingPoller(tag)
      let rows = RowsFile.counted(1)
      let t = MessageTemplate.url(try Template("https://example.com/{n}"))
      let job = JobContent(rows: rows, template: t, mirror: nil, validation: JobValidation(rows: rows, template: t, mirror: nil))
      let ledger = InMemoryLedger()
      _ = try ledger.importRows(rows.rows.map(\.ledgerInput))
      let done = Locked<[ProvisionedTag.Status]>([])
      let run = ProvisioningRun(ledger: ledger, content: job, options: ProvisioningOptions(station: "unit", timeout: 5, recordedStatus: { _ in 1 })) {
        if case .tag(let tag) = $0 { done.withLock { $0.append(tag.status) } }
      }
      #expect(run.run(pollers: [poller]) == .complete, "\(family)")
      #expect(done.withLock { $0 } == [.done], "\(family)")
      let last = poller.recording.sent.last ?? []
      // Green and one beep: FF 00 40 P2 04 T1 T2 reps buzzer (ReaderSignal.success).
      #expect(Array(last.prefix(3)) == [0xFF, 0x00, 0x40], "\(family): the last command is \(hexString(last))")
      #expect(last.count == 9 && last[3] & 0x03 == 0x02, "\(family): green, not red: \(hexString(last))")
    }
  }
}
