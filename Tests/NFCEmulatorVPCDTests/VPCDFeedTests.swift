import Foundation
import NFCEmulator
import NFCTransport
import Testing
@testable import NFCEmulatorVPCD

/// A sequence of cards through the bridge, against a loopback listener playing vpcd: a card
/// leaves after the LED command or its idle hand; the next one connects at once when vpcd ejected
/// the last one on a presence poll, and half a second later otherwise.
@Suite struct VPCDFeed {
  static let led: [UInt8] = [0xFF, 0x00, 0x40, 0x2E, 0x04, 0x01, 0x01, 0x01, 0x01]

  /// Three recording cards: the first two leave after 60 s of silence or the LED command, the
  /// third after 150 ms.
  static func bridge(port: UInt16, events: EventLog) -> VPCDBridge? {
    var made = 0
    return VPCDBridge(sequence: {
      guard made < 3 else { return nil }
      made += 1
      let index = made
      return VPCDServedCard(card: RecordingCard(log: events), departure: TagDeparture(handMilliseconds: index == 3 ? 150 : 60_000)) { departure in
        events.append("left \(index) \(departure?.leaving == true ? "led" : departure?.lastCommand == nil ? "untouched" : "idle")")
      }
    }, host: "127.0.0.1", port: port)
  }

  /// vpcd ejecting the card: it reads the end of the stream and closes its end.
  static func expectEndOfStream(_ peer: Peer) {
    #expect(peer.receive() == [], "the bridge stopped sending")
    close(peer.fd)
  }

  @Test func cardsLeaveAndTheNextConnects() throws {
    let listener = Listener()
    let events = EventLog()
    let bridge = try #require(Self.bridge(port: listener.port, events: events))
    let run = BridgeRun(bridge)

    // Card 1: the LED command is answered, then the card leaves; vpcd's next presence poll ejects it.
    let first = Peer(fd: accept(listener.fd, nil, nil))
    first.send([0x04])
    #expect(first.receive() == [0x3B, 0x00])
    first.send([0xFF, 0xCA, 0x00, 0x00, 0x00])
    #expect(first.receive() == [0x90, 0x00])
    first.send(Self.led)
    #expect(first.receive() == [0x90, 0x00])
    first.send([0x04])                       // presence poll: the bridge reads it and answers nothing
    Self.expectEndOfStream(first)
    let ejected = Date()

    // Card 2 connects at once; it is ejected on a power-on, so card 3 waits half a second.
    let second = Peer(fd: accept(listener.fd, nil, nil))
    #expect(Date().timeIntervalSince(ejected) < 0.4)
    second.send([0x04])
    #expect(second.receive() == [0x3B, 0x00])
    second.send(Self.led)
    #expect(second.receive() == [0x90, 0x00])
    second.send([0x01])
    second.send([0x04])
    Self.expectEndOfStream(second)
    let ejectedAgain = Date()

    // Card 3 leaves 150 ms after its last command.
    let third = Peer(fd: accept(listener.fd, nil, nil))
    #expect(Date().timeIntervalSince(ejectedAgain) >= 0.45)
    third.send([0xFF, 0xCA, 0x00, 0x00, 0x00])
    #expect(third.receive() == [0x90, 0x00])
    let talked = Date()
    third.send([0x00])                       // power off needs no answer: the hand still counts
    #expect(third.receive() == [])           // the bridge shut its side after the hand time
    #expect(Date().timeIntervalSince(talked) >= 0.14)
    third.send([0x04])
    close(third.fd)

    guard case .success(let end)? = run.wait() else { Issue.record("the bridge did not end"); return }
    #expect(end == .allCardsLeft(3))
    #expect(events.events.filter { $0.hasPrefix("left") } == ["left 1 led", "left 2 led", "left 3 idle"])
  }

  @Test func stopSavesTheCardInTheField() throws {
    let listener = Listener()
    let events = EventLog()
    let bridge = try #require(Self.bridge(port: listener.port, events: events))
    let run = BridgeRun(bridge)
    let peer = Peer(fd: accept(listener.fd, nil, nil))
    defer { close(peer.fd) }
    peer.send([0x04])
    #expect(peer.receive() == [0x3B, 0x00])   // a card nobody sent a command to stays
    Thread.sleep(forTimeInterval: 0.3)
    bridge.stop()
    guard case .success(let end)? = run.wait() else { Issue.record("the bridge did not end"); return }
    #expect(end == .stopped)
    #expect(events.events == ["left 1 untouched"])
  }
}
