import DESFire
import EV2SecureMessaging
import Hex
import NFCTags
import NFCTransport

/// What ``DESFireCard/setUpLightForNDEF(key:)`` found.
public enum DESFireLightNDEFSetup: Hashable, Sendable {
  /// The Light was set up for NDEF already (files renamed, plain and free, the DF renamed, the CC
  /// in place): nothing was sent past the checks.
  case alreadySetUp
  /// The setup ran (the steps that were still missing).
  case setUp
}

/// The NDEF setup of a MIFARE DESFire Light (MF2DL(H)x0), whose files are fixed: the two standard
/// data files of 256 bytes become the NFC Forum Type 4 Tag's CC file and NDEF file by
/// SetConfiguration, as m5stack/M5Unit-NFC's `prepare_desfire_light` (`src/nfc/layer/ndef_layer.cpp`)
/// does it (one implementation; the MF2DLHX0 data sheet, which defines SetConfiguration's options
/// 06h and 08h, was not at hand; docs/desfire.md, "DESFire Light"):
///
/// 1. ISO SELECT of the application (its shipped DF name, else D2760000850101); GetFileSettings of
///    files 00h and 04h (standard data files of 256 bytes whose change right is key 0 or free) and
///    ISO SELECTs of their ISO file IDs (as shipped, EF00h/EF04h, or renamed, E103h/E104h). All of
///    it before the first change: a card in another state is refused, nothing written.
/// 2. AuthenticateEV2First with the application's key 0 (AES; a wrong key fails here).
/// 3. SetConfiguration 08h (Full): file 00h to ISO file ID E103h, file 04h to E104h, numbers kept
///    (`option ‖ (old ‖ new ‖ ISO FID LE) × 2`, option 03h for both).
/// 4. ChangeFileSettings (Full, key 0) of each file not yet plain with free read and write: plain,
///    read, write and read&write free, change key 0 (libfreefare's EEE0h for the NDEF file, AN11004;
///    M5Unit-NFC makes the change right free too, which would let anyone change the settings back:
///    here it stays key 0, which `sdm setup` then authenticates with). Write is free because an NFC
///    Forum reader's UPDATE BINARY (`nfctag write`, a phone) carries no authentication.
/// 5. SetConfiguration 06h (Full): the DF name D2760000850101 and ISO file ID E110h
///    (`80h|7 ‖ name padded with zeros to 16 ‖ E110h LE`).
/// 6. WriteData of NLEN 0000 into file 04h, then of the CC into file 00h (CCLEN 000Fh, mapping 2.0,
///    MLe 003Bh, MLc 0034h, the NDEF file control TLV naming E104h of 256 bytes, read and write
///    free: NFC Forum Type 4 Tag §5.1; the bytes AN11004's DESFire format writes), last, so that a
///    run cut anywhere is finished by running it again; then an ISO SELECT that ends the session.
///
/// Not written: the FCI file 1Fh (`6F 09 84 07 D2760000850101`, which M5Unit-NFC writes for
/// phones that look for it): its write right is never as shipped (docs/desfire.md).
extension DESFireCard {
  /// The Light's CC file and NDEF file after the setup: file numbers (kept) and ISO file IDs.
  public static let lightCCFile: (number: UInt8, fid: UInt16) = (0x00, 0xE103)
  public static let lightNDEFFile: (number: UInt8, fid: UInt16) = (0x04, 0xE104)
  /// The application's ISO file ID after the setup (AN11004's E110h).
  public static let lightNDEFApplicationFileID: UInt16 = 0xE110
  /// The two files' size (fixed on a Light).
  public static let lightFileSize = 256
  /// The files' rights after the setup: read, write and read&write free, change key 0.
  public static let lightNDEFAccess = DESFireFileAccess(read: 0x0E, write: 0x0E, readWrite: 0x0E, change: 0x00)

  /// The 15-byte CC the setup writes: mapping 2.0, the NDEF file E104h of 256 bytes, free read and write.
  public static var lightCapabilityContainer: [UInt8] {
    [0x00, 0x0F, 0x20, 0x00, 0x3B, 0x00, 0x34, 0x04, 0x06, 0xE1, 0x04, 0x01, 0x00, 0x00, 0x00]
  }

