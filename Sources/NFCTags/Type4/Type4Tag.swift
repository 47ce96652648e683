import NFCTransport

/// Builds the Type 4 platform for a detected target, with the ATS the reader put in the ATR.
func makeType4Platform(for target: DetectedTarget) throws(TagError) -> any NDEFTagPlatform {
  Type4Tag(identifier: target.identifier, link: target.link, atr: target.atr)
}

/// An NFC Forum Type 4 tag: the NDEF Tag Application (ISO 7816-4 files over ISO-DEP).
///
/// Sequence (NFC Forum T4T; nfcpy `tt4.py`): SELECT the application by its
/// v2 name `D2760000850101` (with Le 00), else the v1 name `D2760000850100`; SELECT the CC file
/// E103h (P2 0Ch for v2, 00h for v1); READ BINARY 15 bytes of it (2 more for an ENDEF TLV);
/// SELECT the NDEF file by the identifier the CC gives; READ BINARY from offset 0 with Le as large
/// as both MLe and the link allow, so NLEN and the first data bytes come in one answer.
///
/// Round trips: the CC and the current selection are remembered for the life of this object (one
/// connection to one tag), so a read after `queryNDEFStatus` costs only its READ BINARYs. When a
/// remembered selection turns out lost (`6A 82`, `69 86`), the selection is redone once.
///
/// Writes: capacity and the CC write access byte are checked first. Then the tear-safe order:
/// NLEN 0000, the data in MLc chunks from offset 2, then NLEN, so that a card leaving mid-write
/// leaves an empty message, never a length over bytes of another message (nfcpy `_write_ndef_data`
/// folds the zero NLEN into the first chunk; it is kept apart here so a torn first UPDATE cannot
/// leave the old NLEN over new data). NFC Forum Type 4 promises no atomic UPDATE BINARY, and a
/// MIFARE DESFire's standard data file has no tearing protection (MF3ICDx21_41_81 §9), so even a
/// message that fits one command takes the three. The one exception is a tag known, from its own
/// answer, to protect a write sent in one ISO/IEC 14443-4 frame (``protectsSingleFrameWrites``:
/// GetVersion named an NTAG 424 DNA, NT4H2421Gx datasheet §8.2.3.1): NLEN‖message in one UPDATE
/// BINARY when that command fits one frame of the tag. An empty message is NLEN 0000 alone, the
/// order's first step. Extended-length APDUs are sent only
/// when MLe or MLc exceed the short forms and the link carries them
/// (``LinkCapabilities/maxResponseLength`` above 256, ``LinkCapabilities/maxCommandLength`` above 261).
/// - Warning: Not thread-safe: one operation at a time.
public final class Type4Tag: NDEFTagPlatform {
  public var platform: TagPlatform { .type4 }
  public let identifier: [UInt8]
  /// The link to the tag.
  public let link: any Transceiver
  /// The ATS (with TL) when the ATR carried it whole (ACR122U), else nil.
  public let ats: [UInt8]?
  /// The historical bytes of the ATR (the whole ATS on an ACR122U, ACS API V2.04 §3.1.2).
  public let historicalBytes: [UInt8]
  /// The CC, once read.
  public private(set) var capabilityContainer: Type4CapabilityContainer?
  /// True when the application answered to the v1 name only.
  public internal(set) var isVersion1 = false
  /// Whether the tag is known to protect an UPDATE BINARY sent in one ISO/IEC 14443-4 frame
  /// against tearing, so that ``writeNDEF(_:verify:)`` may send NLEN and a short message in one
  /// command: set when GetVersion, asked on this connection (``info()``), names an NTAG 424 DNA
  /// (NT4H2421Gx datasheet §8.2.3.1: single-frame WriteData and ISOUpdateBinary on a StandardData
  /// file are tearing protected). Neither a name nor the ATS sets it (a DESFire, whose standard
  /// data files are not protected, MF3ICDx21_41_81 §9, shows a Part 3 reader the same byte 80h);
  /// while it is false every non-empty message is written NLEN 0000, the data, then NLEN.
  public internal(set) var protectsSingleFrameWrites = false
  /// How ``format()`` of a MIFARE DESFire authenticates with the PICC master key (the `DESFireTag`
  /// module makes one from a key); nil: it does not, and a card that needs it is refused.
  public var desfirePICCAuthentication: DESFirePICCAuthentication?
  /// What ``format()`` of a MIFARE DESFire makes: the NDEF application's key type and the NDEF
  /// file's size (default: DES, the size from the storage and the free memory).
  public var desfireFormatOptions = DESFireNDEFFormatOptions()

