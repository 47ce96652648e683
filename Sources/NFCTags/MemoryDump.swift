/// A whole-memory read (`dump --memory`): the bytes, and whether they are all the tag's memory.
///
/// Most platforms know their memory's size (the chip names itself, or the tag's own structures
/// give it). A Type 2 tag behind a reader that passes READ BINARY only cannot be asked
/// GET_VERSION, and the CC gives the NDEF data area, not the memory after it (lock, configuration
/// and password pages): such a dump says how far it got and why, so that a short image is never
/// taken for a whole one.
public struct MemoryDump: Sendable, Hashable {
  /// How far the memory goes, as far as the read could tell.
  public enum Extent: Sendable, Hashable {
    /// The size is the chip's: ``MemoryDump/bytes`` is the whole memory.
    case known
    /// The chip is unknown, and the pages after the CC's data area were read one by one until the
    /// page at byte `refusedAt` was refused; nil when none was, up to the last page READ can
    /// address (FFh). The memory ends there, or the tag protects the pages from there (a
    /// password's read protection): the read cannot tell the two apart.
    case probed(refusedAt: Int?)
    /// The chip is unknown and the link cannot read one page alone: only the CC's data area (or,
    /// without a CC, the first 16 pages) was read, and more memory may follow.
    case unknown
  }

  /// The bytes read, in address order from address 0 (the image-file layout).
  public var bytes: [UInt8]
  /// Whether ``bytes`` is the whole memory.
  public var extent: Extent

  /// A dump of `bytes` whose extent is `extent`.
  public init(bytes: [UInt8], extent: Extent) {
    self.bytes = bytes
    self.extent = extent
  }

  /// True when the bytes are known to be the whole memory.
  public var isWhole: Bool { extent == .known }
}

/// A platform whose whole-memory read may not know how large the memory is (a Type 2 tag whose
/// chip did not name itself). Platforms without it know their size: their
/// ``NDEFTagPlatform/readMemory()`` is the whole memory.
public protocol MemoryDumping: NDEFTagPlatform {
  /// The whole readable memory, with what is known of its extent. It may end with a command the
  /// tag refuses, after which the tag may need to be selected again.
  func readMemoryDump() throws(TagError) -> MemoryDump
}
