// A tear-safe write of a new NDEF message into a TLV data area: the plan and its block order.
//
// Source: NFC Forum T1T/T2T/T5T "TLV blocks"; nfcpy `tt1.py`/`tt2.py` `_read_ndef_data`,
// `_write_ndef_data`, `get_lock_byte_range`, `get_rsvd_byte_range`.

import NFCTransport

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

  /// The touched blocks (ascending) that the plan fills entirely: their new contents need none of
  /// their old bytes.
  public func filledBlocks(blockSize: Int) -> Set<Int> {
    guard blockSize > 0 else { return [] }
    var count: [Int: Int] = [:]
    for address in bytes.keys where address >= 0 { count[address / blockSize, default: 0] += 1 }
    return Set(count.filter { $0.value == blockSize }.keys)
  }

  /// The touched blocks whose present contents a write must read, ascending.
  ///
  /// Those the plan does not fill (the bytes it leaves are kept: the data area's first bytes, a
  /// reserved or lock byte, what follows the Terminator) always; the blocks it fills only when
  /// `comparing`, to skip those whose contents do not change. A caller compares when reading a
  /// block costs less than writing it (several blocks per read), and passes the blocks it has
  /// already read in `current` either way: see ``orderedWrites(blockSize:current:)``.
  public func blocksToRead(blockSize: Int, comparing: Bool) -> [Int] {
    let touched = touchedBlocks(blockSize: blockSize)
    guard !comparing else { return touched }
    let filled = filledBlocks(blockSize: blockSize)
    return touched.filter { !filled.contains($0) }
  }

  /// The block writes, in tear-safe order, that turn `current` into the new contents, skipping
  /// blocks whose contents do not change.
  ///
  /// Order: (1) the blocks holding the TLV type and the first length byte, with that length byte
  /// 00 (an empty message) and the message bytes they hold, highest block first; (2) the other
  /// changed blocks, ascending; (3) the blocks of step 1 with the real length, highest block first,
  /// so the first length byte (FF or the 1-byte length) is written last. When only one block
  /// changes, it is written once. A block the plan fills (``filledBlocks(blockSize:)``) that is
  /// missing from `current` has unknown contents and is written, in the same order. Source: nfcpy
  /// `_write_ndef_data`.
  /// - Parameter current: the present contents of the touched blocks: at least every one of
  ///   ``blocksToRead(blockSize:comparing:)`` without comparing.
  /// - Throws: ``TagError/malformed(_:offset:)`` when a touched block the plan does not fill is
  ///   missing from `current`.
  public func orderedWrites(blockSize: Int, current: [Int: [UInt8]]) throws(TagError) -> [TLVBlockWrite] {
    guard blockSize > 0 else { return [] }
    let touched = touchedBlocks(blockSize: blockSize)
    let filled = filledBlocks(blockSize: blockSize)
    var final: [Int: [UInt8]] = [:]
    for block in touched {
      guard let contents = current[block], contents.count == blockSize else {
        guard filled.contains(block) else {
          throw .malformed("block \(block) was not read before planning the write", offset: nil)
        }
        final[block] = [UInt8](repeating: 0, count: blockSize)  // every byte comes from the plan
        continue
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
