// TLV blocks in the data areas of Type 1, Type 2 and Type 5 tags: a lazy walker and a tear-safe writer.
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

/// One block (page, 8-byte block…) to write, with its full new contents.
public struct TLVBlockWrite: Hashable, Sendable {
  /// Block number (absolute address / block size).
  public var block: Int
  /// The whole block.
  public var bytes: [UInt8]
  public init(block: Int, bytes: [UInt8]) {
    self.block = block
    self.bytes = bytes
  }
}

/// The bytes a new NDEF message needs, planned by ``TLVWriter/plan(message:layout:)``.
public struct TLVWritePlan: Hashable, Sendable {
  /// Absolute address of the NDEF TLV's type byte.
  public var tlvAddress: Int
  /// 1, or 3 for messages of 255 bytes and more.
  public var lengthFieldSize: Int
  public var messageLength: Int
  /// Absolute address → byte for the TLV type, the length field with the real length, the
  /// message and (when there is room) a Terminator TLV.
  public var bytes: [Int: UInt8]
  /// Address of the first length byte: it holds 00 until the last step (00 = empty message in
  /// either length form, `FF` marks the 3-byte form).
  public var firstLengthAddress: Int

  /// Every address written, lowest to highest plus one.
  public var touchedRange: Range<Int> {
    guard let low = bytes.keys.min(), let high = bytes.keys.max() else { return tlvAddress ..< tlvAddress }
    return low ..< high + 1
  }

  /// The blocks touched, in ascending order.
  public func touchedBlocks(blockSize: Int) -> [Int] {
    guard blockSize > 0, let low = bytes.keys.min(), let high = bytes.keys.max(), low >= 0 else {
      return blockSize > 0 ? Set(bytes.keys.map { $0 / blockSize }).sorted() : []
    }
    // One flag per block of the touched span: no hashing per byte (plans cover whole messages).
    let first = low / blockSize
    var touched = [Bool](repeating: false, count: high / blockSize - first + 1)
    for address in bytes.keys { touched[address / blockSize - first] = true }
    return touched.indices.filter { touched[$0] }.map { first + $0 }
  }

  /// The block writes, in tear-safe order, that turn `current` into the new contents, skipping
  /// blocks whose contents do not change.
  ///
  /// Order: (1) the blocks holding the TLV type and the first length byte, with that length byte
  /// 00 (an empty message) and the message bytes they hold, highest block first; (2) the other
  /// changed blocks, ascending; (3) the blocks of step 1 with the real length, highest block first,
  /// so the first length byte (FF or the 1-byte length) is written last. When only one block
  /// changes, it is written once. Source: nfcpy `_write_ndef_data`.
  /// - Parameter current: the present contents of every block in ``touchedBlocks(blockSize:)``.
  /// - Throws: ``TagError/malformed(_:offset:)`` when a touched block is missing from `current`.
  public func orderedWrites(blockSize: Int, current: [Int: [UInt8]]) throws(TagError) -> [TLVBlockWrite] {
    guard blockSize > 0 else { return [] }
    let touched = touchedBlocks(blockSize: blockSize)
    var final: [Int: [UInt8]] = [:]
    for block in touched {
      guard let contents = current[block], contents.count == blockSize else {
        throw .malformed("block \(block) was not read before planning the write", offset: nil)
      }
      final[block] = contents
    }
    if let first = touched.first, let last = touched.last, first >= 0 {
      // The new contents in one flat buffer over the touched blocks (no hashing per byte).
      var flat = [UInt8](repeating: 0, count: (last - first + 1) * blockSize)
      for (block, contents) in final {
        flat.replaceSubrange(((block - first) * blockSize)..<((block - first + 1) * blockSize), with: contents)
      }
      for (address, value) in bytes { flat[address - first * blockSize] = value }
      for block in touched {
        final[block] = Array(flat[((block - first) * blockSize)..<((block - first + 1) * blockSize)])
      }
    } else {
      for (address, value) in bytes { final[address / blockSize]?[address % blockSize] = value }
    }
    var zeroed = final
    zeroed[firstLengthAddress / blockSize]?[firstLengthAddress % blockSize] = 0
    let headerBlocks = Set([tlvAddress / blockSize, firstLengthAddress / blockSize]).sorted(by: >)
    let otherBlocks = touched.filter { !headerBlocks.contains($0) }
    let changedOther = otherBlocks.filter { final[$0] != current[$0] }
    let changedHeader = headerBlocks.filter { final[$0] != current[$0] }

    if changedOther.isEmpty && changedHeader.count <= 1 {
      return changedHeader.compactMap { b in final[b].map { TLVBlockWrite(block: b, bytes: $0) } }
    }
    var state = current
    var writes: [TLVBlockWrite] = []
    func emit(_ block: Int, _ contents: [UInt8]?) {
      guard let contents, state[block] != contents else { return }
      writes.append(TLVBlockWrite(block: block, bytes: contents))
      state[block] = contents
    }
    for block in headerBlocks { emit(block, zeroed[block]) }
    for block in changedOther { emit(block, final[block]) }
    for block in headerBlocks { emit(block, final[block]) }
    return writes
  }
}