  /// Sets a MIFARE DESFire Light up for NDEF (the steps above), or finds it set up already.
  /// - Parameter key: the application's key 0 (AES).
  /// - Throws: ``DESFireCommandError/invalidArgument(_:)`` (nothing written) for a key that is not
  ///   AES, a card that is not a Light or whose files are neither as shipped nor as the setup
  ///   leaves them; `91 AE` as ``DESFireCommandError/status(_:command:)`` when key 0 is refused
  ///   (nothing written); the card's other refusals and the link's failures. The key never appears.
  @discardableResult
  public func setUpLightForNDEF(key: DESFireKeyMaterial) throws(DESFireCommandError) -> DESFireLightNDEFSetup {
    guard key.aesKeyBytes != nil else {
      throw .invalidArgument("a MIFARE DESFire Light's keys are AES keys, not \(key.type): give key 0 as an AES key; nothing was written")
    }
    guard try getVersion().isLight else { throw .invalidArgument("not a MIFARE DESFire Light (GetVersion); nothing was written") }
    let dfName = try selectLightApplication()
    var renames: [UInt8] = [], settingsToChange: [(number: UInt8, changeRight: UInt8)] = []
    for (number, fid, shipped) in [(Self.lightCCFile.number, Self.lightCCFile.fid, UInt16(0xEF00)),
                                   (Self.lightNDEFFile.number, Self.lightNDEFFile.fid, UInt16(0xEF04))] {
      let file = "file \(hexString([number]))h"
      let settings = try fileSettings(number)
      guard settings.fileType == .standardData, settings.size == Self.lightFileSize else {
        throw .invalidArgument("the Light's \(file) is not a standard data file of \(Self.lightFileSize) bytes; nothing was written")
      }
      if try !selectsFile(fid) {
        guard try selectsFile(shipped) else {
          throw .invalidArgument("the Light's \(file) has neither its shipped ISO file ID \(hexString(Self.lightFIDBigEndian(shipped)))h nor "
                                 + "\(hexString(Self.lightFIDBigEndian(fid)))h (renamed otherwise: a file is renamed once); nothing was written")
        }
        renames += [number, number] + Self.lightFIDLittleEndian(fid)
      }
      if settings.communication != .plain || settings.access.read != 0x0E || settings.access.write != 0x0E {
        guard settings.access.change == 0x00 || settings.access.change == 0x0E else {
          throw .invalidArgument("the Light's \(file) has change right \(DESFireFileAccess.rightText(settings.access.change)): key 0 "
                                 + "cannot make it plain and free; nothing was written")
        }
        settingsToChange.append((number, settings.access.change))
      }
      _ = try selectLightApplication()  // the ISO SELECTs of the files above left the DF's files selected
    }
    let renameDF = dfName != Self.ndefDFName
    if renames.isEmpty, settingsToChange.isEmpty, !renameDF,
       try readData(file: Self.lightCCFile.number, offset: 0, length: 15) == Self.lightCapabilityContainer {
      return .alreadySetUp
    }
    try authenticateEV2First(keyNumber: 0, key: key)
    guard let session = secureMessaging as? DESFireEV2SecureMessaging else {
      throw .invalidArgument("AuthenticateEV2First left no EV2 session")
    }
    if !renames.isEmpty {
      let option: UInt8 = renames.count == 8 ? 0x03 : 0x01  // bit 0: ISO file IDs; bit 1: two files
      try ev2ExchangeExpectingNothing(0x5C, header: [0x08], data: [option] + renames, mode: .full,
                                      name: "SetConfiguration 08h (file renaming)", session: session)
    }
    for (number, changeRight) in settingsToChange {
      try changeFileSettings(number, communication: .plain, access: Self.lightNDEFAccess, changeRight: changeRight)
    }
    if renameDF {
      let name = Self.ndefDFName
      let data = [0x80 | UInt8(name.count)] + name + [UInt8](repeating: 0, count: 16 - name.count)
        + Self.lightFIDLittleEndian(Self.lightNDEFApplicationFileID)
      try ev2ExchangeExpectingNothing(0x5C, header: [0x06], data: data, mode: .full,
                                      name: "SetConfiguration 06h (DF name)", session: session)
    }
    try writeData(file: Self.lightNDEFFile.number, offset: 0, [0x00, 0x00], communication: .plain)
    try writeData(file: Self.lightCCFile.number, offset: 0, Self.lightCapabilityContainer, communication: .plain)
    _ = try selectLightApplication()  // ends the authentication
    return .setUp
  }

  /// Whether an ISO SELECT of EF `fid` (in the selected DF, no answer data) answers `90 00`.
  private func selectsFile(_ fid: UInt16) throws(DESFireCommandError) -> Bool {
    let name = "SELECT \(hexString(Self.lightFIDBigEndian(fid)))"
    let reply: [UInt8]
    do { reply = try link.transceive([0x00, 0xA4, 0x00, 0x0C, 0x02] + Self.lightFIDBigEndian(fid)) } catch { throw .link(error, command: name) }
    guard let response = ResponseAPDU(reply) else { throw .malformed("\(reply.count) bytes, no status word", command: name) }
    return response.statusWord == .success
  }

  private static func lightFIDBigEndian(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
  private static func lightFIDLittleEndian(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
}
