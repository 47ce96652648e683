import NFCTransport

extension MIFAREClassicTag {
  /// Opens every sector an operation will write, before its first write, with a key the sector's
  /// access bits let write the blocks it will write there (MF1S50yyX §8.7.2, Tables 7 and 8; in a
  /// 16-block sector of the 4K the group of each block, MF1S70yyX §8.7.3): a format, an erase, a
  /// write, a lock or a restore either finds every sector open or writes nothing.
  ///
  /// Each sector's trailer is read with the first key that opens it (its access bits); when that
  /// key's type may not write the blocks, the other type's keys are tried. The key found leads the
  /// sector's writes (``writers``), so no write is refused for its key and retried.
  /// - Parameters:
  ///   - blocks: the blocks the operation writes, by sector (a trailer among them means the
  ///     trailer is written: its keys, access bits and GPB).
  ///   - keyType: the key type the writes must use, when the operation needs one (a lock writes
  ///     key B back as it is, so it must know key B).
  /// - Throws: ``TagError/authenticationFailed(_:)`` naming every sector no key opened for the
  ///   writes; ``TagError/readOnly`` when a sector's access bits let no key write a block the
  ///   operation writes; ``TagError/malformed(_:offset:)`` for invalid access bits; a removal at once.
  func openForWriting(_ blocks: [Int: [Int]], keyType: MIFAREClassicKeyType? = nil) throws(TagError) {
    var closed: [Int] = []
    for sector in blocks.keys.sorted() {
      guard let trailer = try trailer(of: sector) else {
        closed.append(sector)
        continue
      }
      let conditions: MIFAREClassicAccessConditions
      do { conditions = try .decode(Array(trailer[6..<9])) } catch { throw Self.tagError(error) }
      let types = Self.keyTypes(writing: blocks[sector] ?? [], of: chip, under: conditions)
        .filter { keyType == nil || $0 == keyType }
      guard !types.isEmpty else { throw .readOnly }
      if let opened = openedWith[sector], types.contains(opened.type) {
        writers[sector] = opened
      } else if let found = try openWith(types, sector: sector) {
        writers[sector] = found
      } else {
        closed.append(sector)
      }
    }
    // The writes authenticate with the keys found; the sector authenticated now stays so only
    // when its key is the one found for its writes.
    if let current = authenticated, let writer = writers[current.sector], let opened = openedWith[current.sector],
       writer.type != opened.type || writer.key != opened.key {
      authenticated = nil
    }
    guard closed.isEmpty else { throw .authenticationFailed(MIFAREClassicError.sectorsNotOpened(closed).description) }
  }

  /// The key types `conditions` let write every one of `blocks` (a trailer: its keys and access
  /// bits), key A first.
  static func keyTypes(writing blocks: [Int], of chip: MIFAREClassicChip,
                       under conditions: MIFAREClassicAccessConditions) -> [MIFAREClassicKeyType] {
    var rights: [MIFAREClassicKeyRight] = []
    for block in blocks {
      let group = chip.accessGroup(of: block)
      guard group >= 0, group < conditions.groups.count else { return [] }
      let bits = conditions.groups[group]
      if group == 3 {
        rights += [bits.trailerKeyAWrite, bits.trailerAccessBitsWrite, bits.trailerKeyBWrite]
      } else {
        rights.append(bits.dataWrite)
      }
    }
    return [.a, .b].filter { type in rights.allSatisfy { $0.allows(type) } }
  }

  /// The first key of `types` (each type's candidates in turn) that authenticates in `sector`, nil
  /// when none does.
  func openWith(_ types: [MIFAREClassicKeyType], sector: Int) throws(TagError) -> (type: MIFAREClassicKeyType, key: [UInt8])? {
    for type in types {
      for key in keys.candidates(preferring: preferredKeys(for: sector)) where try authenticate(sector: sector, type: type, key: key) {
        return (type, key)
      }
    }
    return nil
  }
}