/// Plans where the bytes of a new NDEF message go in a TLV data area.
public enum TLVWriter {
  /// Places `message` in an NDEF TLV at the layout's ``TLVLayout/writeAddress`` (the existing NDEF
  /// TLV's place, else the first free byte), skipping reserved and lock bytes, and adds a
  /// Terminator TLV when a byte is left.
  ///
  /// The 1-byte length form is used below 255 bytes, `FF hh ll` from 255 on (nfcpy does the same).
  /// - Throws: ``TagError/insufficientCapacity(needed:capacity:)`` when it does not fit.
  /// - Parameter clearing: usable bytes from the TLV's start that must read 00 afterwards where
  ///   the new TLV does not write (the old TLV, its message and its Terminator, when erasing).
  public static func plan(message: [UInt8], layout: TLVLayout, clearing: Int = 0) throws(TagError) -> TLVWritePlan {
    guard let start = layout.writeAddress else {
      throw .insufficientCapacity(needed: message.count, capacity: 0)
    }
    let lengthFieldSize = message.count < 255 ? 1 : 3
    let headerSize = 1 + lengthFieldSize
    let addresses = layout.usableAddresses(from: start)
    guard message.count <= 0xFFFE, headerSize + message.count <= addresses.count else {
      throw .insufficientCapacity(needed: message.count, capacity: TLVLayout.capacity(usableBytes: addresses.count))
    }
    var header: [UInt8] = [0x03]
    if lengthFieldSize == 1 {
      header.append(UInt8(message.count))
    } else {
      header += [0xFF, UInt8(message.count >> 8), UInt8(message.count & 0xFF)]
    }
    var bytes: [Int: UInt8] = [:]
    for (i, value) in (header + message).enumerated() { bytes[addresses[i]] = value }
    let end = headerSize + message.count
    if end < addresses.count { bytes[addresses[end]] = 0xFE }
    for i in (end + 1)..<max(end + 1, min(clearing, addresses.count)) { bytes[addresses[i]] = 0x00 }
    return TLVWritePlan(tlvAddress: addresses[0], lengthFieldSize: lengthFieldSize, messageLength: message.count,
                        bytes: bytes, firstLengthAddress: addresses[1])
  }
}

/// What a TLV-based platform (Types 1, 2 and 5) knows once it has read its CC and walked its TLVs:
/// the layout, or why there is none, and the NDEF status. The steps status, read and write share.
protocol TLVAreaSnapshot {
  /// nil when the CC is not an NDEF CC (`why` says what it is).
  var layout: Result<TLVLayout, TagError>? { get }
  var report: NDEFStatusReport { get }
  var why: String { get }
}

extension TLVAreaSnapshot {
  /// The status report, once the TLVs are known to parse.
  func checkedReport() throws(TagError) -> NDEFStatusReport {
    if let layout { _ = try layout.get() }
    return report
  }

  /// The message the NDEF TLV holds.
  /// - Throws: ``TagError/notFormatted(_:)`` without an NDEF CC or NDEF TLV; TLV and memory errors.
  func readMessage(from memory: some TLVMemory) throws(TagError) -> [UInt8] {
    guard let layout else { throw .notFormatted(why) }
    let parsed = try layout.get()
    guard parsed.ndefTLVAddress != nil else {
      throw .notFormatted("the data area holds no NDEF TLV (\(parsed.summary))")
    }
    return try parsed.readMessage(from: memory)
  }

  /// The tear-safe plan for writing `message`, checked before anything is written.
  /// - Throws: ``TagError/notFormatted(_:)``, ``TagError/readOnly``, or
  ///   ``TagError/insufficientCapacity(needed:capacity:)`` from the planner.
  /// With `clearingOldMessage`, the old NDEF TLV, its message and its Terminator are zeroed
  /// where the new TLV does not reach (erase).
  func writePlan(for message: [UInt8], clearingOldMessage: Bool = false) throws(TagError) -> (plan: TLVWritePlan, layout: TLVLayout) {
    guard let layout else { throw .notFormatted(why) }
    guard report.status == .readWrite else { throw .readOnly }
    let parsed = try layout.get()
    var clearing = 0
    if clearingOldMessage, let old = report.messageLength {
      clearing = (old < 255 ? 2 : 4) + old + 1
    }
    return (try TLVWriter.plan(message: message, layout: parsed, clearing: clearing), parsed)
  }
}
