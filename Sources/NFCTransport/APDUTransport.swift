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
}
