// The TLV structure of a data area, found by a lazy walk (TLVLayout.parse), and its NDEF message.
//
// Source: NFC Forum T1T/T2T/T5T "TLV blocks"; nfcpy `tt1.py`/`tt2.py` `_read_ndef_data`,
// `_write_ndef_data`, `get_lock_byte_range`, `get_rsvd_byte_range`.

import NFCTransport

/// The TLV structure of a data area: control TLVs, the NDEF TLV and where a new one would go.
///
/// Built by ``parse(memory:area:)``; used by ``TLVWriter`` to plan a tear-safe write.
/// Source: NFC Forum T2T 1.0 §2.3; nfcpy `_read_ndef_data`.
public struct TLVLayout: Hashable, Sendable {
  /// The data area walked.
  public var area: TLVArea
  /// Lock and Memory Control TLVs met before the NDEF TLV, in order.
  public var controls: [TLVControl]
  /// Every byte range skipped when reading or writing TLVs: the area's own reserved ranges plus
  /// the ranges named by control TLVs. Sorted by start.
  public var reservedRanges: [Range<Int>]
  /// Absolute address of the NDEF TLV's type byte (03h); nil when the area holds no NDEF TLV.
  public var ndefTLVAddress: Int?
  /// Absolute address of the first NDEF message byte (after the length field and any reserved
  /// bytes); nil without an NDEF TLV.
  public var ndefOffset: Int?
  /// Length of the NDEF message (0 for an empty one, or without an NDEF TLV).
  public var ndefLength: Int
  /// 1 or 3 (the `FF hh ll` form); 0 without an NDEF TLV.
  public var lengthFieldSize: Int
  /// Absolute address of the Terminator TLV when the walk met one before any NDEF TLV.
  public var terminatorAddress: Int?
  /// Where an NDEF TLV is (or would be) written: the NDEF TLV's address, else the first byte
  /// after the last non-NULL TLV. Nil when no byte is left.
  public var writeAddress: Int?

  /// The Lock Control ranges (lock bytes), in order.
  public var lockRanges: [Range<Int>] { controls.filter { $0.kind == .lock }.map(\.range) }

  /// True when `address` is a reserved or lock byte.
  public func isReserved(_ address: Int) -> Bool {
    reservedRanges.contains { $0.contains(address) }
  }

  /// `address`, or the first address after it that is not reserved.
  func skipReserved(_ address: Int) -> Int {
    var a = address
    var moved = true
    while moved {
      moved = false
      for range in reservedRanges where range.contains(a) {
        a = range.upperBound
        moved = true
      }
    }
    return a
  }

  /// Up to `limit` usable (not reserved) data-area addresses from `address` on, in order.
  public func usableAddresses(from address: Int, limit: Int = .max) -> [Int] {
    var out: [Int] = []
    var a = skipReserved(max(address, area.start))
    while a < area.end, out.count < limit {
      out.append(a)
      a = skipReserved(a + 1)
    }
    return out
  }

  /// Usable bytes from `address` to the end of the data area.
  public func usableCount(from address: Int) -> Int { usableAddresses(from: address).count }

  /// The largest NDEF message that fits at ``writeAddress``: usable bytes minus the TLV header
  /// (2 bytes, or 4 for messages of 255 bytes and more).
  public var capacity: Int {
    guard let start = writeAddress else { return 0 }
    return TLVLayout.capacity(usableBytes: usableCount(from: start))
  }

  /// The largest NDEF message an NDEF TLV can carry in `usableBytes` bytes.
  public static func capacity(usableBytes n: Int) -> Int {
    if n - 4 >= 255 { return min(n - 4, 0xFFFE) }
    return max(0, min(n - 2, 254))
  }

