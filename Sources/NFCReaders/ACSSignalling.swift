import Locking
import NFCTransport

/// A link whose reader may or may not have LED and buzzer commands: ``canSignal`` false makes
/// NFCSession's `signalReader` answer false, as for a link that is not `ReaderSignalling` at all.
public protocol OptionalReaderSignalling: ReaderSignalling {
  /// True when the reader is one whose LEDs and buzzer the link drives. It may ask the reader
  /// (its firmware escape, once per reader: `ACSSignalling`), never the tag.
  var canSignal: Bool { get }
}

/// A PC/SC Part 3 link (Type 2, Type 5, MIFARE Classic, ISO-DEP, FeliCa by direct transmit) whose reader may be an ACS
/// reader with LED and buzzer escapes: its signalling is ``ACSSignalling``'s, on its transport.
protocol ACSSignallingLink: OptionalReaderSignalling {
  /// The card's connection, whose reader is signalled.
  var transport: any APDUTransport { get }
}

extension ACSSignallingLink {
  /// True when the reader answered ACS's firmware escape with an ACR1252U's or ACR1552U's, or is
  /// named as an ACR1252U and has not refused the ACR122U's `FF 00 40` (``ACSSignalling``).
  public var canSignal: Bool { ACSSignalling.applies(to: transport) }
  /// Shows `signal` on an ACS reader's LEDs and buzzer: reader commands, which the card (and a
  /// MIFARE Classic's authenticated session) does not see.
  public func signal(_ signal: ReaderSignal) throws(TransceiveError) { try ACSSignalling.signal(signal, on: transport) }
  /// The card activated again through the reader (`APDUTransport.reactivateCard()`).
  public func reactivateCard() throws(TransceiveError) { try transport.reactivateCard() }
}

extension PartThreeType2Link: ACSSignallingLink {}
extension PartThreeType5Link: ACSSignallingLink {}
extension PartThreeClassicLink: ACSSignallingLink {}
extension APDUPassthroughLink: ACSSignallingLink {}
extension FeliCaDirectTransmitLink: ACSSignallingLink {}

/// The LEDs and buzzer of an ACS PC/SC reader (ACR1252U, ACR1552U) under a tag's link, told by
/// what the reader answers, its name only a hint.
///
/// The first signal on a reader asks ACS's Get Firmware Version escape (`E0 00 00 18 00`,
/// ACM1252U-Y3 Reference Manual §5.3.1) through `SCardControl` on the card's own connection
/// (``ReaderEscaping``: `PCSCCardTransport`), with `SCARD_CTL_CODE(3500)`, then `SCARD_CTL_CODE(1)`
/// (``ReaderIdentification/escapeCodes``): a firmware naming a model whose LEDs take ACS escapes
/// decides, whatever the reader's name, and its LED and buzzer escapes (``ACSEscape``) go with the
/// code that answered. When no code answers (a driver that refuses escapes, the in-process
/// simulator), the name is the hint: a reader named as an ACR1252U takes the ACR122U's `FF 00 40`
/// through the card (ACM1252U-Y3 Reference Manual §5.6.1, "ACR122U compatible"), and one that
/// refuses it too is refused with one line. What was found (the code, `FF 00 40`, or nothing) is
/// remembered per reader name for the process's life, so later tags send one control call per
/// LED or buzzer escape and no probe; a tag command sends none of it (docs/performance.md's
/// counts stay). A probe the card's removal cut short is not remembered.
enum ACSSignalling {
  /// How a reader's LEDs and buzzer are reached.
  enum Method: Equatable, Sendable {
    /// ACS escapes with this control code.
    case escapes(controlCode: UInt32)
    /// The ACR122U's `FF 00 40` through the card (an ACR1252U whose driver refuses escapes).
    case pseudoAPDUThroughCard
    /// None: the reader answered neither.
    case none
  }

  /// What each reader (by its PC/SC name) answered, for the process's life.
  static let remembered = Locked<[String: Method]>([:])

