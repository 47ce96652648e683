import NDEF
import NFCTags
import NFCTransport

/// Commands beyond Core NFC that a tag tool needs: the raw message bytes, the memory image, chip
/// facts, formatting, erasing and NTAG21x passwords. Same rules as the Core NFC commands: connect
/// first; failures are ``NFCReaderError`` with the platform's error underneath.
extension NFCNDEFTag {
  /// The NDEF status with the current message length (Core NFC gives only status and capacity).
  public func queryNDEFStatusReport() throws(NFCReaderError) -> NDEFStatusReport {
    try connection.withPlatform { platform throws(TagError) in try platform.queryNDEFStatus() }
  }

  /// The NDEF message bytes as stored (empty for an empty message), not decoded.
  public func readNDEFBytes() throws(NFCReaderError) -> [UInt8] {
    try connection.withPlatform { platform throws(TagError) in try platform.readNDEF() }
  }

  /// Writes already-encoded message bytes tear-safely; `verify` reads them back.
  public func writeNDEFBytes(_ bytes: [UInt8], verify: Bool = true) throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in try platform.writeNDEF(bytes, verify: verify) }
  }

  /// Chip, memory, capacity, lock state, CC and version.
  public func tagInfo() throws(NFCReaderError) -> TagInfo {
    try connection.withPlatform { platform throws(TagError) in try platform.info() }
  }

  /// Chip and NDEF status, with as few reads as the tag type allows (nfctag; what `scan` shows).
  /// Lock state and details may be empty.
  public func identification() throws(NFCReaderError) -> TagInfo {
    try connection.withPlatform { platform throws(TagError) in try platform.identification() }
  }

  /// The whole readable memory in address order (the image-file layout).
  public func readMemory() throws(NFCReaderError) -> [UInt8] {
    try connection.withPlatform { platform throws(TagError) in try platform.readMemory() }
  }

  /// The whole readable memory with what is known of its extent: a Type 2 tag whose chip did not
  /// name itself (a reader with READ BINARY only) is read past the CC's data area until a page is
  /// refused, and the dump says so (`MemoryDump.Extent`). Read it last: the refused page may
  /// leave the tag mute until it is selected again.
  public func readMemoryDump() throws(NFCReaderError) -> MemoryDump {
    try connection.withPlatform { platform throws(TagError) in
      if let dumping = platform as? any MemoryDumping { return try dumping.readMemoryDump() }
      return MemoryDump(bytes: try platform.readMemory(), extent: .known)
    }
  }

  /// Writes an empty NDEF structure (a fresh CC where the platform has one).
  public func format() throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in try platform.format() }
  }

  /// Replaces the message with an empty one, tear-safely, and zeroes the bytes the old message
  /// used (`overwritingOldMessage`, the default) so that nothing of it stays in memory.
  public func erase(overwritingOldMessage: Bool = true) throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in try platform.erase(overwritingOldMessage: overwritingOldMessage) }
  }

  /// The NFC Forum platform of the tag (Type 1–5), when known.
  public var platformType: TagPlatform? { connection.platformType }

  /// NTAG21x / Ultralight EV1: PWD_AUTH with a 4-byte password; returns the PACK.
  /// Other tags: unsupported feature (1).
  /// The authentication ends with the session: the card is reset when the session releases it.
  public func authenticate(password: [UInt8]) throws(NFCReaderError) -> [UInt8] {
    connection.engine.resetOnRelease()
    return try connection.withPlatform { platform throws(TagError) in
      try type2(platform).authenticate(password: password)
    }
  }

  /// MIFARE Classic: keys to try on each sector after the well-known ones (the public MAD and
  /// NDEF keys, the factory key and the usual defaults), in order. Other tags: nothing changes.
  /// The keys are kept for this connection only and never shown.
  public func useMIFAREClassicKeys(_ keys: [[UInt8]]) throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in
      (platform as? MIFAREClassicTag)?.keys = MIFAREClassicKeyList(extra: keys)
    }
  }

  /// MIFARE Classic: true when ``format()`` has still to run before the card holds NDEF (no MAD,
  /// as on a factory-fresh card, or a format a removal cut short); false for a card formatted
  /// whole. Other tags: false, without an exchange.
  public func needsMIFAREClassicFormat() throws(NFCReaderError) -> Bool {
    try connection.withPlatform { platform throws(TagError) in
      guard let classic = platform as? MIFAREClassicTag else { return false }
      return try classic.needsFormat()
    }
  }

  /// MIFARE Classic: the WRITE commands sent to the card on this connection so far, one that
  /// failed included (the card may have taken it). The same count before and after a
  /// ``format()`` that failed means the card was not changed. Other tags: nil, without an exchange.
  public func mifareClassicWriteCommandsSent() throws(NFCReaderError) -> Int? {
    try connection.withPlatform { platform throws(TagError) in (platform as? MIFAREClassicTag)?.writeCommandsSent }
  }

  /// MIFARE Classic: the value block `block` holds (read with a key the sector's access bits let
  /// read it). Other tags: unsupported feature (1).
  public func mifareClassicValue(block: Int) throws(NFCReaderError) -> MIFAREClassicValueBlock {
    try connection.withPlatform { platform throws(TagError) in try classic(platform).readValue(block: block) }
  }

  /// MIFARE Classic: what the card's MAD says of the sector of `block` (the MAD itself, or an
  /// application's data); nil without a MAD, for a free sector or one the MAD does not cover.
  /// Other tags: unsupported feature (1).
  public func mifareClassicSectorClaim(ofBlock block: Int) throws(NFCReaderError) -> MIFAREClassicSectorClaim? {
    try connection.withPlatform { platform throws(TagError) in try classic(platform).sectorClaim(ofBlock: block) }
  }

  /// MIFARE Classic: writes `value` into `block` as a value block, then reads it back. Other
  /// tags: unsupported feature (1).
  public func initializeMIFAREClassicValue(_ value: Int32, block: Int) throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in try classic(platform).initializeValue(value, block: block) }
  }

  /// MIFARE Classic: INCREMENT or DECREMENT `block` and TRANSFER into it, with a key the access
  /// bits grant that; returns the value read back. Other tags: unsupported feature (1).
  @discardableResult
  public func changeMIFAREClassicValue(block: Int, _ change: MIFAREClassicValueChange) throws(NFCReaderError) -> MIFAREClassicValueBlock {
    try connection.withPlatform { platform throws(TagError) in try classic(platform).changeValue(block: block, change) }
  }

  /// NTAG21x / Ultralight EV1: writes PWD and PACK, then AUTH0 (`protectFrom`; 0xFF turns
  /// protection off) and PROT (`protectReads`).
  public func setPassword(_ password: [UInt8], pack: [UInt8], protectFrom page: UInt8, protectReads: Bool) throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in
      try type2(platform).setPassword(password, pack: pack, protectFrom: page, protectReads: protectReads)
    }
  }
}

private func type2(_ platform: any NDEFTagPlatform) throws(TagError) -> Type2Tag {
  guard let tag = platform as? Type2Tag else {
    throw .unsupported("password protection is an NTAG21x / Ultralight EV1 (Type 2) feature; this is a \(platform.platform.displayName) tag")
  }
  return tag
}

private func classic(_ platform: any NDEFTagPlatform) throws(TagError) -> MIFAREClassicTag {
  guard let tag = platform as? MIFAREClassicTag else {
    throw .unsupported("value blocks are a MIFARE Classic feature; this is a \(platform.platform.displayName) tag")
  }
  return tag
}
