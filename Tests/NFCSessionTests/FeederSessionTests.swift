import Dispatch
import Foundation
import Locking
import NDEF
import NFCEmulator
import NFCReaders
import NFCTransport
import Testing
@testable import NFCSession

/// The in-process tag feeder (`sim:KIND+feed=N,…`) under Core NFC's sessions: tags arrive one
/// after another, leave after the LED command or the idle hand, and are saved as images.
@Suite(.serialized) struct InProcessFeeder {
  static func directory() -> String {
    FileManager.default.temporaryDirectory.appendingPathComponent("feed-\(UUID().uuidString)").path
  }

  static func poller(_ spec: String, transports: Locked<[any APDUTransport & Sendable]>? = nil) throws -> SimulatorPoller {
    try SimulatorPoller(spec: try SimulatorSpec(parsing: spec)) { transport throws(PollError) in
      transports?.withLock { $0.append(transport) }
      return try detectTarget(on: transport)
    }
  }

  static func images(in directory: String) throws -> [String: [UInt8]] {
    var out: [String: [UInt8]] = [:]
    for name in try FileManager.default.contentsOfDirectory(atPath: directory) where name.hasSuffix(".bin") {
      out[name] = try Array(Data(contentsOf: URL(fileURLWithPath: directory + "/" + name)))
    }
    return out
  }

