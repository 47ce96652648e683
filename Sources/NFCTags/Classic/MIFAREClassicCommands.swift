import NFCTransport

/// What a sector is opened for: which key type is tried first and which keys lead the list.
enum MIFAREClassicPurpose {
  /// Reading or writing data blocks: key A first (the public keys are keys A).
  case data
  /// Writing the trailer: key B first (the NDEF and MAD trailers' access bits are written with
  /// key B only, AN1304); key A for the factory trailer (001).
  case trailer
}

/// The sector layer of ``MIFAREClassicTag``: one authentication per sector, reads and writes in it,
/// every exchange counted. The commands go out in the PN532's form (`60`/`61`, `30`, `A0`;
/// MF1S50yyX §9.1); the reader link turns them into its own.
extension MIFAREClassicTag {
  /// Reads `blocks` (any order; each read once, then cached), one authentication per sector.
  /// - Throws: ``TagError/authenticationFailed(_:)`` naming the sector no key opened.
  func read(blocks: [Int]) throws(TagError) -> [Int: [UInt8]] {
    var out: [Int: [UInt8]] = [:]
    var missing: [Int: [Int]] = [:]
    for block in Set(blocks) {
      guard block >= 0, block < chip.blockCount else { throw .malformed("block \(block) is past the card's end", offset: nil) }
      if let cached = cache[block] { out[block] = cached } else { missing[chip.sector(of: block), default: []].append(block) }
    }
    for sector in missing.keys.sorted() {
      let wanted = (missing[sector] ?? []).sorted()
      let got = try inSector(sector, for: .data) { () throws(TagError) -> [[UInt8]] in
        var got: [[UInt8]] = []
        for block in wanted { got.append(try readBlock(block)) }
        return got
      }
      for (block, data) in zip(wanted, got) {
        cache[block] = data
        out[block] = data
      }
    }
    return out
  }

  /// The 16 bytes of `sector`'s trailer (read once, then cached), nil when no key opened the
  /// sector.
  /// - Throws: ``TagError/malformed(_:offset:)`` for a trailer read short; a removal or a transport
  ///   failure.
  func trailer(of sector: Int) throws(TagError) -> [UInt8]? {
    let block = chip.trailer(of: sector)
    let trailer: [UInt8]
    do {
      trailer = try read(blocks: [block])[block] ?? []
    } catch {
      guard case .authenticationFailed = error else { throw error }
      return nil
    }
    guard trailer.count == 16 else { throw .malformed("the trailer of sector \(sector) could not be read", offset: nil) }
    return trailer
  }

  /// Writes `data` into `block` and updates the cache.
  func write(block: Int, _ data: [UInt8], purpose: MIFAREClassicPurpose = .data) throws(TagError) {
    guard block > 0, block < chip.blockCount, data.count == 16 else {
      throw .unsupported("block \(block) of a \(chip.productName) cannot be written")
    }
    try inSector(chip.sector(of: block), for: purpose) { () throws(TagError) in
      do {
        writeCommandsSent += 1
        let answer = try link.transceive([0xA0, UInt8(block)] + data)
        exchangeCount += 1
        guard answer == [0x0A] else { throw TagError.writeRefused(.malformedResponse(answer), command: "WRITE", address: block) }
      } catch {
        exchangeCount += 1
        throw Self.classify(error, command: "WRITE", block: block, write: true)
      }
    }
    cache[block] = data
  }

  /// Forgets what was read and the authentication: the next read goes to the card.
  func forgetReads() {
    cache = [:]
    readsKept = false
    authenticated = nil
    writers = [:]
  }

  private func readBlock(_ block: Int) throws(TagError) -> [UInt8] {
    let answer: [UInt8]
    do {
      answer = try link.transceive([0x30, UInt8(block)])
      exchangeCount += 1
    } catch {
      exchangeCount += 1
      throw Self.classify(error, command: "READ", block: block, write: false)
    }
    guard answer.count == 16 else { throw .malformed("READ of block \(block) answered \(answer.count) bytes", offset: nil) }
    return answer
  }

