/// vpcd framing: every message is a 2-byte big-endian length and the payload.
/// vsmartcard `vpcd.c` (`sendToVICC`, `recvFromVICC`).
public enum VPCDFrame {
  /// pcscd → card control codes (1-byte messages).
  public static let powerOff: UInt8 = 0x00, powerOn: UInt8 = 0x01, reset: UInt8 = 0x02, getATR: UInt8 = 0x04

  /// nfctag's extension for `SCardControl`, which vpcd never sends (Drivers/ifd-nfctag,
  /// docs/ifd-handler.md): `10` announces a control request and is answered `10`; the next message
  /// is the control code (4 bytes, big-endian) and the data.
  public static let controlFollows: UInt8 = 0x10
  /// A control request's answer starts with one of these: answered (the answer follows), a code
  /// or data the reader does not take, a request too short to hold a code.
  public static let controlAnswered: UInt8 = 0x00, controlUnsupported: UInt8 = 0x01, controlMalformed: UInt8 = 0x02

  /// A framed message. A payload longer than a frame can say (65,535 bytes) becomes the status
  /// word `6F 00` instead: the bridge never traps on what a card model answers.
  public static func encode(_ payload: [UInt8]) -> [UInt8] {
    guard payload.count <= 0xFFFF else { return [0x00, 0x02, 0x6F, 0x00] }
    return [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
  }

  /// Splits complete frames off the front of `buffer`, leaving a partial one in place.
  ///
  /// The frames are cut at a moving offset and the buffer shortened once: removing each frame from
  /// the front would move the rest of the buffer per frame (quadratic in a read of many short frames).
  public static func decode(_ buffer: inout [UInt8]) -> [[UInt8]] {
    var frames: [[UInt8]] = []
    var start = 0
    while buffer.count - start >= 2 {
      let length = Int(buffer[start]) << 8 | Int(buffer[start + 1])
      guard buffer.count - start >= 2 + length else { break }
      frames.append(Array(buffer[(start + 2)..<(start + 2 + length)]))
      start += 2 + length
    }
    buffer.removeFirst(start)
    return frames
  }
}
