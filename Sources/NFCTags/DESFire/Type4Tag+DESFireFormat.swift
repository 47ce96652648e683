import NFCTransport

/// `nfctag format` on a MIFARE DESFire without the NDEF application: the application and its two
/// files as NXP AN11004 ("MIFARE DESFire as Type 4 Tag", mapping version 2.0) maps them and
/// libfreefare's `mifare-desfire-create-ndef` creates them for an EV1 (software major above 0):
/// application 000001h with key settings 0Fh and one DES key (the zero key of a new application),
/// ISO file ID E110h and DF name D2760000850101; the CC file 01h (ISO E103h, plain, 15 bytes) and
/// the NDEF file 02h (ISO E104h, plain, read, write and read&write free, change key 0).
///
/// The PICC master key is used only when the caller gives one (``Type4Tag/desfirePICCAuthentication``):
/// it authenticates first, before anything is written (a wrong key fails there), and again before
/// CreateApplication. Without one, a card whose PICC key settings make creating need it (bit 2
/// clear) or hide them is refused before anything is written. The CC file's write right is free
/// (Eh, as Android's formatter makes it) where libfreefare gives it to key 0 (E000h) after
/// authenticating with the application's key; its change right stays key 0.
///
/// The NDEF file's size is libfreefare's (2048, 4096 or 7680 bytes by the storage size), cut to what
/// GetFreeMemory says fits beside the CC file (a file takes its size rounded up to 32 bytes). All
/// is checked before the first write. The CC is written last: until it is, the card holds no
/// usable CC, and a run cut anywhere before is finished by running `format` again (what exists is
/// kept: the application, a file, the NDEF file's size).
/// Authenticates a ``DESFireCard`` with the PICC master key at the PICC level (selected) and
/// installs the secure messaging that follows; the card's version tells which command a DES key
/// takes (legacy 0Ah on a card before EV1). Made by the `DESFireTag` module, which has the ciphers.
public typealias DESFirePICCAuthentication = @Sendable (DESFireCard, DESFireVersionInfo) throws(DESFireCommandError) -> Void

/// What `format` makes on a MIFARE DESFire beyond AN11004's defaults.
public struct DESFireNDEFFormatOptions: Hashable, Sendable {
  /// The NDEF application's key type: DES (AN11004, libfreefare) or AES (what EV2 secure messaging
  /// and SDM need); its one key is the zero key of its type. On an EV3, AES gives five keys and the
  /// NDEF file SDM pre-enabled (FileOption bit 6), what `sdm setup` needs.
  public var applicationKeyType: DESFireKeyAlgorithm
  /// The NDEF file's size (3 to 32767 bytes, the CC's range); nil: libfreefare's by the storage size,
  /// cut to the free memory.
  public var ndefFileSize: Int?

  /// Options; the defaults are AN11004's.
  public init(applicationKeyType: DESFireKeyAlgorithm = .des, ndefFileSize: Int? = nil) {
    self.applicationKeyType = applicationKeyType
    self.ndefFileSize = ndefFileSize
  }
}

extension Type4Tag {
  /// AN11004's NDEF application on an EV1 and later (libfreefare's choice: "AID 000001h as
  /// proposed in the spec").
  static let desfireNDEFApplication = DESFireApplicationID.ndefApplication
  /// The application's ISO file ID (libfreefare's E110h).
  static let desfireNDEFApplicationFileID: UInt16 = 0xE110
  /// The CC file and the NDEF file: DESFire file numbers and ISO file IDs.
  static let desfireCCFile: (number: UInt8, fid: UInt16) = (0x01, 0xE103)
  package static let desfireNDEFFile: (number: UInt8, fid: UInt16) = (0x02, 0xE104)
  /// The AES NDEF application's keys on an EV3: five, as the NTAG 424 DNA's application has, so
  /// that `sdm setup`'s key numbers (0 change, 1 SDMFileRead, 2 SDMMetaRead) and `provision
  /// --sdm-url`'s five application keys are the same on both chips.
  static let desfireSDMKeyCount = 5
  /// Read, write and read&write free, change key 0 (libfreefare's EEE0h).
  static let desfireNDEFAccess = DESFireFileAccess(read: 0x0E, write: 0x0E, readWrite: 0x0E, change: 0x00)

