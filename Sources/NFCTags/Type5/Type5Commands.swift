import NFCTransport

/// The ISO/IEC 15693-3 commands a Type 5 tag platform sends, one exchange each, uncached: every
/// answer is read with `ISO15693Response`, and a tag's error code becomes `TransceiveError.nak`.
extension Type5Tag {
  /// Sends one request and returns what follows the response flags; a refusal is a `TransceiveError.nak`.
  func exchange(_ command: [UInt8], name: String, block: Int?) throws(TagError) -> [UInt8] {
    let reply: [UInt8]
    do {
      reply = try link.transceive(command)
    } catch {
      throw .transceive(error, command: name, address: block)
    }
    guard let response = ISO15693Response(reply) else {
      throw .transceive(.malformedResponse(reply), command: name, address: block)
    }
    if let code = response.errorCode { throw .transceive(.nak(code.rawValue), command: name, address: block) }
    return response.payload
  }

  private func blockByte(_ block: Int, _ name: String) throws(TagError) -> UInt8 {
    guard let b = UInt8(exactly: block) else {
      throw .unsupported("\(name) of block \(block): blocks above FFh need the extended commands, which are not supported")
    }
    return b
  }

  /// `count` blocks from `first`, within blocks 0–255.
  private func blockRange(from first: Int, count: Int, _ name: String) throws(TagError) -> ISO15693BlockRange {
    guard count >= 1, count <= 256 else { throw .unsupported("\(name) of \(count) blocks") }
    _ = try blockByte(first + count - 1, name)
    guard let range = ISO15693BlockRange(first: Int(try blockByte(first, name)), count: count) else {
      throw .unsupported("\(name) of \(count) blocks from block \(first)")
    }
    return range
  }

  /// READ SINGLE BLOCK (20h), uncached.
  public func readBlock(_ block: Int) throws(TagError) -> [UInt8] {
    let data = try exchange(Self.requests.readSingleBlock(try blockByte(block, "READ SINGLE BLOCK")),
                            name: "READ SINGLE BLOCK", block: block)
    guard data.count == blockSize else {
      throw .transceive(.malformedResponse(data), command: "READ SINGLE BLOCK", address: block)
    }
    return data
  }

  /// READ MULTIPLE BLOCKS (23h): `count` blocks from `first`, uncached.
  public func readBlocks(from first: Int, count: Int) throws(TagError) -> [UInt8] {
    let range = try blockRange(from: first, count: count, "READ MULTIPLE BLOCKS")
    let data = try exchange(Self.requests.readMultipleBlocks(range), name: "READ MULTIPLE BLOCKS", block: first)
    guard data.count == count * blockSize else {
      throw .transceive(.malformedResponse(data), command: "READ MULTIPLE BLOCKS", address: first)
    }
    return data
  }

  /// WRITE SINGLE BLOCK (21h), unchecked: this can overwrite the CC.
  public func writeBlock(_ block: Int, _ data: [UInt8]) throws(TagError) {
    guard data.count == blockSize else {
      throw .unsupported("WRITE SINGLE BLOCK of \(data.count) bytes; a block is \(blockSize) bytes")
    }
    do {
      _ = try exchange(Self.requests.writeSingleBlock(try blockByte(block, "WRITE SINGLE BLOCK"), data),
                       name: "WRITE SINGLE BLOCK", block: block)
    } catch .transceive(.nak(let code), let command, let address) {
      throw .writeRefused(.nak(code), command: command, address: address)
    }
  }

  /// LOCK BLOCK (22h): permanent. A block that is already locked (error 11h) counts as done.
  public func lockBlock(_ block: Int) throws(TagError) {
    do {
      _ = try exchange(Self.requests.lockBlock(try blockByte(block, "LOCK BLOCK")), name: "LOCK BLOCK", block: block)
    } catch {
      if case .transceive(.nak(0x11), _, _) = error { return }
      throw error
    }
  }

  /// GET MULTIPLE BLOCK SECURITY STATUS (2Ch): one byte per block, bit 0 = locked.
  public func securityStatus(from first: Int, count: Int) throws(TagError) -> [UInt8] {
    let name = "GET MULTIPLE BLOCK SECURITY STATUS"
    let data = try exchange(Self.requests.blockSecurityStatus(try blockRange(from: first, count: count, name)),
                            name: name, block: first)
    guard data.count == count else { throw .transceive(.malformedResponse(data), command: name, address: first) }
    return data
  }
}
