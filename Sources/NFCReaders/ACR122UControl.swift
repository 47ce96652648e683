import NFCTransport
import PCSC

/// ACS ACR122U pseudo-APDUs beyond tag access: firmware, LED and buzzer, PICC polling
/// parameters. ACS "ACR122U Application Programming Interface" V2.04 §6.
public struct ACR122UControl {
  let transport: any APDUTransport
  /// Pseudo-APDUs sent through `transport` (a ``ReaderCommandTransport``, or a card's transport).
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
    return try signal(leds: control, t1: t1, t2: t2, repetitions: repetitions, buzzer: buzzer)
  }

  /// `FF 00 40 leds 04 T1 T2 reps buzzer` with the LED control byte as it is (ACR122U API V2.04
  /// §6.2: bits 2–3 say which LED to update, so `00` leaves both as they are and only beeps).
  /// - Returns: the LED state the reader reports (bit 0 red, bit 1 green).
  @discardableResult
  public func signal(leds control: UInt8, t1: UInt8, t2: UInt8, repetitions: UInt8, buzzer: Buzzer) throws(TransceiveError) -> UInt8 {
    let reply = try transport.transmit([0xFF, 0x00, 0x40, control, 0x04, t1, t2, repetitions, buzzer.rawValue])
    guard reply.count == 2, let sw = StatusWord(trailerOf: reply) else { throw .malformedResponse(reply) }
    // The reader answers 90 <LED state>: SW1 90 is success here, SW2 carries the state.
    guard sw.sw1 == 0x90 else { throw .status(sw) }
    return sw.sw2
  }

  /// Turns the beep on card detection on or off (`FF 00 52 FF 00` / `FF 00 52 00 00`).
  public func setDetectionBuzzer(_ on: Bool) throws(TransceiveError) {
    let reply = try transport.transmit([0xFF, 0x00, 0x52, on ? 0xFF : 0x00, 0x00])
    guard reply.count == 2, let sw = StatusWord(trailerOf: reply) else { throw .malformedResponse(reply) }
    guard sw.sw1 == 0x90 else { throw .status(sw) }
  }

  /// Reads the PICC operating parameter (`FF 00 50 00 00`): which card types the reader polls for.
  public func pollingParameter() throws(TransceiveError) -> UInt8 {
    let reply = try transport.transmit([0xFF, 0x00, 0x50, 0x00, 0x00])
    // The reader answers 90 <parameter>: SW1 90 is success here, SW2 carries the value.
    guard reply.count == 2, let sw = StatusWord(trailerOf: reply), sw.sw1 == 0x90 else { throw .malformedResponse(reply) }
    return sw.sw2
  }
}

/// Pseudo-APDUs to the reader itself, over whichever path the reader and its driver allow.
///
/// The escape IOCTL on a direct connection works without a card (libccid's
/// `SCARD_CTL_CODE(1)` when its Info.plist authorises it; acsccid's and Windows'
/// `SCARD_CTL_CODE(3500)`), as libnfc's `acr122_pcsc.c` does; when the driver refuses both (vpcd,
/// or libccid without `DRIVER_OPTION_CCID_EXCHANGE_AUTHORIZED`) the pseudo-APDUs go through
/// `SCardTransmit` to a card in the field. Source: libccid `ifdhandler.c`; libnfc `acr122_pcsc.c`;
/// vsmartcard `ifd-vpcd.c`.
public final class ReaderCommandTransport: APDUTransport {
  /// The PC/SC name of the reader.
  public let readerName: String
  /// The ATR of the connection: the card's, or empty on a direct connection without a card.
  public let atr: [UInt8]
  private let card: Card
  private let escapeCode: UInt32?

  /// Opens `reader` for reader commands.
  /// - Throws: `PollError.readerUnavailable(_:)` when neither an escape path nor a card is
  ///   there, with what to do.
  public init(context: PCSCContext, reader: String) throws(PollError) {
    readerName = reader
    if let direct = try? context.connect(reader: reader, share: .direct, protocols: CardProtocol(rawValue: 0)) {
      for code: UInt32 in [3500, 1] {
        // The firmware query answers on every ACR122U: it tells whether this escape code passes.
        if let reply = try? direct.control(code: code, [0xFF, 0x00, 0x48, 0x00, 0x00]), !reply.isEmpty {
          card = direct
          escapeCode = code
          atr = []
          return
        }
      }
      try? direct.disconnect(.leave)
    }
    do {
      card = try context.connect(reader: reader)
      atr = (try? card.status().atr) ?? []
      escapeCode = nil
    } catch {
      switch error.error {
      case .noSmartcard, .removedCard:
        throw .readerUnavailable("\(reader) takes reader commands only with a tag in the field (its driver refuses "
                                 + "escape commands)")
      default:
        throw PollError(error)
      }
    }
  }

  /// Sends one pseudo-APDU, through the escape IOCTL when the driver allows it, else to the card.
  /// - Throws: `TransceiveError.transport(_:)` when PC/SC fails.
  public func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    do {
      if let escapeCode { return try card.control(code: escapeCode, apdu) }
      return try card.transmit(apdu)
    } catch {
      throw .transport(error.description)
    }
  }

  /// Releases the connection.
  public func close() { try? card.disconnect(.leave) }
}

extension ACR122UControl {
  /// The outcome of a tag, shown on the reader: green and one 100 ms beep (T1 = 100 ms, T2 = 0,
  /// once: the reader answers after 100 ms), or red and two beeps (T1 = T2 = 100 ms, twice), the
  /// buzzer on during T1. ACR122U API §6.2.
  public func signal(_ outcome: ReaderSignal) throws(TransceiveError) {
    switch outcome {
    case .success:
      try signal(red: false, green: true, blinkGreen: true, t1: 1, t2: 0, repetitions: 1, buzzer: .duringT1)
    case .failure:
      try signal(red: true, green: false, blinkRed: true, t1: 1, t2: 1, repetitions: 2, buzzer: .duringT1)
    }
  }
}

/// A link to a tag on an ACR122U: the reader's LEDs and buzzer through its `FF 00 40`
/// (``ACR122UControl/signal(_:)``), a reader pseudo-APDU which the PN532's session with the card
/// (a MIFARE Classic's Crypto1 included) does not see.
protocol ACR122USignallingLink: ReaderSignalling {
  /// The connection to the ACR122U.
  var transport: any APDUTransport { get }
}

extension ACR122USignallingLink {
  /// Shows `signal` on the reader's LEDs and buzzer (``ACR122UControl/signal(_:)``).
  public func signal(_ signal: ReaderSignal) throws(TransceiveError) { try ACR122UControl(transport: transport).signal(signal) }
  /// The card activated again through the reader (`APDUTransport.reactivateCard()`).
  public func reactivateCard() throws(TransceiveError) { try transport.reactivateCard() }
}

extension ACR122UType1Link: ACR122USignallingLink {}
extension ACR122UType2Link: ACR122USignallingLink {}
extension ACR122UExchangeLink: ACR122USignallingLink {}
extension ACR122UClassicLink: ACR122USignallingLink {}
extension ACR122UType4Link: ACR122USignallingLink {}