  /// The 15-byte CC of mapping version 2.0 (AN11004; NFC Forum T4T): CCLEN 000Fh, version 20h,
  /// MLe 003Bh, MLc 0034h, the NDEF file control TLV (04h, 06h, E104h, the size, read and write
  /// access 00h).
  static func desfireCapabilityContainer(ndefFileSize size: Int) -> [UInt8] {
    [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, UInt8(size >> 8 & 0xFF), UInt8(size & 0xFF), 0x00, 0x00]
  }

  /// libfreefare's NDEF file size for a card of `storage` bytes: 7680 from 7680, 4096 from 4096,
  /// else 2048.
  static func desfireDefaultNDEFSize(storage: Int) -> Int {
    storage >= 0x1E00 ? 0x1E00 : (storage >= 0x1000 ? 0x1000 : 0x800)
  }

  /// Why this `format` leaves a MIFARE DESFire Light alone: its files are fixed, and the NDEF setup
  /// (docs/desfire.md, "DESFire Light") renames them with SetConfiguration under an EV2
  /// authentication, which needs the EV2 cryptography of the `DESFireTag` module
  /// (`DESFireCard.setUpLightForNDEF(key:)`, what `nfctag format` runs before this).
  static let lightFormatMissing = "a MIFARE DESFire Light is not set up for NDEF: its setup (SetConfiguration 08h and 06h "
    + "renaming files 00h/04h to E103h/E104h and its DF to D2760000850101, under EV2 authentication with key 0) "
    + "needs DESFireTag's setUpLightForNDEF (`nfctag format` runs it); nothing was written"

  /// Creates what is missing of the NDEF application and writes its CC. Nothing is written
  /// unless all of it can be done.
  /// - Throws: ``TagError/unsupported(_:)`` when the PICC key settings need the PICC master key,
  ///   the AID is taken by another application, or the free memory is too small; the card's
  ///   refusals and the link's failures as ``DESFireCommandError/tagError``.
  func formatDESFire(_ version: DESFireVersionInfo) throws(TagError) {
    guard !version.isLight else { throw .unsupported(Self.lightFormatMissing) }
    do {
      try runDESFireFormat(version)
    } catch {
      throw error.tagError
    }
    selection = .none
  }

  /// On a DESFire whose NDEF application is whole, when ``desfireFormatOptions`` are not the
  /// defaults: the NDEF file's size (GetFileSettings) and the application's key type
  /// (GetKeySettings) against them, before ``format()`` writes its empty message (and before a
  /// caller overwrites the old message: `nfctag format`). An AES key type asked of an application
  /// with DES keys, or a size other than the file's, is refused: `format` does not change keys nor
  /// resize files. Other tags, and a DESFire without the whole application: nothing is sent.
  /// - Throws: ``TagError/invalidArgument(_:)`` for either; the card's refusals and the link's
  ///   failures as ``DESFireCommandError/tagError``.
  package func checkDESFireFormatOptions() throws(TagError) {
    guard desfireFormatOptions != DESFireNDEFFormatOptions(), mayBeDESFire, (try? discover()) != nil,
          try readDESFireVersion() != nil else { return }
    do throws(DESFireCommandError) {
      defer { selection = .none }
      let card = DESFireCard(link: link)
      try card.selectApplication(Self.desfireNDEFApplication)
      try Self.checkExistingKeyType(card, options: desfireFormatOptions)
      try Self.checkExistingNDEFFileSize(card, options: desfireFormatOptions)
    } catch {
      throw error.tagError
    }
  }

  /// In the selected NDEF application: an AES key type asked (not the default) must be its keys'.
  private static func checkExistingKeyType(_ card: DESFireCard, options: DESFireNDEFFormatOptions) throws(DESFireCommandError) {
    let asked = options.applicationKeyType
    if asked != .des, let type = try card.keySettings().keyType, type != asked {
      throw .invalidArgument("the NDEF application exists with \(type) keys, not \(asked); `format` does not "
                             + "change them; nothing was written")
    }
  }

  /// In the selected NDEF application, whose NDEF file exists: a size asked must be the file's.
  private static func checkExistingNDEFFileSize(_ card: DESFireCard, options: DESFireNDEFFormatOptions) throws(DESFireCommandError) {
    guard let asked = options.ndefFileSize else { return }
    let size = try card.dataFileSize(Self.desfireNDEFFile.number)
    guard size == asked else {
      throw .invalidArgument("the NDEF file exists with \(size) bytes, not \(asked); `format` does not resize it; nothing was written")
    }
  }

