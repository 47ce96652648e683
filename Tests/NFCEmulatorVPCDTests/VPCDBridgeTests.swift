import Foundation
import NFCEmulator
import Testing
@testable import NFCEmulatorVPCD

/// A card that records what it was asked.
final class RecordingCard: VirtualCard {
  var events: [String] = []
  let atr: [UInt8] = [0x3B, 0x00]
  func powerOn() { events.append("on") }
  func powerOff() { events.append("off") }
  func reset() { events.append("reset") }
  func transmit(_ apdu: [UInt8]) -> [UInt8] {
    events.append("apdu")
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

  @Test func controlsAndAPDUs() {
    let card = RecordingCard()
    let bridge = VPCDBridge(card: card)
    #expect(bridge.handle([0x01]) == nil)
    #expect(bridge.handle([0x04]) == [0x3B, 0x00])
    #expect(bridge.handle([0x00]) == nil)
    #expect(bridge.handle([0x02]) == nil)
    #expect(bridge.handle([0xFF, 0xCA, 0x00, 0x00, 0x00]) == [0x90, 0x00])
    #expect(bridge.handle([0xEE, 0x00, 0x00, 0x00]) == [0x6F, 0x00])  // never an empty reply
    #expect(card.events == ["on", "off", "reset", "apdu", "apdu"])
  }
}

@Suite struct Loopback {
  /// The test plays pcscd: it listens, and the bridge connects as the card.
  @Test func servesPowerATRAndAPDUsThenRemovesAfterN() throws {
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    #expect(listener >= 0)
    defer { close(listener) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, length) } }
    listen(listener, 1)
    _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) } }
    let port = UInt16(bigEndian: address.sin_port)

    let bridge = VPCDBridge(card: RecordingCard(), host: "127.0.0.1", port: port, removeAfter: 2)
    let done = DispatchSemaphore(value: 0)
    nonisolated(unsafe) var end: VPCDBridgeEnd? = nil
    Thread.detachNewThread {
      end = try? bridge.run(firstConnectTimeout: 5)
      done.signal()
    }
    let peer = accept(listener, nil, nil)
    #expect(peer >= 0)
    defer { close(peer) }
    func send(_ payload: [UInt8]) { _ = VPCDFrame.encode(payload).withUnsafeBytes { write(peer, $0.baseAddress, $0.count) } }
    func receive() -> [UInt8] {
      var buffer: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 512)
      while true {
        let n = chunk.withUnsafeMutableBytes { read(peer, $0.baseAddress, $0.count) }
        if n <= 0 { return [] }
        buffer += chunk[0..<n]
        if let frame = VPCDFrame.decode(&buffer).first { return frame }
      }
    }
    send([0x01])
    send([0x04])
    #expect(receive() == [0x3B, 0x00])
    send([0xFF, 0xCA, 0x00, 0x00, 0x00])
    #expect(receive() == [0x90, 0x00])
    send([0xFF, 0xB0, 0x00, 0x04, 0x10])
    #expect(receive() == [0x90, 0x00])
    #expect(done.wait(timeout: .now() + 5) == .success)
    #expect(end == .removedAfterCommands(2))
    #expect(receive() == [])  // the connection is closed: the card was removed
  }
}
