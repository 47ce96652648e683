import NFCEmulator
import NFCTransport
import NTAG424
import NTAG424Originality

/// An NXP NTAG 424 DNA (NT4H2421Gx): the NFC Forum Type 4 tag with AES-128 keys, secure messaging
/// and Secure Dynamic Messaging ("SUN").
///
/// Identification: 7-byte UID starting 04 (NXP), ATQA `03 44` (PN532 order), SAK 20h, the ATS
/// `06 77 77 71 02 80` (FSCI 7: 128-byte frames; TB 71h: FWI 7, as the NT4H2421Gx datasheet §10.4
/// remark puts in the User ATS; historical byte 80h).
///
/// Two command sets (NT4H2421Gx datasheet §10, Table 22):
/// - ISO/IEC 7816-4 (CLA 00h, ISO status words, Table 24): ISOSelectFile by DF name
///   (`D2760000850101` the NDEF application; `D2760000850100` the PICC level) and by file ID
///   (3F00h the PICC level, E110h the application, E103h/E104h/E105h files 01–03), ISOReadBinary and
///   ISOUpdateBinary on the selected file, in plain, where the file's access rights are free (Eh).
///   ISOReadBinary in an authenticated state answers `69 82` (Table 89).
/// - Native commands (CLA 90h, `91 xx` status words, Table 23) in `NTAG424DNAVirtualTag+Native.swift`.
///
/// SDM applies to every unauthenticated read (ISOReadBinary and ReadData in plain) of the NDEF file
/// when ChangeFileSettings enabled it: SDMReadCtr rises by one at the first such read after the
/// application or the file was selected, or the tag activated, and stays for the reads that follow
/// (a reader reads NLEN, then the message, and both must belong to the same SUN); the mirrors are
/// computed once for that count (``NTAG424Mirror``). At SDMReadCtrLimit, or FFFFFFh, such reads are
/// refused.
///
/// Not modelled: LRP (SetConfiguration option 05h enabling it is refused with `91 9E`; a test can
/// put the tag in LRP mode with ``testLRPMode``, to see the host refused as a real one is), Random
/// ID (option 00h bit 1: `91 9E`), the authentication delay by itself (`91 AD`: the datasheet gives
/// neither after how many failures nor for how long; a test asks for it with
/// ``testAuthenticationDelays``), originality keys, short file identifiers in ISOReadBinary
/// (`6A 86`). The datasheet chains no command with `91 AF` but GetVersion and the
/// authentications (§10.2, Table 22): a ReadData whose answer, secure messaging included, would
/// pass 256 bytes is refused (`91 7E`, §10.8.1, Table 79), not chained. Read_Sig answers an ECDSA (secp224r1) signature of the
/// UID made with the project's published test key, not NXP's (``originalitySignature``): an
/// originality check tells a virtual tag from a real one.
///
/// For tests, ``testRandomness`` fixes RndB, TI and PICCData's padding, so that a session
/// reproduces NXP AN12196's transcripts.
///
/// Image file (``memoryImage``, ``imageSize`` bytes, every byte string of that size is a tag):
/// file 01 (32), file 02 (256), file 03 (128), the five keys (16 bytes, then the key version, each),
/// each file's settings (a 30-byte record, see `NTAG424FileSettings.record`, then SDMReadCtr, 3 bytes
/// LSB first), the five failed-authentication counters (2 bytes LSB first), the failed-counter
/// configuration (option, TotFailCtrLimit, TotFailCtrDecr, as SetConfiguration 0Ah sends them), and
/// SetConfiguration's SMConfig (2), PDCap2.5, PDCap2.6 and HW option, then the UID (7), so a tag
/// loaded again is the same tag (its SUNs still verify with keys derived for its UID). An image
/// of the first layout, without the UID (``imageSizeWithoutUID`` bytes), still loads. The keys in
/// an image file are in clear: an image is test material, never a place for production keys.
public final class NTAG424DNAVirtualTag: VirtualTag {
  /// The NDEF application's DF name (ISO/IEC 7816-4), NFC Forum Type 4 mapping version 2.0.
  public static let applicationName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
  /// The registered DF name that selects the PICC level (datasheet §10.9.1).
  public static let piccName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00]
  /// The ATS with TL.
  public static let ats: [UInt8] = [0x06, 0x77, 0x77, 0x71, 0x02, 0x80]
  /// The UID used when none is given.
  public static let defaultUID: [UInt8] = [0x04, 0x42, 0x4D, 0x1A, 0x9B, 0x6E, 0x80]
  /// The image file's size: the three files, then the keys, settings and counters, then the UID.
  public static let imageSize = NTAG424DNAImage.size
  /// The size of an image of the first layout, without the UID, which still loads.
  public static let imageSizeWithoutUID = NTAG424DNAImage.sizeWithoutUID
  /// Read_Sig's answer: the UID signed once with the test key of `OriginalitySignature`
  /// (NTAG424Originality, OpenSSL's ECDSA on secp224r1, as NXP AN12196 §7.2 describes the real
  /// one), then the same bytes at every read, as a real tag's. It verifies with the test key,
  /// never with NXP's; 56 zero bytes (which verify with neither) if OpenSSL failed.
  public var originalitySignature: [UInt8] {
    if let signatureCache { return signatureCache }
    let signature = OriginalitySignature.testSignature(uid: identifier) ?? [UInt8](repeating: 0, count: 56)
    signatureCache = signature
    return signature
  }
  private var signatureCache: [UInt8]?

  /// Values that replace the tag's random numbers, for tests only.
  public struct TestRandomness: Sendable {
    /// RndB of every AuthenticateEV2First/NonFirst (16 bytes).
    public var rndB: [UInt8]
    /// The TI of every AuthenticateEV2First (4 bytes).
    public var transactionIdentifier: [UInt8]
    /// PICCData's RandomPadding (5 bytes).
    public var piccDataPadding: [UInt8]

    /// Fixed values; a wrong length makes the tag answer `91 EE` (RndB) or `91 7E` (TI) when used.
    public init(rndB: [UInt8], transactionIdentifier: [UInt8], piccDataPadding: [UInt8] = [0, 0, 0, 0, 0]) {
      self.rndB = rndB
      self.transactionIdentifier = transactionIdentifier
      self.piccDataPadding = piccDataPadding
    }
  }

  /// Fixed random numbers (tests only); nil draws them from the system's random source.
  public var testRandomness: TestRandomness?

  /// Tests only: the next this many authentications (part 1 of AuthenticateEV2First, or of NonFirst
  /// inside a session) are answered `91 AD`, as while a real tag's authentication delay runs
  /// (NT4H2421Gx datasheet §9: after a number of consecutive failed authentications, for a total
  /// time that grows with each; the datasheet gives neither, so the tag never starts a delay by
  /// itself). `Int.max`: every one.
  public var testAuthenticationDelays = 0

  /// Tests only: the tag is in LRP secure messaging mode (PDCap2.1 bit 1 set), where
  /// SetConfiguration option 05h leaves a real one for good. AuthenticateEV2First without PCDCap2.1
  /// bit 1 is refused with `91 9D` (NT4H2421Gx datasheet §9, Table 19), AuthenticateLRPFirst's part
  /// 1 (PCDCap2.1 = 02h) answered with AuthMode 01h and RndB (§10.4.3, Table 38); its part 2, LRP's
  /// cryptography, is not modelled (`91 1C`).
  public var testLRPMode = false

  /// NFC Forum Type 4.
  public var platform: TagPlatform { .type4 }
  /// The 7-byte UID.
  public let identifier: [UInt8]
  /// ISO 14443A with SENS_RES `03 44`, SEL_RES `20` (ISO-DEP) and ``ats``.
  public var technology: RFTechnology { .typeA(sensRes: [0x03, 0x44], selRes: 0x20, ats: Self.ats) }
  /// "NTAG 424 DNA".
  public var productName: String { "NTAG 424 DNA" }
  /// Increases whenever a command changed the files, keys, settings or counters.
  public internal(set) var memoryGeneration = 0
  /// The image-file bytes (see the type's discussion).
  public var memoryImage: [UInt8] { NTAG424DNAImage.encode(self) }

  // Persistent state (the image).
  var files: [[UInt8]]
  var settings: [NTAG424FileSettings]
  var readCounters: [UInt32]
  var keys: [[UInt8]]
  var keyVersions: [UInt8]
  var failedAuthentications: [UInt16]
  var failedCounterEnabled = true
  var failedCounterLimit: UInt16 = 1000
  var failedCounterDecrement: UInt16 = 10
  var smConfig: [UInt8] = [0, 0]
  var pdCap2Tail: [UInt8] = [0, 0]
  var hardwareOption: UInt8 = 0x01

  // Volatile state (lost at reset).
  var applicationSelected = false
  var currentFile: Int?
  var session: PICCSession?
  var pendingAuthentication: (challenge: PICCAuthentication, first: Bool, pcdCap2: [UInt8])?
  var pendingVersionFrame: Int?
  /// The NDEF file as mirrored for the count in progress.
  var mirrored: [UInt8]?

  /// A tag as shipped: every key 00…00 version 00, the factory CC file, an empty NDEF file.
  /// - Parameter uid: 7 bytes; nil for ``defaultUID``.
  public init(uid: [UInt8]? = nil) throws(EmulatorError) {
    identifier = try Self.checkedUID(uid)
    files = [Type4VirtualTag.factoryCC, [UInt8](repeating: 0, count: 256), [UInt8](repeating: 0, count: 128)]
    settings = NTAG424FileSettings.factory
    readCounters = [0, 0, 0]
    keys = [[UInt8]](repeating: [UInt8](repeating: 0, count: 16), count: 5)
    keyVersions = [0, 0, 0, 0, 0]
    failedAuthentications = [0, 0, 0, 0, 0]
  }

  /// A tag from an image file's bytes (``imageSize`` of them, or ``imageSizeWithoutUID``).
  /// - Parameter uid: the tag's UID, which wins over the image's; nil for the image's (the
  ///   default UID for an image without one).
  /// - Throws: ``EmulatorError`` for another size or a UID that is not 7 bytes.
  public convenience init(image: [UInt8], uid: [UInt8]? = nil) throws(EmulatorError) {
    guard image.count == Self.imageSize || image.count == Self.imageSizeWithoutUID else {
      throw EmulatorError("an NTAG 424 DNA image has \(Self.imageSize) bytes (files 01-03, keys, settings, counters, UID; "
                          + "\(Self.imageSizeWithoutUID) without the UID); this one has \(image.count)")
    }
    try self.init(uid: uid ?? NTAG424DNAImage.uid(in: image))
    NTAG424DNAImage.decode(image, into: self)
  }

  private static func checkedUID(_ uid: [UInt8]?) throws(EmulatorError) -> [UInt8] {
    let uid = uid ?? defaultUID
    guard uid.count == 7 else { throw EmulatorError("an NTAG 424 DNA UID has 7 bytes (got \(uid.count))") }
    return uid
  }

  /// The field went off and on: no selection, no authentication, a new SDM count.
  public func reset() {
    applicationSelected = false
    currentFile = nil
    endAuthentication()
    mirrored = nil
  }

  /// Drops the authentication and any command waiting for its next frame.
  func endAuthentication() {
    session = nil
    pendingAuthentication = nil
    pendingVersionFrame = nil
  }

  /// A key's version (tests and inspection).
  public func keyVersion(_ number: Int) -> UInt8? { keyVersions.indices.contains(number) ? keyVersions[number] : nil }
  /// A file's SDMReadCtr (files 1–3).
  public func readCounter(file: Int) -> UInt32? { readCounters.indices.contains(file - 1) ? readCounters[file - 1] : nil }
  /// A key's failed-authentication counter (TotFailCtr).
  public func failedAuthenticationCounter(key: Int) -> UInt16? {
    failedAuthentications.indices.contains(key) ? failedAuthentications[key] : nil
  }
  /// True when the key's bytes are `bytes` (tests: the key was changed).
  public func keyEquals(_ number: Int, _ bytes: [UInt8]) -> Bool { keys.indices.contains(number) && keys[number] == bytes }

  /// `count` bytes from the system's random source.
  func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: .min ... .max) } }

  // MARK: - Frames

  /// Answers one C-APDU with an R-APDU (data, then SW1 SW2). An empty frame gets no answer.
  public func respond(to frame: [UInt8]) -> TagResponse {
    guard frame.count >= 4 else { return frame.isEmpty ? .mute : .data(StatusWord.wrongLength.bytes) }
    switch frame[0] {
    case 0x00: return .data(isoCommand(frame))
    case 0x90: return .data(nativeCommand(frame))
    default: return .data(StatusWord.classNotSupported.bytes)
    }
  }

  // MARK: - ISO/IEC 7816-4 commands (§10.9)

  private func isoCommand(_ frame: [UInt8]) -> [UInt8] {
    pendingAuthentication = nil
    pendingVersionFrame = nil
    guard let apdu = ShortAPDU(frame) else { return StatusWord.wrongLength.bytes }
    switch apdu.ins {
    case 0xA4: return select(apdu)
    case 0xB0: return readBinary(apdu)
    case 0xD6: return updateBinary(apdu)
    default: return StatusWord.instructionNotSupported.bytes
    }
  }

  private func select(_ apdu: ShortAPDU) -> [UInt8] {
    guard apdu.p2 == 0x00 || apdu.p2 == 0x0C else { return StatusWord.incorrectP1P2.bytes }
    guard apdu.data.count <= 16 else { return StatusWord.wrongLength.bytes }
    switch apdu.p1 {
    case 0x04:
      if apdu.data == Self.applicationName { selectApplication(true) } else if apdu.data == Self.piccName {
        selectApplication(false)
      } else {
        return StatusWord.fileNotFound.bytes
      }
    case 0x00, 0x01, 0x02:
      if apdu.data.isEmpty || apdu.data == [0x3F, 0x00] {
        guard apdu.p1 == 0x00 else { return StatusWord.incorrectP1P2.bytes }
        selectApplication(false)
        return StatusWord.success.bytes
      }
      guard apdu.data.count == 2 else { return StatusWord.wrongLength.bytes }
      switch (apdu.data[0], apdu.data[1]) {
      case (0xE1, 0x10): selectApplication(true)
      case (0xE1, 0x03...0x05):
        guard applicationSelected else { return StatusWord.fileNotFound.bytes }
        currentFile = Int(apdu.data[1]) - 3
        mirrored = nil
      default: return StatusWord.fileNotFound.bytes
      }
    default:
      return StatusWord.incorrectP1P2.bytes
    }
    return StatusWord.success.bytes
  }

  private func selectApplication(_ application: Bool) {
    applicationSelected = application
    currentFile = nil
    endAuthentication()
    mirrored = nil
  }

  private func readBinary(_ apdu: ShortAPDU) -> [UInt8] {
    guard apdu.data.isEmpty, let le = apdu.le else { return StatusWord.wrongLength.bytes }
    guard apdu.p1 & 0x80 == 0 else { return StatusWord.incorrectP1P2.bytes }
    guard let file = currentFile else { return StatusWord.commandNotAllowed.bytes }
    guard session == nil else { return StatusWord.securityStatusNotSatisfied.bytes }
    let offset = Int(apdu.p1) << 8 | Int(apdu.p2)
    guard offset < settings[file].size else { return StatusWord.incorrectP1P2.bytes }
    guard case .success(let contents) = unauthenticatedContents(of: file) else {
      return StatusWord.securityStatusNotSatisfied.bytes
    }
    return Array(contents[offset..<min(contents.count, offset + le)]) + StatusWord.success.bytes
  }

  private func updateBinary(_ apdu: ShortAPDU) -> [UInt8] {
    guard !apdu.data.isEmpty else { return StatusWord.wrongLength.bytes }
    guard apdu.p1 & 0x80 == 0 else { return StatusWord.incorrectP1P2.bytes }
    guard let file = currentFile else { return StatusWord.commandNotAllowed.bytes }
    guard settings[file].write == 0xE || settings[file].readWrite == 0xE else {
      return StatusWord.securityStatusNotSatisfied.bytes
    }
    let offset = Int(apdu.p1) << 8 | Int(apdu.p2)
    guard offset < settings[file].size else { return StatusWord.incorrectP1P2.bytes }
    guard offset + apdu.data.count <= settings[file].size else { return StatusWord.wrongLength.bytes }
    store(apdu.data, in: file, at: offset)
    return StatusWord.success.bytes
  }

  /// Writes into a file and drops the mirrored copy.
  func store(_ data: [UInt8], in file: Int, at offset: Int) {
    files[file].replaceSubrange(offset..<(offset + data.count), with: data)
    mirrored = nil
    memoryGeneration += 1
  }

  /// A file's contents for a read without authentication, SDM applied: the file when Read or
  /// ReadWrite is free, or when SDM is on with an SDMFileRead key (§10.9.2, Table 89); else the
  /// status to answer (`91 9D` when every right is Fh, `91 AE` otherwise; ISOReadBinary answers
  /// `69 82` for both).
  func unauthenticatedContents(of file: Int) -> Result<[UInt8], NTAG424Status> {
    let fileSettings = settings[file]
    let sdm = fileSettings.sdm
    let free = fileSettings.read == 0xE || fileSettings.readWrite == 0xE
    guard free || (sdm.map { $0.fileRead != 0xF } ?? false) else {
      let never = fileSettings.read == 0xF && fileSettings.readWrite == 0xF && (sdm?.fileRead ?? 0xF) == 0xF
      return .failure(never ? .permissionDenied : .authenticationError)
    }
    guard let sdm else { return .success(files[file]) }
    if let mirrored { return .success(mirrored) }
    let counter = readCounters[file]
    if let limit = sdm.readCounterLimit, counter >= limit { return .failure(.permissionDenied) }
    guard counter < 0xFF_FFFF else { return .failure(.integrityError) }
    let padding = testRandomness?.piccDataPadding ?? random(SDMGeneration.fullPaddingLength)
    guard let contents = try? NTAG424Mirror.apply(to: files[file], sdm: sdm, uid: identifier, counter: counter + 1,
                                                  keys: keys, padding: padding) else {
      return .failure(.memoryError)
    }
    readCounters[file] = counter + 1
    memoryGeneration += 1
    mirrored = contents
    return .success(contents)
  }
}
