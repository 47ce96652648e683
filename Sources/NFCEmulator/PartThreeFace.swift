import NFCTransport

/// A generic PC/SC Part 3 contactless reader with ISO 15693 (ACR1552U-like).
public final class PartThreeFace: VirtualCard {
  /// The tag in the field.
  public let tag: any VirtualTag
  public init(tag: any VirtualTag) throws(EmulatorError) { self.tag = tag }
  public var atr: [UInt8] { [0x3B, 0x00] }
  public func powerOn() { tag.reset() }
  public func powerOff() { tag.reset() }
  public func reset() { tag.reset() }
  public func transmit(_ apdu: [UInt8]) -> [UInt8] { [0x6A, 0x81] }
}
