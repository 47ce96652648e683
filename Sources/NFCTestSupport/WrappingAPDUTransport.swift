import NFCTransport

/// A test transport that wraps another to change or watch some of what passes (answers damaged,
/// commands recorded, a reactivation refused): the reader's name and the ATR are the base's.
public protocol WrappingAPDUTransport: APDUTransport {
  /// The transport wrapped.
  var base: any APDUTransport { get }
}

extension WrappingAPDUTransport {
  /// The base's reader name.
  public var readerName: String { base.readerName }
  /// The base's ATR.
  public var atr: [UInt8] { base.atr }
}
