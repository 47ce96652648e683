import Foundation
import Locking
import NFCEmulator
import NFCTransport
import Testing
@testable import NFCEmulatorVPCD

/// What a ``RecordingCard`` was asked; shared with the test after the card went to a bridge.
final class EventLog: Sendable {
  private let entries = Locked<[String]>([])
  func append(_ event: String) { entries.withLock { $0.append(event) } }
  var events: [String] { entries.withLock { $0 } }
}

/// A card that records what it was asked.
final class RecordingCard: VirtualCard {
  let log: EventLog
  let atr: [UInt8] = [0x3B, 0x00]
  init(log: EventLog = EventLog()) { self.log = log }
  func powerOn() { log.append("on") }
  func powerOff() { log.append("off") }
  func reset() { log.append("reset") }
  func transmit(_ apdu: [UInt8]) -> [UInt8] {
    log.append("apdu")
    return apdu.first == 0xEE ? [] : [0x90, 0x00]
  }
}

@Suite struct Framing {
  @Test func encodeAndDecode() {
    #expect(VPCDFrame.encode([0x04]) == [0x00, 0x01, 0x04])
    #expect(VPCDFrame.encode([UInt8](repeating: 0, count: 70_000)) == [0x00, 0x02, 0x6F, 0x00])
    var buffer: [UInt8] = [0x00, 0x01, 0x04, 0x00, 0x05, 0xFF, 0xCA, 0x00, 0x00, 0x00, 0x00, 0x02, 0x01]
    #expect(VPCDFrame.decode(&buffer) == [[0x04], [0xFF, 0xCA, 0x00, 0x00, 0x00]])
    #expect(buffer == [0x00, 0x02, 0x01])  // a partial frame stays
  }

  /// A read of many short frames is split whole, the rest kept. Each frame used to be removed from
  /// the front, moving the rest of the buffer (600 KB of empty frames took 1.9 s, 4 MB over a
  /// minute; found by the vpcd fuzz target's exec/s falling as its inputs grew). Its speed is not
  /// timed here: tests do not time things (the fuzz target's rate shows a relapse).
  @Test func decodesManyShortFramesAndKeepsTheRest() {
    var buffer = [UInt8](repeating: 0, count: 400_000) + [0x00, 0x03, 0xAA]
    let frames = VPCDFrame.decode(&buffer)
    #expect(frames.count == 200_000)
    #expect(frames.allSatisfy { $0.isEmpty })
    #expect(buffer == [0x00, 0x03, 0xAA])
  }

  @Test func controlsAndAPDUs() {
    let log = EventLog()
    let bridge = VPCDBridge(serving: VPCDServedCard(card: RecordingCard(log: log)))
    #expect(bridge.handle([0x01]) == nil)
    #expect(bridge.handle([0x04]) == [0x3B, 0x00])
    #expect(bridge.handle([0x00]) == nil)
    #expect(bridge.handle([0x02]) == nil)
    #expect(bridge.handle([0xFF, 0xCA, 0x00, 0x00, 0x00]) == [0x90, 0x00])
    #expect(bridge.handle([0xEE, 0x00, 0x00, 0x00]) == [0x6F, 0x00])  // never an empty reply
    #expect(log.events == ["on", "off", "reset", "apdu", "apdu"])
    #expect(bridge.answered == 2)
  }
}

/// A TCP listener on 127.0.0.1 with a free port: the test plays pcscd's vpcd.
struct Listener: ~Copyable {
  let fd: Int32
  let port: UInt16

  init(backlog: Int32 = 1) {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
    listen(fd, backlog)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
    self.fd = fd
    self.port = UInt16(bigEndian: address.sin_port)
  }

  deinit { close(fd) }
}

/// The vpcd end of one connection: writes and reads whole frames.
struct Peer {
  let fd: Int32
  func send(_ payload: [UInt8]) { write(VPCDFrame.encode(payload)) }
  /// Writes bytes as they are, in one `write`.
  func write(_ bytes: [UInt8]) { _ = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
  func receive() -> [UInt8] {
    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 512)
    while true {
      let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
      if n <= 0 { return [] }
      buffer += chunk[0..<n]
      if let frame = VPCDFrame.decode(&buffer).first { return frame }
    }
  }
}

/// Runs `bridge.run` on its own thread; `wait` returns how it ended.
final class BridgeRun: Sendable {
  private let outcome = Locked<Result<VPCDBridgeEnd, VPCDBridgeError>?>(nil)
  private let done = DispatchSemaphore(value: 0)

  init(_ bridge: VPCDBridge, silentPeerTimeout: Double = 3) {
    Thread.detachNewThread { [self] in
      let result: Result<VPCDBridgeEnd, VPCDBridgeError>
      do throws(VPCDBridgeError) { result = .success(try bridge.run(firstConnectTimeout: 5, silentPeerTimeout: silentPeerTimeout)) } catch { result = .failure(error) }
      outcome.withLock { $0 = result }
      done.signal()
    }
  }

  func wait(seconds: Double = 10) -> Result<VPCDBridgeEnd, VPCDBridgeError>? {
    guard done.wait(timeout: .now() + seconds) == .success else { return nil }
    return outcome.withLock { $0 }
  }
}

