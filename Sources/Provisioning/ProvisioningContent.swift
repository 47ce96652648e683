import NFCTags

/// One row's message for one tag, ready to write.
public struct RenderedMessage: Sendable, Equatable {
  /// The encoded NDEF message.
  public var bytes: [UInt8]
  /// Where the `{mirror}` room lies in `bytes` (ASCII `0`s the tag's mirror shows over), if any.
  public var mirror: MirrorRoom?

  public init(bytes: [UInt8], mirror: MirrorRoom? = nil) {
    self.bytes = bytes; self.mirror = mirror
  }
}

/// The room a message keeps for the NTAG21x mirror.
public struct MirrorRoom: Sendable, Equatable {
  /// What the tag mirrors there.
  public var mode: NTAG21xMirror.Mode
  /// Byte offset of the room in the encoded message.
  public var offset: Int

  public init(mode: NTAG21xMirror.Mode, offset: Int) {
    self.mode = mode; self.offset = offset
  }

  /// The mirror for a message whose NDEF TLV starts at `tlvAddress` in memory.
  public func mirror(tlvAddress: Int, messageLength: Int) -> NTAG21xMirror? {
    let address = tlvAddress + 1 + (messageLength < 0xFF ? 1 : 3) + offset
    guard let page = UInt8(exactly: address / 4) else { return nil }
    return NTAG21xMirror(mode: mode, page: page, byte: UInt8(address % 4))
  }
}

/// Why a row could not be rendered (one line naming the row).
public struct RenderFailure: Error, Sendable, Equatable, CustomStringConvertible {
  public var description: String
  public init(_ description: String) { self.description = description }
}

/// What a run writes: a message per row and tag. Made from the rows file and the template
/// (``ProvisioningJob``); tests give their own.
public protocol ProvisioningContent: Sendable {
  /// The message of row `rowID` (`sequence` is its `{n}`) for the tag `uid`.
  func render(rowID: String, sequence: Int, uid: [UInt8]) throws(RenderFailure) -> RenderedMessage
  /// One line per row whose message would not fit in `capacity` bytes, in row order.
  func rowsExceeding(capacity: Int) -> [String]
}