  /// The NDEF Tag Application name of mapping version 2.0 and later.
  public static let applicationV2: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
  /// The NDEF Tag Application name of mapping version 1.0.
  public static let applicationV1: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]
  /// The CC file identifier.
  public static let ccFileID: [UInt8] = [0xE1, 0x03]

  /// What the tag has selected, as far as this object knows: nothing, the application, or a file.
  enum Selection: Equatable { case none, application, file([UInt8]) }
  var selection: Selection = .none

  /// Creates the platform.
  /// - Parameters:
  ///   - identifier: the UID.
  ///   - link: a link that carries ISO 7816-4 APDUs; answers keep SW1 SW2.
  ///   - atr: the ATR the reader built (`3B 8n 80 01 <historical bytes> TCK`), for `info`.
  public init(identifier: [UInt8], link: any Transceiver, atr: [UInt8] = []) {
    self.identifier = identifier
    self.link = link
    var historical: [UInt8] = []
    if atr.count >= 5, atr[0] == 0x3B, atr[1] & 0xF0 == 0x80, atr[2] == 0x80, atr[3] == 0x01 {
      let n = Int(atr[1] & 0x0F)
      if atr.count >= 4 + n { historical = Array(atr[4..<(4 + n)]) }
    }
    historicalBytes = historical
    // The ACR122U puts the whole ATS (TL first) in the historical bytes (ACS API V2.04 §3.1.2).
    if let tl = historical.first, Int(tl) == historical.count, historical.count >= 2 {
      ats = historical
    } else {
      ats = nil
    }
  }

  // MARK: NDEFTagPlatform

  public func queryNDEFStatus() throws(TagError) -> NDEFStatusReport {
    try withSelectionRecovery { () throws(TagError) -> NDEFStatusReport in
      let cc = try discover()
      let status: NDEFStatus = cc.writeAccess == 0 ? .readWrite : .readOnly
      guard cc.readAccess == 0 else { return NDEFStatusReport(status: status, capacity: cc.capacity) }
      try select(file: cc.ndefFileID)
      let head = try completeLengthField([], cc: cc, what: "READ BINARY (NLEN)")
      let length = try messageLength(head, cc: cc)
      return NDEFStatusReport(status: status, capacity: cc.capacity, messageLength: length)
    }
  }

  public func readNDEF() throws(TagError) -> [UInt8] {
    try withSelectionRecovery { () throws(TagError) -> [UInt8] in
      let cc = try discover()
      guard cc.readAccess == 0 else {
        throw .unsupported("the NDEF file is read-protected (CC read access \(hexString([cc.readAccess])))")
      }
      try select(file: cc.ndefFileID)
      let first = min(readChunk(cc), cc.ndefFileSize)
      var bytes = try completeLengthField(try readBinary(offset: 0, length: first, what: "READ BINARY"), cc: cc,
                                          what: "READ BINARY")
      let length = try messageLength(bytes, cc: cc)
      let total = cc.lengthFieldSize + length
      while bytes.count < total {
        bytes += try readBinary(offset: bytes.count, length: min(readChunk(cc), total - bytes.count),
                                what: "READ BINARY")
      }
      return Array(bytes[cc.lengthFieldSize..<total])
    }
  }

  public func writeNDEF(_ message: [UInt8], verify: Bool) throws(TagError) {
    try withSelectionRecovery { () throws(TagError) in
      let cc = try discover()
      guard cc.writeAccess == 0 else { throw .readOnly }
      guard message.count <= cc.capacity else {
        throw .insufficientCapacity(needed: message.count, capacity: cc.capacity)
      }
      try select(file: cc.ndefFileID)
      let n = cc.lengthFieldSize
      try checkFileHolds(n + message.count, claimed: cc.capacity, lengthFieldSize: n)
      let lengthField = Self.bigEndian(message.count, size: n)
      let chunk = writeChunk(cc)
      if message.isEmpty || n + message.count <= singleFrameUpdate(cc) {
        try updateBinary(offset: 0, data: lengthField + message)
      } else {
        try updateBinary(offset: 0, data: [UInt8](repeating: 0, count: n))
        var offset = 0
        var progress = TransferProgress.Counter(.writing, total: message.count)
        while offset < message.count {
          let end = min(message.count, offset + chunk)
          try updateBinary(offset: n + offset, data: Array(message[offset..<end]))
          progress.advance(by: end - offset)
          offset = end
        }
        try updateBinary(offset: 0, data: lengthField)
      }
      guard verify else { return }
      let expected = lengthField + message
      var back: [UInt8] = []
      while back.count < expected.count {
        back += try readBinary(offset: back.count, length: min(readChunk(cc), expected.count - back.count),
                               what: "READ BINARY (verify)")
      }
      if let i = zip(back, expected).enumerated().first(where: { $0.element.0 != $0.element.1 })?.offset {
        throw .verifyFailed(address: i)
      }
    }
  }

  /// Writes an empty NDEF message.
  ///
  /// A Type 4 tag cannot be given an NDEF application with NFC Forum commands (creating files is
  /// chip-specific: DESFire CreateApplication, ST proprietary commands), so only a tag that already
  /// has one can be formatted; nfcpy's `format` does the same.
  /// - Throws: ``TagError/unsupported(_:)`` naming why when there is no NDEF application or CC;
  ///   ``TagError/readOnly``.
  public func format() throws(TagError) {
    do {
      _ = try discover()
    } catch {
      // A MIFARE DESFire is given the application AN11004 maps (or a format cut short is finished).
      switch error {
      case .notFormatted, .malformed:
        if mayBeDESFire, let desfire = try readDESFireVersion() {
          try formatDESFire(desfire.version)
          try writeNDEF([], verify: true)
          return
        }
      default: break
      }
      if case .notFormatted(let why) = error {
        throw .unsupported("a Type 4 tag cannot be given an NDEF application with NFC Forum commands "
                           + "(it is chip-specific); this one has none usable: \(why)")
      }
      throw error
    }
    try checkDESFireFormatOptions()
    try writeNDEF([], verify: true)
  }

  /// Writes NLEN 0000 (one UPDATE BINARY), then reads it back.
  public func erase(overwritingOldMessage: Bool) throws(TagError) {
    let old = overwritingOldMessage ? (try queryNDEFStatus().messageLength ?? 0) : 0
    try writeNDEF([], verify: true)  // NLEN 0 first: from here on the tag holds an empty message
    guard old > 0 else { return }
    try withSelectionRecovery { () throws(TagError) in
      let cc = try discover()
      try select(file: cc.ndefFileID)
      let chunk = writeChunk(cc)
      var offset = 0
      let clear = min(old, cc.capacity)
      while offset < clear {
        let end = min(clear, offset + chunk)
        try updateBinary(offset: cc.lengthFieldSize + offset, data: [UInt8](repeating: 0, count: end - offset))
        offset = end
      }
    }
  }

  /// Makes the NDEF file permanently read-only with ST's EnablePermanentState command.
  ///
  /// NFC Forum Type 4 defines no lock command. ST25TA (and M24SR) tags lock the NDEF file for good
  /// with the proprietary `A2 28 00 02` (CLA A2, EnablePermanentState, P2 02 = write) sent while
  /// the NDEF file is selected; the CC write access byte then reads FFh. (`00 28 00 0x` is the
  /// reversible EnableVerificationRequirement, which needs the write password; proxmark3
  /// `cmdhfst25ta.c` `CmdHFST25TAProtect`.) NXP's NTAG 424 DNA would need ChangeFileSettings after
  /// AES authentication with the master key, which this platform does not do (NTAG424Tag's
  /// `NTAG424DNA.lockNDEFFile(changeKey:)` does, and `nfctag lock` uses it); such tags answer the
  /// ST command with `6E 00`/`6D 00` and get ``TagError/unsupported(_:)``. The CC is read again to
  /// check the lock took.
  /// - Throws: ``TagError/unsupported(_:)`` when the tag refuses the command;
  ///   ``TagError/verifyFailed(address:)`` when the CC does not show the lock afterwards.
  public func makeReadOnly() throws(TagError) {
    try withSelectionRecovery { () throws(TagError) in
      let cc = try discover()
      if cc.writeAccess == 0xFF { return }
      try select(file: cc.ndefFileID)
      let (_, sw) = try exchange([0xA2, 0x28, 0x00, 0x02], what: "EnablePermanentState", address: nil)
      switch sw {
      case .success: break
      case .classNotSupported, .instructionNotSupported:
        throw .unsupported("this tag does not know ST's EnablePermanentState (A2 28 00 02 answered "
                           + "\(hexString(sw.bytes, separator: " ")), \(sw.meaning)); NFC Forum Type 4 has no lock command, "
                           + "and NTAG 424 DNA needs ChangeFileSettings with AES authentication, which this "
                           + "platform does not do (nfctag lock does it through nfctag-provision)")
      case .securityStatusNotSatisfied:
        throw .unsupported("the tag refused EnablePermanentState (69 82, security status not satisfied): it "
                           + "needs its write password verified first (ST25TA VERIFY 00 20 00 02)")
      default:
        throw .transceive(.status(sw), command: "EnablePermanentState", address: nil)
      }
      capabilityContainer = nil
      let after = try discover()
      guard after.writeAccess != 0 else { throw .verifyFailed(address: after.controlTLV == 0x06 ? 16 : 14) }
    }
  }

  /// The CC file (read to its end: Le 00, or CCLEN when the tag refuses that) followed by the whole
  /// NDEF file: the layout of the emulator's Type 4 image.
  public func readMemory() throws(TagError) -> [UInt8] {
    try withSelectionRecovery { () throws(TagError) -> [UInt8] in
      let cc = try discover()
      try select(file: Self.ccFileID)
      var ccFile: [UInt8]
      do throws(TagError) {
        ccFile = try readBinary(offset: 0, length: min(256, link.capabilities.maxResponseLength), what: "READ BINARY (CC)",
                                acceptShort: true)
      } catch {
        guard case .transceive(.status, _, _) = error else { throw error }
        ccFile = try readBinary(offset: 0, length: cc.length, what: "READ BINARY (CC)")
      }
      guard cc.readAccess == 0 else { return ccFile }
      try select(file: cc.ndefFileID)
      var file: [UInt8] = []
      while file.count < cc.ndefFileSize {
        file += try readBinary(offset: file.count, length: min(readChunk(cc), cc.ndefFileSize - file.count),
                               what: "READ BINARY")
      }
      return ccFile + file
    }
  }

  // MARK: Internals

  /// Bytes per READ BINARY: MLe, the link's limit, and 65536 (extended Le); 256 without extended APDUs.
  func readChunk(_ cc: Type4CapabilityContainer) -> Int {
    max(1, min(cc.maxResponseData, link.capabilities.maxResponseLength, 65536))
  }

  /// Bytes per UPDATE BINARY: MLc and the link's command limit less the header (5, or 7 extended).
  func writeChunk(_ cc: Type4CapabilityContainer) -> Int {
    let maxCommand = link.capabilities.maxCommandLength
    if cc.maxCommandData > 255, maxCommand > 261 {
      return max(1, min(cc.maxCommandData, maxCommand - 7, 65535))
    }
    return max(1, min(cc.maxCommandData, 255, maxCommand - 5))
  }

  /// The most data bytes one UPDATE BINARY may carry and still be tearing protected: none unless
  /// ``protectsSingleFrameWrites``; then what fits one frame of an NTAG 424 DNA
  /// (``ntag424SingleFrameUpdate``) and one command (``writeChunk(_:)``).
  func singleFrameUpdate(_ cc: Type4CapabilityContainer) -> Int {
    protectsSingleFrameWrites ? min(writeChunk(cc), Self.ntag424SingleFrameUpdate) : 0
  }

  /// Selects the application and reads the CC, unless that was done on this connection already.
  func discover() throws(TagError) -> Type4CapabilityContainer {
    if let capabilityContainer { return capabilityContainer }
    if selection == .none { try selectApplication() }
    try select(file: Self.ccFileID, notFound: "the NDEF application has no CC file (E103)")
    var bytes = try readBinary(offset: 0, length: 15, what: "READ BINARY (CC)")
    guard bytes.count >= 15 else {
      throw .malformed("the CC file answered \(bytes.count) bytes for 15", offset: 0)
    }
    let cclen = Int(bytes[0]) << 8 | Int(bytes[1])
    if bytes[7] == 0x06, cclen >= 17 {
      bytes += try readBinary(offset: 15, length: 2, what: "READ BINARY (CC)")
    }
    let cc = try Type4CapabilityContainer(parsing: bytes)
    capabilityContainer = cc
    return cc
  }

  /// The CC's file size is a claim: before the first write, the last byte the message needs is
  /// read (one READ BINARY), so a file smaller than its CC says fails here, untouched, and not
  /// after NLEN was zeroed. When it is smaller, a binary search finds its real size for the message.
  private func checkFileHolds(_ bytes: Int, claimed: Int, lengthFieldSize n: Int) throws(TagError) {
    guard bytes > n else { return }
    func readable(_ offset: Int) throws(TagError) -> Bool {
      do {
        _ = try readBinary(offset: offset, length: 1, what: "READ BINARY (size probe)")
        return true
      } catch {
        if case .transceive(.status, _, _) = error { return false }
        throw error
      }
    }
    guard try !readable(bytes - 1) else { return }
    var low = 0, high = bytes - 1  // low readable (NLEN is), high not
    while high - low > 1 {
      let middle = (low + high) / 2
      if try readable(middle) { low = middle } else { high = middle }
    }
    throw .insufficientCapacity(needed: bytes - n, capacity: min(claimed, max(0, low + 1 - n)))
  }

  /// `head` (the file's first bytes) read on until it holds the whole NLEN or ENLEN: a CC whose MLe
  /// is below the length field's size (hostile, or a tag below the minimum MLe) gives it in parts.
  private func completeLengthField(_ head: [UInt8], cc: Type4CapabilityContainer, what: String) throws(TagError) -> [UInt8] {
    var bytes = head
    while bytes.count < cc.lengthFieldSize {
      bytes += try readBinary(offset: bytes.count, length: min(readChunk(cc), cc.lengthFieldSize - bytes.count), what: what)
    }
    return bytes
  }

  /// NLEN or ENLEN from the start of `head`, checked against the file.
  private func messageLength(_ head: [UInt8], cc: Type4CapabilityContainer) throws(TagError) -> Int {
    let n = cc.lengthFieldSize
    guard head.count >= n else {
      throw .malformed("the NDEF file answered \(head.count) bytes for its \(n)-byte length", offset: 0)
    }
    let length = head.prefix(n).reduce(0) { $0 << 8 | Int($1) }
    guard length <= cc.capacity else {
      throw .malformed("the NDEF length \(length) exceeds the file's \(cc.capacity)-byte capacity", offset: 0)
    }
    return length
  }

  private static func bigEndian(_ value: Int, size: Int) -> [UInt8] {
    (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
  }
}
