// TLV blocks in the data areas of Type 1, Type 2 and Type 5 tags: the memory a walk reads, the
// data area and its control TLVs. The walk is TLVLayout.swift, the writer TLVWriter.swift.
//
// Source: NFC Forum T1T/T2T/T5T "TLV blocks"; nfcpy `tt1.py`/`tt2.py` `_read_ndef_data`,
// `_write_ndef_data`, `get_lock_byte_range`, `get_rsvd_byte_range`.

import NFCTransport

/// Tag memory that a TLV walk reads from, by absolute byte address, fetched lazily.
///
/// Platforms implement it over a block cache so the walk costs as few reader round trips as
/// possible: small reads may fetch ahead, large reads fetch exactly what they name.
public protocol TLVMemory: AnyObject {
  /// The bytes at `range` (absolute addresses from the first byte of tag memory).
  /// - Throws: ``TagError`` when the tag cannot be read or `range` lies outside its memory.
  func bytes(in range: Range<Int>) throws(TagError) -> [UInt8]
}

/// A ``TLVMemory`` over a complete memory image (a dump file, an emulated tag, a test).
public final class TLVMemoryImage: TLVMemory {
  /// The whole memory, address 0 first.
  public var image: [UInt8]

  public init(_ image: [UInt8]) { self.image = image }

  public func bytes(in range: Range<Int>) throws(TagError) -> [UInt8] {
    guard range.lowerBound >= 0, range.upperBound <= image.count else {
      throw .malformed("read of \(byteSpan(range)) past the end of the "
                       + "\(image.count)-byte memory", offset: nil)
    }
    return Array(image[range])
  }
}

/// Where the TLVs of a tag live: the data area and the bytes inside it that are never TLV bytes.
///
/// Type 2: `start` 16, `end` 16 + CC byte 2 × 8. Type 1: `start` 12, `end` from the CC, and
/// `reserved` 104..<120 (static) or 104..<128 (dynamic). Type 5: after the 4- or 8-byte CC.
public struct TLVArea: Hashable, Sendable {
  /// Absolute address of the first data-area byte.
  public var start: Int
  /// Absolute address one past the last data-area byte.
  public var end: Int
  /// Byte ranges that the platform itself reserves (skipped when walking).
  public var reserved: [Range<Int>]

  public init(start: Int, end: Int, reserved: [Range<Int>] = []) {
    self.start = start
    self.end = max(start, end)
    self.reserved = reserved
  }

  /// The size of the data area in bytes, reserved bytes included.
  public var size: Int { end - start }
}

/// A Lock Control (01h) or Memory Control (02h) TLV and the bytes it names.
///
/// The position byte holds a page number (high nibble) and a byte offset (low nibble); the low
/// nibble of PageControl is log2 of the bytes per page, so the address is
/// `page × 2^n + offset`. A Lock Control names `size` lock bits (0 = 256) in ⌈size/8⌉ bytes, each
/// bit locking 2^(PageControl high nibble) bytes; a Memory Control names `size` reserved bytes
/// (0 = 256). Source: NFC Forum T2T §2.3.2–2.3.3; nfcpy `get_lock_byte_range`, `get_rsvd_byte_range`.
public struct TLVControl: Hashable, Sendable {
  /// Lock Control or Memory Control.
  public enum Kind: Hashable, Sendable { case lock, memory }

  public var kind: Kind
  /// Absolute address of the TLV's type byte.
  public var tlvAddress: Int
  public var position: UInt8
  public var size: UInt8
  public var pageControl: UInt8

  public init(kind: Kind, tlvAddress: Int, position: UInt8, size: UInt8, pageControl: UInt8) {
    self.kind = kind
    self.tlvAddress = tlvAddress
    self.position = position
    self.size = size
    self.pageControl = pageControl
  }

  /// Bytes per page as PageControl's low nibble says.
  public var bytesPerPage: Int { 1 << Int(pageControl & 0x0F) }
  /// Absolute address of the first named byte.
  public var address: Int { Int(position >> 4) * bytesPerPage + Int(position & 0x0F) }
  /// Lock bits named (Lock Control only; 0 means 256).
  public var lockBitCount: Int { size == 0 ? 256 : Int(size) }
  /// Bytes locked by one lock bit (Lock Control only).
  public var bytesLockedPerBit: Int { 1 << Int(pageControl >> 4) }
  /// Number of bytes named: lock bytes or reserved bytes.
  public var byteCount: Int {
    switch kind {
    case .lock: return (lockBitCount + 7) / 8
    case .memory: return size == 0 ? 256 : Int(size)
    }
  }
  /// The named bytes, as absolute addresses.
  public var range: Range<Int> { address ..< address + byteCount }
}