  /// The memory map in words, for `info` ("lock bytes 160–161; NDEF TLV at byte 16, 15 bytes").
  public var summary: String {
    var parts: [String] = []
    for control in controls {
      parts.append((control.kind == .lock ? "lock " : "reserved ") + byteSpan(control.range))
    }
    if let ndefTLVAddress {
      parts.append("NDEF TLV at byte \(ndefTLVAddress), \(ndefLength) bytes")
    } else {
      parts.append("no NDEF TLV")
    }
    return parts.joined(separator: "; ")
  }

  /// The memory map for programs: `{"lockBytes":[{"start":160,"size":2}],"reservedBytes":[…],
  /// "ndefTLV":{"address":16,"length":15}}` (`ndefTLV` null without one).
  public var summaryValue: TagInfoValue {
    let locks = controls.filter { $0.kind == .lock }.map { TagInfoValue.span($0.range) }
    let reserved = controls.filter { $0.kind != .lock }.map { TagInfoValue.span($0.range) }
    let ndef: TagInfoValue = ndefTLVAddress.map {
      .members(["address": .number($0), "length": .number(ndefLength)])
    } ?? .null
    return .members(["lockBytes": .list(locks), "reservedBytes": .list(reserved), "ndefTLV": ndef])
  }

  // MARK: Parsing

  /// Walks the TLVs of `area` until the NDEF TLV, a Terminator or the end of the area.
  ///
  /// NULL TLVs are skipped; Lock and Memory Control TLVs add their byte ranges to
  /// ``reservedRanges`` (skipped from then on); Proprietary (FDh) and unknown TLVs are skipped by
  /// their length. The NDEF TLV's length is checked against the area, its value is not read
  /// (see ``readMessage(from:)``).
  /// - Throws: ``TagError/malformed(_:offset:)`` (offset in the data area) when a TLV's length
  ///   field or value runs past the end of the data area, or a control TLV's length is not 3.
  public static func parse(memory: some TLVMemory, area: TLVArea) throws(TagError) -> TLVLayout {
    var layout = TLVLayout(area: area, controls: [], reservedRanges: area.reserved.sorted { $0.lowerBound < $1.lowerBound },
                           ndefTLVAddress: nil, ndefOffset: nil, ndefLength: 0, lengthFieldSize: 0,
                           terminatorAddress: nil, writeAddress: nil)
    var address = area.start
    // The first byte after the last non-NULL TLV: where a new NDEF TLV goes.
    var freeAddress = area.start

    func byte(at a: Int) throws(TagError) -> UInt8 {
      let b = try memory.bytes(in: a ..< a + 1)
      guard let first = b.first, b.count == 1 else {
        throw .malformed("memory answered \(b.count) bytes for one", offset: a - area.start)
      }
      return first
    }
    /// Reads a length field at `a`: returns (length, field size, address after it).
    func length(at a: Int, tlvAddress: Int) throws(TagError) -> (Int, Int, Int) {
      var cursor = layout.skipReserved(a)
      guard cursor < area.end else {
        throw .malformed("the length of the TLV at \(tlvAddress - area.start) is missing (end of data area)",
                         offset: tlvAddress - area.start)
      }
      let first = try byte(at: cursor)
      cursor = layout.skipReserved(cursor + 1)
      guard first == 0xFF else { return (Int(first), 1, cursor) }
      var value = 0
      for _ in 0..<2 {
        guard cursor < area.end else {
          throw .malformed("the 3-byte length of the TLV at \(tlvAddress - area.start) is truncated",
                           offset: tlvAddress - area.start)
        }
        value = value << 8 | Int(try byte(at: cursor))
        cursor = layout.skipReserved(cursor + 1)
      }
      return (value, 3, cursor)
    }
    /// The address `count` usable bytes after `a` (a itself counts as the first), or throws.
    func skip(_ count: Int, from a: Int, tlvAddress: Int, what: String) throws(TagError) -> Int {
      var cursor = a
      var left = count
      while left > 0 {
        cursor = layout.skipReserved(cursor)
        guard cursor < area.end else {
          throw .malformed("\(what) at \(tlvAddress - area.start) with \(count) bytes runs past the end of the "
                           + "\(area.size)-byte data area", offset: tlvAddress - area.start)
        }
        cursor += 1
        left -= 1
      }
      return cursor
    }

    while true {
      address = layout.skipReserved(address)
      guard address < area.end else { break }
      let tlvAddress = address
      let type = try byte(at: address)
      address += 1
      switch type {
      case 0x00:
        continue
      case 0xFE:
        layout.terminatorAddress = tlvAddress
        return layout.finishing(free: freeAddress)
      case 0x01, 0x02:
        let (len, _, valueStart) = try length(at: address, tlvAddress: tlvAddress)
        guard len == 3 else {
          throw .malformed("\(type == 1 ? "Lock" : "Memory") Control TLV at \(tlvAddress - area.start) has length "
                           + "\(len), not 3", offset: tlvAddress - area.start)
        }
        var value: [UInt8] = []
        var cursor = valueStart
        for _ in 0..<3 {
          cursor = layout.skipReserved(cursor)
          guard cursor < area.end else {
            throw .malformed("\(type == 1 ? "Lock" : "Memory") Control TLV at \(tlvAddress - area.start) runs past "
                             + "the end of the data area", offset: tlvAddress - area.start)
          }
          value.append(try byte(at: cursor))
          cursor += 1
        }
        guard value.count == 3 else { throw .malformed("control TLV truncated", offset: tlvAddress - area.start) }
        let control = TLVControl(kind: type == 1 ? .lock : .memory, tlvAddress: tlvAddress,
                                 position: value[0], size: value[1], pageControl: value[2])
        layout.controls.append(control)
        layout.reservedRanges.append(control.range)
        layout.reservedRanges.sort { $0.lowerBound < $1.lowerBound }
        address = cursor
        freeAddress = cursor
      case 0x03:
        let (len, fieldSize, valueStart) = try length(at: address, tlvAddress: tlvAddress)
        let first = layout.skipReserved(valueStart)
        _ = try skip(len, from: first, tlvAddress: tlvAddress, what: "the NDEF TLV")
        layout.ndefTLVAddress = tlvAddress
        layout.ndefOffset = first
        layout.ndefLength = len
        layout.lengthFieldSize = fieldSize
        layout.writeAddress = tlvAddress
        return layout
      default:
        // Proprietary (FDh) and unknown TLVs: skip by length.
        let (len, _, valueStart) = try length(at: address, tlvAddress: tlvAddress)
        address = try skip(len, from: valueStart, tlvAddress: tlvAddress,
                           what: type == 0xFD ? "the Proprietary TLV" : "the TLV of type \(hexString([type]))h")
        freeAddress = address
      }
    }
    return layout.finishing(free: freeAddress)
  }

