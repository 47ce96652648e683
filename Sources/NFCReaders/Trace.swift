import Logging
import NFCTransport
#if canImport(Glibc)
import Glibc
#endif

/// An APDUTransport that logs every exchange with its duration. Passwords never reach the log:
/// the arguments of PWD_AUTH (`1B`) inside direct transmit are masked.
final class TracingTransport: APDUTransport {
  let base: any APDUTransport
  let logger: Logger

  init(_ base: any APDUTransport, logger: Logger) {
    self.base = base
    self.logger = logger
  }

  var readerName: String { base.readerName }
  var atr: [UInt8] { base.atr }

  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    logger.trace("> \(maskedForTrace(apdu))")
    var start = timespec()
    clock_gettime(CLOCK_MONOTONIC, &start)
    func elapsed() -> String {
      var now = timespec()
      clock_gettime(CLOCK_MONOTONIC, &now)
      let micros = (now.tv_sec - start.tv_sec) * 1_000_000 + (now.tv_nsec - start.tv_nsec) / 1000
      return "\(micros / 1000).\(String(micros % 1000 / 100)) ms"
    }
    do {
      let reply = try base.transmit(apdu)
      logger.trace("< \(hexString(reply, separator: " ")) (\(elapsed()))")
      return reply
    } catch {
      logger.trace("< error: \(error) (\(elapsed()))")
      throw error
    }
  }
}

/// The APDU in hex, with any password masked.
func maskedForTrace(_ apdu: [UInt8]) -> String {
  // Direct transmit: FF 00 00 00 Lc D4 42 1B p0 p1 p2 p3 (or D4 40 Tg 1B …).
  if apdu.count >= 8, apdu.starts(with: [0xFF, 0x00, 0x00, 0x00]), apdu[5] == 0xD4 {
    let commandIndex = apdu[6] == 0x40 ? 8 : 7
    if apdu.count > commandIndex, apdu[commandIndex] == 0x1B {
      return hexString(apdu[...commandIndex], separator: " ") + " ********"
    }
  }
  return hexString(apdu, separator: " ")
}