  /// True when `transport`'s reader is an ACS reader driven by escapes, or one named as an
  /// ACR1252U whose `FF 00 40` has not been refused.
  static func applies(to transport: any APDUTransport) -> Bool {
    (try? method(for: transport)).map { $0 != .none } ?? false
  }

  /// True when `transport` reaches `SCardControl` (through a trace, too).
  static func hasEscapes(_ transport: any APDUTransport) -> Bool {
    if let traced = transport as? TracingTransport { return hasEscapes(traced.base) }
    return transport is any ReaderEscaping
  }

  /// How `transport`'s reader is signalled: remembered, or asked once (see the type's comment).
  /// - Throws: `TransceiveError.tagRemoved` when the card left during the probe (nothing remembered).
  static func method(for transport: any APDUTransport) throws(TransceiveError) -> Method {
    let name = transport.readerName
    if let known = remembered.withLock({ $0[name] }) { return known }
    var found: Method?
    if hasEscapes(transport), let escape = transport as? any ReaderEscaping {
      for code in ReaderIdentification.escapeCodes where found == nil {
        do {
          let reply = try escape.control(code: code, ACSEscape.firmwareCommand)
          if let text = ACSEscape.firmware(in: reply), let model = ReaderModel.named(byFirmware: text),
             model.capabilities.signalling == .acsEscape {
            found = .escapes(controlCode: code)
          }
        } catch .tagRemoved {
          throw .tagRemoved
        } catch {
          continue  // this code refused: the next one
        }
      }
    }
    let method = found ?? (ReaderModel.hinted(byName: name) == .acr1252u ? .pseudoAPDUThroughCard : .none)
    remember(method, for: name)
    return method
  }

  private static func remember(_ method: Method, for name: String) {
    remembered.withLock { $0[name] = method }
  }

  /// Shows `signal` on `transport`'s reader.
  /// - Throws: `TransceiveError.unsupported(_:)` when the reader answers neither ACS's escapes
  ///   nor (named as an ACR1252U) the ACR122U's `FF 00 40`; the escape's or the card's failure
  ///   otherwise.
  static func signal(_ signal: ReaderSignal, on transport: any APDUTransport) throws(TransceiveError) {
    let name = transport.readerName
    switch try method(for: transport) {
    case .escapes(let code):
      guard let escape = transport as? any ReaderEscaping else { throw .unsupported("LEDs and buzzer on \(name)") }
      let acs = ACSEscape(escape: escape, code: code)
      try acs.setLEDs(first: signal == .failure, green: signal == .success)
      try acs.beep(milliseconds: signal == .success ? 100 : 300)
    case .pseudoAPDUThroughCard:
      do {
        try ACR122UControl(transport: transport).signal(signal)
      } catch .status, .malformedResponse {
        remember(.none, for: name)
        throw .unsupported(refusal(name))
      }
    case .none:
      throw .unsupported(refusal(name))
    }
  }

  /// Why `name` is not signalled, in one line.
  static func refusal(_ name: String) -> String {
    "LEDs and buzzer on \(name): it answers neither ACS's escapes (E0 00 00 18 00 through SCardControl) "
      + "nor the ACR122U's FF 00 40"
  }
}

extension PCSCCardTransport: ReaderEscaping {
  /// `SCardControl` on the card's connection (pcsc-lite takes it on any handle of the reader).
  /// - Throws: `TransceiveError.tagRemoved` when pcsc-lite says the card left (the connection is
  ///   spent), `TransceiveError.transport(_:)` with the PC/SC failure otherwise.
  public func control(code: UInt32, _ data: [UInt8]) throws(TransceiveError) -> [UInt8] {
    do throws(PCSCFailure) {
      return try card.control(code: code, data)
    } catch {
      if error.error == .removedCard { throw .tagRemoved }
      throw .transport(error.description)
    }
  }
}

extension TracingTransport: ReaderEscaping {
  /// The escape through the traced transport when it has escapes; unsupported otherwise.
  func control(code: UInt32, _ data: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard let escape = base as? any ReaderEscaping else { throw .unsupported("escapes through \(readerName)") }
    return try escape.control(code: code, data)
  }
}