  private func finishing(free: Int) -> TLVLayout {
    var copy = self
    let a = skipReserved(free)
    copy.writeAddress = a < area.end ? a : nil
    return copy
  }

  /// Reads the NDEF message bytes, skipping reserved bytes it crosses, with one memory request.
  /// - Returns: the message (empty for length 0).
  /// - Throws: ``TagError/notFormatted(_:)`` without an NDEF TLV; memory errors.
  public func readMessage(from memory: some TLVMemory) throws(TagError) -> [UInt8] {
    guard let ndefOffset else { throw .notFormatted("the data area holds no NDEF TLV") }
    guard ndefLength > 0 else { return [] }
    let addresses = usableAddresses(from: ndefOffset, limit: ndefLength)
    guard addresses.count == ndefLength, let first = addresses.first, let last = addresses.last else {
      throw .malformed("the NDEF TLV runs past the end of the data area", offset: ndefOffset - area.start)
    }
    let raw = try memory.bytes(in: first ..< last + 1)
    guard raw.count == last + 1 - first else {
      throw .malformed("memory answered \(raw.count) bytes for \(last + 1 - first)", offset: first - area.start)
    }
    var out: [UInt8] = []
    out.reserveCapacity(ndefLength)
    for a in addresses { out.append(raw[a - first]) }
    return out
  }
}
