import NFCTransport

/// A link whose reader may or may not have LED and buzzer commands, which it knows without an
/// exchange: ``canSignal`` false makes NFCSession's `signalReader` answer false, as for a link
/// that is not `ReaderSignalling` at all.
public protocol OptionalReaderSignalling: ReaderSignalling {
  /// True when the reader is one whose LEDs and buzzer the link drives.
  var canSignal: Bool { get }
}

/// The LEDs and buzzer of an ACS PC/SC reader (ACR1252U, ACR1552U) under a tag's link.
///
/// Which reader it is comes from its name (`ReaderModel.hinted(byName:)`): a tag command sends
/// no extra probe for it (docs/performance.md's counts stay), and the signal itself is the check.
/// The escapes (``ACSEscape``) go through `SCardControl` on the card's own connection when the
/// transport has one (``ReaderEscaping``: `PCSCCardTransport`), with `SCARD_CTL_CODE(3500)`, then
/// `SCARD_CTL_CODE(1)`; when neither passes, the ACR1252U takes the ACR122U's `FF 00 40` through
/// the card (ACM1252U-Y3 Reference Manual §5.6.1, "ACR122U compatible").
enum ACSSignalling {
  /// True when `transport`'s reader is an ACS reader driven by escapes and there is a way to send
  /// them: `SCardControl` on the connection, or (the ACR1252U) `FF 00 40` through the card. An
  /// in-process simulator has no `SCardControl`: there only the ACR1252U signals.
  static func applies(to transport: any APDUTransport) -> Bool {
    guard let model = ReaderModel.hinted(byName: transport.readerName), model.capabilities.signalling == .acsEscape else {
      return false
    }
    return model == .acr1252u || hasEscapes(transport)
  }

  /// True when `transport` reaches `SCardControl` (through a trace, too).
  static func hasEscapes(_ transport: any APDUTransport) -> Bool {
    if let traced = transport as? TracingTransport { return hasEscapes(traced.base) }
    return transport is any ReaderEscaping
  }

  /// Shows `signal` on `transport`'s reader.
  /// - Throws: `TransceiveError.unsupported(_:)` when the reader is no such ACS reader or refuses
  ///   every path; the escape's or the card's failure otherwise.
  static func signal(_ signal: ReaderSignal, on transport: any APDUTransport) throws(TransceiveError) {
    let model = ReaderModel.hinted(byName: transport.readerName)
    guard let model, model.capabilities.signalling == .acsEscape else {
      throw .unsupported("LEDs and buzzer on \(transport.readerName)")
    }
    if hasEscapes(transport), let escape = transport as? any ReaderEscaping {
      for code in ReaderIdentification.escapeCodes {
        let acs = ACSEscape(escape: escape, code: code)
        // The LED escape is the probe: a driver that refuses the code fails it at once.
        if (try? acs.setLEDs(first: signal == .failure, green: signal == .success)) != nil {
          try acs.beep(milliseconds: signal == .success ? 100 : 300)
          return
        }
      }
    }
    guard model == .acr1252u else {
      throw .unsupported("LEDs and buzzer on \(transport.readerName): its driver refuses ACS escapes")
    }
    try ACR122UControl(transport: transport).signal(signal)
  }
}

extension PartThreeType2Link: OptionalReaderSignalling {
  /// True on an ACS ACR1252U or ACR1552U (by its name).
  public var canSignal: Bool { ACSSignalling.applies(to: transport) }
  /// Shows `signal` on an ACS reader's LEDs and buzzer.
  public func signal(_ signal: ReaderSignal) throws(TransceiveError) { try ACSSignalling.signal(signal, on: transport) }
  /// The card activated again through the reader (`APDUTransport.reactivateCard()`).
  public func reactivateCard() throws(TransceiveError) { try transport.reactivateCard() }
}

extension PartThreeType5Link: OptionalReaderSignalling {
  /// True on an ACS ACR1552U (by its name).
  public var canSignal: Bool { ACSSignalling.applies(to: transport) }
  /// Shows `signal` on an ACS reader's LEDs and buzzer.
  public func signal(_ signal: ReaderSignal) throws(TransceiveError) { try ACSSignalling.signal(signal, on: transport) }
  /// The card activated again through the reader (`APDUTransport.reactivateCard()`).
  public func reactivateCard() throws(TransceiveError) { try transport.reactivateCard() }
}

extension PartThreeClassicLink: OptionalReaderSignalling {
  /// True on an ACS ACR1252U or ACR1552U (by its name).
  public var canSignal: Bool { ACSSignalling.applies(to: transport) }
  /// Shows `signal` on an ACS reader's LEDs and buzzer: reader commands, which the card's
  /// authenticated session does not see.
  public func signal(_ signal: ReaderSignal) throws(TransceiveError) { try ACSSignalling.signal(signal, on: transport) }
  /// The card activated again through the reader (`APDUTransport.reactivateCard()`).
  public func reactivateCard() throws(TransceiveError) { try transport.reactivateCard() }
}

extension APDUPassthroughLink: OptionalReaderSignalling {
  /// True on an ACS ACR1252U or ACR1552U (by its name).
  public var canSignal: Bool { ACSSignalling.applies(to: transport) }
  /// Shows `signal` on an ACS reader's LEDs and buzzer.
  public func signal(_ signal: ReaderSignal) throws(TransceiveError) { try ACSSignalling.signal(signal, on: transport) }
  /// The card activated again through the reader (`APDUTransport.reactivateCard()`).
  public func reactivateCard() throws(TransceiveError) { try transport.reactivateCard() }
}

extension PCSCCardTransport: ReaderEscaping {
  /// `SCardControl` on the card's connection (pcsc-lite takes it on any handle of the reader).
  public func control(code: UInt32, _ data: [UInt8]) throws(TransceiveError) -> [UInt8] {
    do { return try card.control(code: code, data) } catch { throw .transport(error.description) }
  }
}

extension TracingTransport: ReaderEscaping {
  /// The escape through the traced transport when it has escapes; unsupported otherwise.
  func control(code: UInt32, _ data: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard let escape = base as? any ReaderEscaping else { throw .unsupported("escapes through \(readerName)") }
    return try escape.control(code: code, data)
  }
}