@Suite struct Loopback {
  @Test func servesPowerATRAndAPDUsThenRemovesAfterN() throws {
    let listener = Listener()
    let bridge = VPCDBridge(serving: VPCDServedCard(card: RecordingCard()), host: "127.0.0.1", port: listener.port, removeAfter: 2)
    let run = BridgeRun(bridge)
    let peer = Peer(fd: accept(listener.fd, nil, nil))
    #expect(peer.fd >= 0)
    defer { close(peer.fd) }
    peer.send([0x01])
    peer.send([0x04])
    #expect(peer.receive() == [0x3B, 0x00])
    peer.send([0xFF, 0xCA, 0x00, 0x00, 0x00])
    #expect(peer.receive() == [0x90, 0x00])
    peer.send([0xFF, 0xB0, 0x00, 0x04, 0x10])
    #expect(peer.receive() == [0x90, 0x00])
    #expect(try run.wait()?.get() == .removedAfterCommands(2))
    #expect(peer.receive() == [])  // the connection is closed: the card was removed
  }

  /// vpcd 3.3 writes the length and the payload with two `send` calls: each part arrives alone.
  @Test func answersAFrameWhoseLengthAndPayloadArriveApart() throws {
    let listener = Listener()
    let bridge = VPCDBridge(serving: VPCDServedCard(card: RecordingCard()), host: "127.0.0.1", port: listener.port, removeAfter: 1)
    let run = BridgeRun(bridge)
    let peer = Peer(fd: accept(listener.fd, nil, nil))
    defer { close(peer.fd) }
    peer.write([0x00, 0x05])
    usleep(20_000)  // let the bridge receive the length alone
    peer.write([0xFF, 0xCA, 0x00, 0x00, 0x00])
    #expect(peer.receive() == [0x90, 0x00])
    #expect(try run.wait()?.get() == .removedAfterCommands(1))
  }

  /// A second card on a vpcd slot: the kernel completes its connection (the listen queue), vpcd
  /// never accepts it and sends nothing. The bridge gives up instead of claiming to emulate.
  @Test func aSlotThatNeverTalksIsReportedAsTaken() throws {
    let listener = Listener()
    let bridge = VPCDBridge(serving: VPCDServedCard(card: RecordingCard()), host: "127.0.0.1", port: listener.port)
    let run = BridgeRun(bridge, silentPeerTimeout: 0.5)
    guard case .failure(let error)? = run.wait() else {
      Issue.record("the bridge should have given up")
      return
    }
    #expect(error.message.contains("already serves another"))
  }

  @Test func stopEndsAServingBridge() throws {
    let listener = Listener()
    let bridge = VPCDBridge(serving: VPCDServedCard(card: RecordingCard()), host: "127.0.0.1", port: listener.port)
    let run = BridgeRun(bridge)
    let peer = Peer(fd: accept(listener.fd, nil, nil))
    defer { close(peer.fd) }
    peer.send([0x04])
    #expect(peer.receive() == [0x3B, 0x00])
    bridge.stop()
    #expect(try run.wait()?.get() == .stopped)
  }
}

/// The socket re-arms TCP_QUICKACK after every receive, so a frame split by vpcd is acknowledged at
/// once rather than after Linux's 40 ms delayed-ACK timer (see `VPCDSocket`).
@Suite struct QuickACK {
  @Test func quickACKModeIsOnAfterEveryReceive() throws {
    let listener = Listener()
    let socket = try #require(VPCDSocket.connect(host: "127.0.0.1", port: listener.port, timeout: 1))
    defer { socket.close() }
    let peer = Peer(fd: accept(listener.fd, nil, nil))
    defer { close(peer.fd) }
    for round in 0..<5 {
      peer.write([0x00, 0x01, UInt8(round)])
      #expect(socket.waitReadable(milliseconds: 1000) == .readable)
      #expect(socket.receive() == [0x00, 0x01, UInt8(round)])
      #expect(socket.isQuickACK)  // an answer sent right after a receive would turn it off again
      #expect(socket.sendAll([0x00, 0x02, 0x90, 0x00]))
      #expect(peer.receive() == [0x90, 0x00])
    }
  }
}

/// Fault injection (docs/faults.md): `drop` closes the connection when the APDU arrives,
/// before the card sees it.
@Suite struct DropFault {
  @Test func theConnectionClosesUnansweredAtTheNthAPDU() throws {
    let listener = Listener()
    let card = RecordingCard()
    let bridge = VPCDBridge(serving: VPCDServedCard(card: card), host: "127.0.0.1", port: listener.port, dropAt: 2)
    let run = BridgeRun(bridge)
    let peer = Peer(fd: accept(listener.fd, nil, nil))
    defer { close(peer.fd) }
    peer.send([0x04])
    #expect(peer.receive() == [0x3B, 0x00])
    peer.send([0xFF, 0xCA, 0x00, 0x00, 0x00])
    #expect(peer.receive() == [0x90, 0x00])
    peer.send([0xFF, 0xB0, 0x00, 0x04, 0x10])
    #expect(try run.wait()?.get() == .droppedAt(2))
    #expect(peer.receive() == [])  // closed, no answer
    #expect(bridge.answered == 1)
  }
}