  /// Runs `body` authenticated in `sector`: with the key that is in use there already, else each
  /// candidate (key type and key) in turn until one authenticates and `body` is not refused.
  /// - Throws: ``TagError/authenticationFailed(_:)`` when none does ("no key opened sector N"); a
  ///   removal or a transport failure at once.
  func inSector<T>(_ sector: Int, for purpose: MIFAREClassicPurpose, _ body: () throws(TagError) -> T) throws(TagError) -> T {
    if let current = authenticated, current.sector == sector, current.purpose == purpose {
      do { return try body() } catch where Self.isRefusal(error) { authenticated = nil }
    }
    // The key ``openForWriting(_:keyType:)`` found for this sector's writes leads.
    let writer = writers[sector]
    let types: [MIFAREClassicKeyType] = writer.map { $0.type == .a ? [.a, .b] : [.b, .a] }
      ?? (purpose == .data ? [.a, .b] : [.b, .a])
    let preferred = preferredKeys(for: sector)
    var lastRefusal: TagError?
    for type in types {
      let remembered = (writer.flatMap { $0.type == type ? [$0.key] : nil } ?? [])
        + (openedWith[sector].flatMap { $0.type == type ? [$0.key] : nil } ?? [])
      for key in keys.candidates(preferring: remembered + preferred) {
        guard try authenticate(sector: sector, type: type, key: key) else { continue }
        do {
          let result = try body()
          authenticated = (sector, purpose)
          openedWith[sector] = (type, key)
          return result
        } catch where Self.isRefusal(error) {
          // This key type may not do it; another key of the same type cannot authenticate.
          lastRefusal = error
          authenticated = nil
          break
        }
      }
    }
    if let lastRefusal, openedWith[sector] != nil { throw lastRefusal }
    throw .authenticationFailed(MIFAREClassicError.sectorsNotOpened([sector]).description)
  }

  /// The keys tried first in `sector`: the keys this connection wrote into its trailer; a factory card (format) opens with the factory key; an
  /// NDEF card with its public keys (the MAD's in sectors 0 and 16, AN10787 §3; the NDEF one
  /// elsewhere, AN1304).
  func preferredKeys(for sector: Int) -> [[UInt8]] {
    let publicKey = sector == 0 || (sector == 16 && chip == .classic4K)
      ? MIFAREApplicationDirectory.publicKeyA : MIFAREClassicNDEF.publicKeyA
    return (writtenKeys[sector] ?? []) + (formatting ? [MIFAREClassicNDEF.factoryKey, publicKey] : [publicKey])
  }

  /// One authentication (masked in traces: it carries the key). False when the card or reader
  /// refused it.
  func authenticate(sector: Int, type: MIFAREClassicKeyType, key: [UInt8]) throws(TagError) -> Bool {
    let frame = [type.rawValue, UInt8(chip.trailer(of: sector))] + key + Array(identifier.suffix(4))
    authenticated = nil
    do {
      let answer = try SecretExchange.run { () throws(TransceiveError) -> [UInt8] in try link.transceive(frame) }
      exchangeCount += 1
      if answer == [0x0A] {
        openedWith[sector] = (type, key)
        return true
      }
      return false
    } catch {
      exchangeCount += 1
      switch error {
      case .tagRemoved, .transport: throw .transceive(error, command: "AUTHENTICATE", address: sector)
      default: return false
      }
    }
  }

  static func isRefusal(_ error: TagError) -> Bool {
    switch error {
    case .readRefused, .writeRefused: return true
    default: return false
    }
  }

  /// A refused READ or WRITE (a NAK, the PN532's error, `63 00`) is a refusal the next key may
  /// lift; a removal or a timeout is the transfer's failure.
  static func classify(_ error: any Error, command: String, block: Int, write: Bool) -> TagError {
    if let tagError = error as? TagError { return tagError }
    guard let error = error as? TransceiveError else { return .transceive(.transport("\(error)"), command: command, address: block) }
    switch error {
    case .nak, .chipError, .status:
      return write ? .writeRefused(error, command: command, address: block) : .readRefused(error, command: command, address: block)
    default:
      return .transceive(error, command: command, address: block)
    }
  }
}
