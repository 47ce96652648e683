/// A card-level link that carries whole APDUs: a PC/SC card handle, or an emulated reader face.
///
/// Reader drivers (NFCReaders) build tag ``Transceiver``s on top of this, so the in-process
/// simulator (`--reader sim:…`) swaps only this layer and runs the same driver code as hardware.
public protocol APDUTransport: AnyObject {
  /// The reader's name.
  var readerName: String { get }
  /// The ATR of the card in the reader.
  var atr: [UInt8] { get }
  /// Sends one command APDU; the answer keeps SW1 SW2.
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8]
  /// Has the reader activate and select the card in its field again, as after a new arrival:
  /// a PC/SC card handle reconnects with a warm reset (`SCardReconnect`, `SCARD_RESET_CARD`), an
  /// emulated reader face gets its reset. A MIFARE Classic needs it after a refused
  /// authentication (NXP AN1304 §6.4.1). The default refuses with `unsupported`.
  /// - Throws: `TransceiveError.tagRemoved` when the card left, or the transport's failure.
  func reactivateCard() throws(TransceiveError)
}

extension APDUTransport {
  /// Refuses: this transport cannot have the card activated again.
  public func reactivateCard() throws(TransceiveError) {
    throw .unsupported("activating the card again through \(readerName)")
  }
}

/// An ``APDUTransport`` that counts what passes through it into an ``ExchangeCounter``.
public final class CountingAPDUTransport: APDUTransport, Sendable {
  public let base: any APDUTransport & Sendable
  private let counter: ExchangeCounter
  public init(_ base: any APDUTransport & Sendable, counter: ExchangeCounter) {
    self.base = base
    self.counter = counter
  }
  public var readerName: String { base.readerName }
  public var atr: [UInt8] { base.atr }
  public func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    counter.increment()
    return try base.transmit(apdu)
  }
  /// The base's reactivation, counted as one exchange (the reader's round trip).
  public func reactivateCard() throws(TransceiveError) {
    counter.increment()
    try base.reactivateCard()
  }
}