  /// ISO SELECT of the PICC level by its DF name (D2760000850100, which EV1 and EV3 answer `90 00`),
  /// before the first native command: a MIFARE DESFire EV2 that answered the SELECT of the missing
  /// NDEF application with a random FCI (`6F …`; https://github.com/revtel/react-native-nfc-manager/issues/815, as
  /// `discover()` does before formatting) refuses SelectApplication with `91 1B` in the same
  /// connection; this select ends that (docs/desfire.md, "EV2 and EV3"). Its status is not checked:
  /// SelectApplication, next, reports a card that refuses.
  private static func reselectPICCLevel(_ link: any Transceiver) throws(DESFireCommandError) {
    let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07] + Type4Tag.applicationV1 + [0x00]
    do { _ = try link.transceive(select) } catch { throw .link(error, command: "SELECT (PICC level)") }
  }

  private func runDESFireFormat(_ version: DESFireVersionInfo) throws(DESFireCommandError) {
    _ = try Self.runDESFireFormat(DESFireCard(link: link), version: version, options: desfireFormatOptions,
                                  authenticate: desfirePICCAuthentication, knownMissing: false)
  }

  /// `format`'s DESFire steps for a caller that already knows the card lacks AN11004's NDEF
  /// application: `card`'s SelectApplication of 000001h has just been refused with `91 A0`
  /// (application not found), on this connection, with no ISO SELECT since the PICC level's (so
  /// an EV2's random-FCI fault cannot be pending). What ``format()`` would find out first (its
  /// ISO SELECT of the PICC level, a first PICC authentication, GetKeySettings, the selection of
  /// 000001h) is not asked again; the rest is the same: GetFreeMemory, the PICC level selected and
  /// authenticated with `authenticate` (needed here: the caller knows the key), CreateApplication,
  /// the two files, NLEN 0000, the CC last. The empty message is not written on top (NLEN is
  /// 0000 already) nor read back: the caller writes its own message (NLEN 0000, the data, NLEN)
  /// and reads it back. A run cut anywhere is finished by ``format()``, as `format`'s own.
  /// - Returns: the NDEF file's size.
  /// - Throws: as ``format()``'s DESFire steps (`invalidArgument` for too little free memory).
  package static func formatDESFireKnownMissing(_ card: DESFireCard, version: DESFireVersionInfo, options: DESFireNDEFFormatOptions,
                                                authenticate: @escaping DESFirePICCAuthentication) throws(DESFireCommandError) -> Int {
    guard !version.isLight else { throw .invalidArgument(lightFormatMissing) }
    return try runDESFireFormat(card, version: version, options: options, authenticate: authenticate, knownMissing: true)
  }

  private static func runDESFireFormat(_ card: DESFireCard, version: DESFireVersionInfo, options: DESFireNDEFFormatOptions,
                                       authenticate: DESFirePICCAuthentication?, knownMissing: Bool) throws(DESFireCommandError) -> Int {
    let link = card.link
    let aid = desfireNDEFApplication
    // An EV3 with AES keys gets what SDM needs (docs/desfire.md, "SDM on the virtual EV3").
    let sdmReady = options.applicationKeyType == .aes && version.generation == .ev3
    var picc = DESFireKeySettingsInfo?.none
    var exists = !knownMissing
    if !knownMissing {
      try reselectPICCLevel(link)
      try card.selectApplication(.picc)
      // A wrong key fails here, before anything is written.
      try authenticate?(card, version)
      do {
        picc = try card.keySettings()
      } catch where error.status == .authenticationError && authenticate == nil {
        throw .invalidArgument("the card's PICC key settings hide them without the PICC master key: give it with "
                               + "--picc-key-file or --picc-key-env")
      }
      // Does the application exist (a run cut before)? Selecting it tells, without the directory list.
      do {
        try card.selectApplication(aid)
      } catch where error.status == .applicationNotFound {
        exists = false
      }
    }
    var files: [UInt8] = []
    if exists {
      // Ours only if it answers to AN11004's DF name (a run cut before made it so).
      let select: [UInt8] = [0x00, 0xA4, 0x04, 0x00, 0x07] + Type4Tag.applicationV2 + [0x00]
      let reply: [UInt8]
      do { reply = try link.transceive(select) } catch { throw .link(error, command: "SELECT (NDEF application)") }
      guard StatusWord(trailerOf: reply) == .success else {
        throw .invalidArgument("the card holds an application \(aid) that is not AN11004's NDEF application (no DF name "
                               + "D2760000850101); `format` does not delete it")
      }
      try card.selectApplication(aid)
      try checkExistingKeyType(card, options: options)
      files = try card.fileIDs()
    } else {
      guard picc?.freeCreateDelete == true || authenticate != nil else {
        let settings = picc.map { " (\(hexString([$0.settings]))h)" } ?? ""
        throw .invalidArgument("the card's PICC key settings\(settings) need the PICC master key to create "
                               + "an application: give it with --picc-key-file or --picc-key-env")
      }
    }
    let needsCC = !files.contains(Self.desfireCCFile.number), needsNDEF = !files.contains(Self.desfireNDEFFile.number)
    var ndefSize = 0
    if let asked = options.ndefFileSize, !(3...0x7FFF).contains(asked) {
      throw .invalidArgument("the NDEF file's size is 3 to 32767 bytes, not \(asked); nothing was written")
    }
    if !needsNDEF { try checkExistingNDEFFileSize(card, options: options) }
    if needsNDEF || needsCC {
      let free = try card.freeMemory()
      let left = free - (needsCC ? 32 : 0)
      if needsNDEF {
        if let asked = options.ndefFileSize {
          guard (asked + 31) / 32 * 32 <= left else {
            throw .invalidArgument("not enough free memory on the card for an NDEF file of \(asked) bytes: \(free) bytes free, "
                                   + "\((needsCC ? 32 : 0) + (asked + 31) / 32 * 32) needed; nothing was written")
          }
          ndefSize = asked
        } else {
          ndefSize = min(Self.desfireDefaultNDEFSize(storage: version.storageBytes ?? 0), left / 32 * 32)
        }
        guard ndefSize >= 3, ndefSize <= left else {
          throw .invalidArgument("not enough free memory on the card for the NDEF application: \(free) bytes free, "
                                 + "\((needsCC ? 32 : 0) + 32) needed at least; nothing was written")
        }
      } else if left < 0 {
        throw .invalidArgument("not enough free memory on the card for the CC file: \(free) bytes free; nothing was written")
      }
    }
    if !exists {
      if let authenticate {
        // Selecting the application above ended the authentication.
        try card.selectApplication(.picc)
        try authenticate(card, version)
      }
      try card.createApplication(aid, settings: 0x0F, keyCount: sdmReady ? Self.desfireSDMKeyCount : 1,
                                 keyType: options.applicationKeyType, isoFileID: Self.desfireNDEFApplicationFileID,
                                 dfName: Type4Tag.applicationV2)
      try card.selectApplication(aid)
    }
    if needsCC {
      try card.createStandardDataFile(Self.desfireCCFile.number, isoFileID: Self.desfireCCFile.fid,
                                      access: Self.desfireNDEFAccess, size: 15)
    }
    if needsNDEF, sdmReady {
      try card.createSDMStandardDataFile(Self.desfireNDEFFile.number, isoFileID: Self.desfireNDEFFile.fid,
                                         access: Self.desfireNDEFAccess, size: ndefSize)
    } else if needsNDEF {
      try card.createStandardDataFile(Self.desfireNDEFFile.number, isoFileID: Self.desfireNDEFFile.fid,
                                      access: Self.desfireNDEFAccess, size: ndefSize)
    } else {
      ndefSize = try card.dataFileSize(Self.desfireNDEFFile.number)
    }
    guard (3...0x7FFF).contains(ndefSize) else {
      throw .malformed("the NDEF file has \(ndefSize) bytes, not 3 to 32767", command: "GetFileSettings 02")
    }
    try card.writeData(file: Self.desfireNDEFFile.number, offset: 0, [0x00, 0x00])
    try card.writeData(file: Self.desfireCCFile.number, offset: 0, Self.desfireCapabilityContainer(ndefFileSize: ndefSize))
    return ndefSize
  }
}
