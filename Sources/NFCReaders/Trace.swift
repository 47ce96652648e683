import Locking
import Logging
import NFCTransport

/// An APDUTransport that logs every exchange with its duration. Secrets never reach the log: an
/// exchange inside ``SecretExchange/run(_:)`` shows only its headers, and a command that carries a
/// password by its own form (see ``secretHeaderLength(_:kind:)``) is masked after its header,
/// its answer's data with it, whoever sent it (`nfctag send` too).
///
/// Each exchange is two `trace` messages (the command, then the answer or the failure) whose text
/// is the event's ``APDUTraceEvent/description`` and whose metadata holds the event itself under
/// ``APDUTraceEvent/metadataKey``, so that a log handler can read the bytes without parsing text.
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
    let secret = SecretExchange.isActive
    let masked = maskedForTrace(apdu)
    log(secret ? APDUTraceEvent(command: apdu, shown: secretShownLength(apdu)) : masked.event)
    let start = monotonicSeconds()
    func elapsed() -> Int { Int((monotonicSeconds() - start) * 1_000_000) }
    do {
      let reply = try base.transmit(apdu)
      let hide = (secret || masked.carriesSecret) && reply.count > 2
      log(hide ? APDUTraceEvent(maskedAnswerWithStatus: Array(reply.suffix(2)), microseconds: elapsed())
               : APDUTraceEvent(answer: reply, microseconds: elapsed()))
      return reply
    } catch {
      log(APDUTraceEvent(failure: "\(error)", microseconds: elapsed()))
      throw error
    }
  }

  /// The base's reactivation, logged as one line (it carries no APDU).
  func reactivateCard() throws(TransceiveError) {
    logger.trace("reactivating the card (reader reset)")
    try base.reactivateCard()
  }

  private func log(_ event: APDUTraceEvent) {
    logger.trace("\(event.description)", metadata: [APDUTraceEvent.metadataKey: .stringConvertible(event)])
  }
}

/// The APDU as a trace event, with any secret it carries masked after its header;
/// `carriesSecret` says whether there was one (then the answer's data are masked too), `text` is
/// the event's line.
func maskedForTrace(_ apdu: [UInt8]) -> (event: APDUTraceEvent, text: String, carriesSecret: Bool) {
  if let (start, kind) = tagFrameStart(apdu), start < apdu.count,
     let header = secretHeaderLength(apdu[start...], kind: kind), apdu.count > start + header {
    let event = APDUTraceEvent(command: apdu, shown: start + header)
    return (event, String(event.description.dropFirst(2)), true)
  }
  let event = APDUTraceEvent(command: apdu, shown: nil)
  return (event, String(event.description.dropFirst(2)), false)
}

/// Where the tag's own frame starts in an APDU, and what carries it; nil for the reader's own
/// pseudo-APDUs.
private func tagFrameStart(_ apdu: [UInt8]) -> (Int, TagFrameCarrier)? {
  guard let cla = apdu.first else { return nil }
  if cla != 0xFF { return (0, .apdu) }
  if apdu.count >= 8, apdu.starts(with: [0xFF, 0x00, 0x00, 0x00]), apdu[5] == 0xD4 {
    return apdu[6] == 0x40 ? (8, .inDataExchange) : (7, .raw)
  }
  if apdu.count >= 8, apdu.starts(with: [0xFF, 0xC2, 0x00, 0x01]), let at = transceivedFrameStart(apdu) { return (at, .raw) }
  return nil
}

/// How many leading bytes of an APDU that carries a secret the trace shows: the reader's header
/// and the tag command with its address, then `********` for the data (direct transmit,
/// transparent exchange, UPDATE BINARY; any other APDU shows only CLA INS P1 P2); nil when the
/// APDU is too short to hold more than that.
func secretShownLength(_ apdu: [UInt8]) -> Int? {
  // The tag command and its address byte stay; PWD_AUTH (1B) has no address: its data starts at once.
  func frame(at index: Int) -> Int { index < apdu.count && apdu[index] == 0x1B ? index + 1 : index + 2 }
  let shown: Int
  if apdu.count >= 8, apdu.starts(with: [0xFF, 0x00, 0x00, 0x00]), apdu[5] == 0xD4 {
    shown = frame(at: apdu[6] == 0x40 ? 8 : 7)
  } else if apdu.count >= 8, apdu.starts(with: [0xFF, 0xC2, 0x00, 0x01]), let at = transceivedFrameStart(apdu) {
    shown = frame(at: at)
  } else if apdu.count >= 5, apdu[1] == 0xD6 {
    shown = 5
  } else {
    shown = 4
  }
  return apdu.count > shown ? shown : nil
}

/// The index of the first frame byte of the `95` (transceive) object in a Transparent Exchange
/// APDU, or nil when the data objects do not parse that far.
private func transceivedFrameStart(_ apdu: [UInt8]) -> Int? {
  let end = min(apdu.count, 5 + Int(apdu[4]))
  var i = 5
  while i < end {
    let tag0 = apdu[i]
    var tag = Int(tag0)
    i += 1
    if tag0 & 0x1F == 0x1F {
      guard i < end else { return nil }
      tag = tag << 8 | Int(apdu[i])
      i += 1
    }
    guard i < end else { return nil }
    var length = Int(apdu[i])
    i += 1
    if length == 0x81 {
      guard i < end else { return nil }
      length = Int(apdu[i])
      i += 1
    } else if length > 0x81 {
      return nil
    }
    if tag == 0x95 { return i }
    i += length
  }
  return nil
}
