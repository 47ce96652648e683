import Foundation
import Locking
import NFCEmulator
import NFCReaders
import NFCSession
import Provisioning
import ProvisioningLedger
import Testing

/// The engine over the in-process simulator and an in-memory ledger: fast checks of the per-tag
/// steps. The end-to-end tests run the same engine through `nfctag provision` and pcscd.
@Suite(.serialized) struct ProvisioningRunTests {
  /// An NTAG image file in a scratch directory; `patch` edits the factory image first.
  func image(_ kind: String = "ntag213", patch: ((inout [UInt8]) -> Void)? = nil) throws -> String {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("prov-unit-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let path = dir.appendingPathComponent("tag.bin").path
    _ = try poller(kind, path)  // creates the factory image
    if let patch {
      var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
      patch(&bytes)
      try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
    return path
  }

  func poller(_ kind: String, _ path: String) throws -> SimulatorPoller {
    try SimulatorPoller(spec: try SimulatorSpec(parsing: "sim:\(kind):\(path)")) { transport throws(PollError) in
      try detectTarget(on: transport)
    }
  }

  func content(_ template: String, count: Int = 1, mirror: MirrorMode? = nil) throws -> JobContent {
    let rows = RowsFile.counted(count)
    let t = MessageTemplate.url(try Template(template))
    return JobContent(rows: rows, template: t, mirror: mirror, validation: JobValidation(rows: rows, template: t, mirror: mirror))
  }

  /// Runs one job over one simulated tag; returns the end, the events and the ledger.
  func provision(_ path: String, kind: String = "ntag213", content: JobContent, count: Int = 1,
                 protection: ProvisioningOptions.Protection? = nil, lock: Bool = false,
                 ledger: InMemoryLedger = InMemoryLedger()) throws -> (ProvisioningEnd, [ProvisionedTag], InMemoryLedger) {
    _ = try ledger.importRows(RowsFile.counted(count).rows.map(\.ledgerInput))
    let events = Locked<[ProvisionedTag]>([])
    let options = ProvisioningOptions(station: "unit", lock: lock, protection: protection, timeout: 0.5,
                                      recordedStatus: { failure in if case .tag(let error) = failure { Int32(error.code.rawValue % 1000) } else { 1 } })
    let run = ProvisioningRun(ledger: ledger, content: content, options: options) { event in
      if case .tag(let tag) = event { events.withLock { $0.append(tag) } }
    }
    let end = run.run(pollers: [try poller(kind, path)])
    return (end, events.withLock { $0 }, ledger)
  }

  /// The NDEF message bytes a tag image holds, read through a fresh session.
  func message(in path: String, kind: String = "ntag213") throws -> [UInt8] {
    let tag = try VirtualTagKind(rawValue: kind).map { k in try k.makeTag(image: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))) }
    let memory = (tag as? Type2VirtualTag)?.memoryImage ?? []
    // NTAG213: the NDEF TLV follows the Lock Control TLV at byte 21; NTAG215/216 at 16.
    let tlv = kind == "ntag213" ? 21 : 16
    guard memory.count > tlv + 2, memory[tlv] == 0x03 else { return [] }
    let length = Int(memory[tlv + 1])
    return Array(memory[(tlv + 2)..<(tlv + 2 + length)])
  }

  @Test func aTagGetsItsRowWrittenVerifiedAndCommitted() throws {
    let path = try image()
    let job = try content("https://example.com/t/{n:04}?u={uid}")
    let (end, tags, ledger) = try provision(path, content: job)
    #expect(end == .complete)
    let tag = try #require(tags.first)
    #expect(tag.status == .done && tag.rowID == "1")
    #expect(tag.exchanges > 3)
    let record = try #require(try ledger.records().first)
    #expect(record.status == .done && record.uid == tag.uid)
    let expected = try job.render(rowID: "1", sequence: 1, uid: try hexBytes(tag.uid))
    #expect(try message(in: path) == expected.bytes)
    #expect(record.messageHex == expected.hex)
  }

  @Test func aReadOnlyTagFailsBeforeWritingAndGivesItsRowBack() throws {
    let path = try image { $0[15] = 0x0F }  // CC write access: read-only
    let (end, tags, ledger) = try provision(path, content: try content("https://example.com/{n}"))
    #expect(end == .timedOut)
    #expect(tags.first?.status == .failed)
    #expect(try ledger.records().first?.status == .pending)
    #expect(try ledger.tagFailures().count == 1)
  }

  @Test func aJobThatDoesNotFitTheFirstTagIsRefusedUntouched() throws {
    let path = try image()
    let before = try Data(contentsOf: URL(fileURLWithPath: path))
    let long = "https://example.com/" + String(repeating: "x", count: 200) + "{n}"
    let (end, tags, ledger) = try provision(path, content: try content(long))
    #expect(end == .refused)
    #expect(tags.isEmpty, "the rows that do not fit are the cause, not a failed tag: \(tags)")
    #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    #expect(try ledger.records().first?.status == .pending)
  }

  @Test func protectionUsesThePerUIDPasswordAndTheNextRunAuthenticates() throws {
    let path = try image()
    let secret = try ProvisioningSecret(text: "a provisioning secret of some length")
    let protection = ProvisioningOptions.Protection(protectReads: false) { uid in
      let d = derivePassword(secret: secret, uid: uid)
      return (d.pwd, d.pack)
    }
    let first = try provision(path, content: try content("https://example.com/a/{n}"), protection: protection)
    #expect(first.0 == .complete)
    // Another job, same secret: the tag is protected and the run authenticates to rewrite it.
    let second = try provision(path, content: try content("https://example.com/b/{n}"), protection: protection)
    #expect(second.0 == .complete, "\(second.1)")
    #expect(String(decoding: try message(in: path), as: UTF8.self).contains("example.com/b/1"))
    // Without the secret the tag refuses the write.
    let third = try provision(path, content: try content("https://example.com/c/{n}"))
    #expect(third.1.first?.status == .failed)
    #expect(String(decoding: try message(in: path), as: UTF8.self).contains("example.com/b/1"))
  }

  @Test func theMirrorIsPlacedOverItsRoom() throws {
    let path = try image()
    let job = try content("https://example.com/m?t={mirror}", mirror: .uidAndCounter)
    let (end, tags, _) = try provision(path, content: job)
    #expect(end == .complete, "\(tags)")
    // The configuration pages: MIRROR_CONF 11b, NFC_CNT_EN.
    let memory = (try VirtualTagKind.ntag213.makeTag(image: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))) as? Type2VirtualTag)?.memoryImage ?? []
    let cfg0 = 0x29 * 4
    #expect(memory.count > cfg0 + 5)
    #expect(memory[cfg0] & 0xC0 == 0xC0)
    #expect(memory[cfg0 + 4] & 0x10 == 0x10)
  }
}

func hexBytes(_ text: String) throws -> [UInt8] {
  var out: [UInt8] = []
  var i = text.startIndex
  while i < text.endIndex {
    let j = text.index(i, offsetBy: 2)
    guard let byte = UInt8(text[i..<j], radix: 16) else { throw RenderFailure("bad hex") }
    out.append(byte)
    i = j
  }
  return out
}
