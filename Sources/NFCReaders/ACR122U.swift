import NFCTransport
import PCSC

/// ACS ACR122U pseudo-APDUs beyond tag access: firmware, LED and buzzer, PICC polling
/// parameters. ACS "ACR122U Application Programming Interface" V2.04 §6; reference §5.2.
public struct ACR122UControl {
  let transport: any APDUTransport
  public init(transport: any APDUTransport) { self.transport = transport }

  /// The firmware string (`FF 00 48 00 00`), for example "ACR122U207"; it has no status word.
  public func firmware() throws(TransceiveError) -> String {
    let reply = try transport.transmit([0xFF, 0x00, 0x48, 0x00, 0x00])
    guard reply.starts(with: Array("ACR122".utf8)) else { throw .malformedResponse(reply) }
    return String(decoding: reply, as: UTF8.self)
  }

  /// LED states for ``signal(red:green:blinkRed:blinkGreen:t1:t2:repetitions:buzzer:)``.
  public enum Buzzer: UInt8, Sendable { case off = 0, duringT1 = 1, duringT2 = 2, both = 3 }

  /// Sets the LEDs and buzzer (`FF 00 40 P2 04 T1 T2 reps buzzer`); T1/T2 in 100 ms units.
  /// - Returns: the LED state the reader reports (bit 0 red, bit 1 green).
  @discardableResult
  public func signal(red: Bool, green: Bool, blinkRed: Bool = false, blinkGreen: Bool = false,
                     t1: UInt8 = 0, t2: UInt8 = 0, repetitions: UInt8 = 0, buzzer: Buzzer = .off) throws(TransceiveError) -> UInt8 {
    var control: UInt8 = 0x0C  // update both LEDs (red and green masks)
    if red { control |= 0x01 }
    if green { control |= 0x02 }
    if blinkRed { control |= 0x40 | 0x10 }
    if blinkGreen { control |= 0x80 | 0x20 }
    let reply = try transport.transmit([0xFF, 0x00, 0x40, control, 0x04, t1, t2, repetitions, buzzer.rawValue])
    guard reply.count == 2, reply[0] == 0x90 else {
      throw reply.count == 2 ? .status(UInt16(reply[0]) << 8 | UInt16(reply[1])) : .malformedResponse(reply)
    }
    return reply[1]
  }

  /// Reads the PICC operating parameter (`FF 00 50 00 00`): which card types the reader polls for.
  public func pollingParameter() throws(TransceiveError) -> UInt8 {
    let reply = try transport.transmit([0xFF, 0x00, 0x50, 0x00, 0x00])
    guard reply.count == 2, reply[0] == 0x90 else { throw .malformedResponse(reply) }
    return reply[1]
  }
}

/// Core NFC's `readingAvailable`: true when pcscd answers and at least one reader is attached.
public func readingAvailable() -> Bool {
  guard let context = try? PCSCContext(), let readers = try? context.listReaders() else { return false }
  return !readers.isEmpty
}