  @Test func aMultiReadSessionGetsTagAfterTagAndTimesOutAfterTheLast() throws {
    let directory = Self.directory()
    let poller = try Self.poller("sim:ntag213/ntag213-locked/ntag210+feed=3,seed=5,hand-ms=250,images=\(directory)")
    let written = Locked<[String: Bool]>([:])
    let recorder = Recorder(takesTags: true, onTags: { session, tags in
      guard let tag = tags.first else { return }
      let uid = hexString(tag.identifier)
      do {
        try session.connect(to: tag)
        try tag.writeNDEF(NDEFMessage(records: [TextRecord(text: "row for \(uid)").record]))
        written.withLock { $0[uid] = true }
      } catch {
        written.withLock { $0[uid] = false }
      }
      session.restartPollingAfterRemoval()
    })
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: false, poller: poller, timeout: 1.5)
    session.begin()
    #expect(recorder.wait())  // the session ends by itself: wait() gives up after 10 s
    #expect(recorder.error?.code == .readerSessionInvalidationErrorSessionTimeout)
    let uids = (1...3).map { hexString(FeederUIDs.uid(for: .ntag213, seed: 5, index: $0)) }
    #expect(recorder.tags.map { $0.map { hexString($0.identifier) } } == uids.map { [$0] })
    #expect(written.withLock { $0 } == [uids[0]: true, uids[1]: false, uids[2]: true])
    let images = try Self.images(in: directory)
    #expect(images.keys.sorted() == (1...3).map { "000\($0)-\(uids[$0 - 1]).bin" })
    for (index, uid) in uids.enumerated() {
      let image = try #require(images["000\(index + 1)-\(uid).bin"])
      let text = Array("row for \(uid)".utf8)
      let holds = (0...(image.count - text.count)).contains { Array(image[$0..<($0 + text.count)]) == text }
      #expect(holds == (index != 1), "tag \(index + 1)")
    }
  }

  @Test func theLEDCommandTakesTheTagAwayAndTheLastOneLeavesAnEmptyField() throws {
    let directory = Self.directory()
    let transports = Locked<[any APDUTransport & Sendable]>([])
    let poller = try Self.poller("sim:ntag215+feed=2,seed=8,hand-ms=60000,images=\(directory)", transports: transports)
    let first = try poller.waitForTargets(timeoutMilliseconds: 1000)
    #expect(first.first?.identifier == FeederUIDs.uid(for: .ntag215, seed: 8, index: 1))
    #expect(throws: PollError.timeout) { try poller.waitForRemoval(timeoutMilliseconds: 50) }  // the hand waits a minute
    let link = try #require(transports.withLock { $0.last })
    #expect(try link.transmit([0xFF, 0x00, 0x40, 0x2E, 0x04, 0x01, 0x01, 0x01, 0x01]).first == 0x90)  // answered first
    #expect(throws: TransceiveError.tagRemoved) { try link.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00]) }
    try poller.waitForRemoval(timeoutMilliseconds: 50)
    #expect(try Self.images(in: directory).count == 1)
    let second = try poller.waitForTargets(timeoutMilliseconds: 1000)
    #expect(second.first?.identifier == FeederUIDs.uid(for: .ntag215, seed: 8, index: 2))
    let other = try #require(transports.withLock { $0.last })
    _ = try other.transmit([0xFF, 0x00, 0x40, 0x2E, 0x04, 0x01, 0x01, 0x01, 0x01])
    let start = ContinuousClock.now
    #expect(throws: PollError.timeout) { try poller.waitForTargets(timeoutMilliseconds: 200) }
    #expect(ContinuousClock.now - start >= .milliseconds(150))
    #expect(try Self.images(in: directory).count == 2)
  }

  /// The run ends with a fed tag still in the field (a single-read session): the tag is saved
  /// when the session lets the reader go, as `emulate --feed` saves it on Ctrl-C, under the same
  /// name, once; a session that begins later on the same reader finds the tag again.
  @Test func theTagStillInTheFieldIsSavedWhenTheSessionEnds() throws {
    let directory = Self.directory()
    let poller = try Self.poller("sim:ntag215+feed=2,seed=6,hand-ms=60000,images=\(directory)")
    let recorder = Recorder(takesTags: true, onTags: { session, tags in
      guard let tag = tags.first else { return }
      try? session.connect(to: tag)
      try? tag.writeNDEF(NDEFMessage(records: [TextRecord(text: "kept at the end").record]))
      session.invalidate()
    })
    let session = NFCNDEFReaderSession(delegate: recorder, queue: nil, invalidateAfterFirstRead: true, poller: poller, timeout: 5)
    session.begin()
    #expect(recorder.wait())
    let uid = hexString(FeederUIDs.uid(for: .ntag215, seed: 6, index: 1))
    let images = try Self.images(in: directory)
    #expect(images.keys.sorted() == ["0001-\(uid).bin"])
    let image = try #require(images["0001-\(uid).bin"])
    let text = Array("kept at the end".utf8)
    #expect((0...(image.count - text.count)).contains { Array(image[$0..<($0 + text.count)]) == text })
    // Still in the field: the next session on the reader gets the same tag, not the feed's next.
    let again = try poller.waitForTargets(timeoutMilliseconds: 1000)
    #expect(again.first?.identifier == FeederUIDs.uid(for: .ntag215, seed: 6, index: 1))
  }

  @Test func cancelWakesAWait() throws {
    let poller = try Self.poller("sim:ntag213+feed=1,hand-ms=60000")
    _ = try poller.waitForTargets(timeoutMilliseconds: 1000)
    DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) { poller.cancel() }
    let start = ContinuousClock.now
    #expect(throws: PollError.cancelled) { try poller.waitForRemoval(timeoutMilliseconds: 10_000) }
    #expect(ContinuousClock.now - start < .seconds(9))  // before the 10 s the wait would last
  }

  @Test func theLatencyModelAppliesInProcess() throws {
    let poller = try Self.poller("sim:ntag213+feed=1,hand-ms=5000,latency=acr122u")
    let start = ContinuousClock.now
    _ = try poller.waitForTargets(timeoutMilliseconds: 1000)
    let modelled = poller.modelledReaderMicroseconds
    #expect(modelled >= LatencyModel.acr122u.arrivalMicroseconds + 2 * 3_000)   // arrival, GET_VERSION, GET DATA
    #expect(ContinuousClock.now - start >= .microseconds(modelled))
  }
}
