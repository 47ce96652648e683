import NFCTransport

/// The MIFARE DESFire Light (MF2DL(H)x0, ``DESFireChip/light``): the DESFire model with the Light's
/// restrictions, not a card of its own. NXP's MF2DLHX0 data sheet and AN12343 ("MIFARE DESFire
/// Light features and hints") are public, but not at hand here: the facts below are as the
/// implementations that cite them state them, each named.
///
/// - One application, reached only by ISO SELECT (its ISO file ID DF01h or its DF name
///   `A0 00 00 03 96 56 43 41 03 F0 15 40 00 00 00 0B`; Proxmark3 doc/desfire.md, "DESFire Light";
///   MichaelsPlayground/TalkToYourDESFireCard `desfire_ev3_setup_desfire_light_environment.md`),
///   below the MF (3F00h), which holds no files here; an EV2 authentication there answers `91 40`
///   (this model's choice; the MF keeps one AES key only because the image format needs a key at
///   every level). The application keeps AID 000001 in an image; no command on the air names it.
/// - Five AES application keys 0-4, 00…00, version 0; EV2 authentication (71h/77h) and EV2
///   secure messaging (DESFireVirtualTag+EV2.swift). LRP (AuthenticateLRPFirst, SetConfiguration
///   option 05h) is not modelled.
/// - The fixed files (the same two sources; sizes and kinds agree, the rights and modes are
///   TalkToYourDESFireCard's alone, which re-creates the layout on an EV3: unconfirmed): 00h
///   standard 256 bytes (ISO EF00h), 01h cyclic record of 16-byte records (EF01h; 5 records, so
///   4 committed: Proxmark3 says "5 records", TalkToYourDESFireCard 4 usable entries), 03h value,
///   04h standard 256 bytes (EF04h), 1Fh standard 32 bytes (EF1Fh), whose bytes are the FCI an ISO
///   SELECT of the application answers when it starts with tag 6Fh (Proxmark3 doc/desfire.md;
///   m5stack/M5Unit-NFC `src/nfc/layer/ndef_layer.cpp` writes `6F 09 84 07 D2760000850101` there).
///   File 0Fh, the Transaction MAC file (`TMC ‖ TMV`, DESFireVirtualTag+TransactionMAC.swift); its
///   commands (CEh, DFh, C8h) are not modelled.
/// - ISO/IEC 7816-4 and wrapped commands only (https://github.com/flipperdevices/flipperzero-firmware/issues/4026; NXP
///   AN12343's examples): a native frame answers `6E 00` (class not supported: what a real Light
///   answers is not known). Wrapped commands outside the Light's set, among them
///   SelectApplication, GetApplicationIDs, CreateApplication, DeleteApplication, FormatPICC,
///   GetFreeMemory, GetKeySettings, the file creations and the EV1 authentications, answer
///   `91 1C`. The set (``lightCommands``) is this model's: the commands the sources above send to
///   a Light; which others a real Light refuses, and with which status, is unconfirmed.
/// - ReadData and WriteData also under ADh and 8Dh, the codes AN12343 uses (Proxmark3
///   client/src/mifare/desfiretest.c carries its values).
/// - SetConfiguration option 08h (file renaming) and 06h (the application's DF name and ISO file
///   ID), each change once, in Full mode after key 0, in the layouts M5Unit-NFC's
///   `setConfigurationFileRenamingEV2Full` and `setConfigurationAppNameEV2Full` send (one
///   implementation: unconfirmed): 08h `option(bit 0 ISO file ID, bit 1 two files) ‖ (old number
///   ‖ new number ‖ ISO FID, least significant byte first) × 1 or 2`; 06h `80h|length ‖ DF name
///   padded with zeros to 16 bytes ‖ ISO FID`. "Once" is read from the card's state: a file whose
///   ISO file ID, or a DF whose name and ID, are no longer the factory's answers `91 9D`.
extension DESFireVirtualTag {
  /// The Light application's DF name as shipped.
  public static let lightDFName: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x96, 0x56, 0x43, 0x41,
                                            0x03, 0xF0, 0x15, 0x40, 0x00, 0x00, 0x00, 0x0B]
  /// The Light application's ISO file ID as shipped.
  public static let lightDFFileID: UInt16 = 0xDF01
  /// The AID the model keeps the Light's application under (in images only).
  static let lightAID: UInt32 = 0x000001
  /// The files' ISO file IDs as shipped, by file number.
  static let lightFileIDs: [UInt8: UInt16] = [0x00: 0xEF00, 0x01: 0xEF01, 0x04: 0xEF04, 0x1F: 0xEF1F]

  /// The wrapped commands a Light takes: GetVersion, the EV2 authentications and AFh, GetCardUID,
  /// SetConfiguration, ChangeKey, GetKeyVersion, the file settings and lists, the data, value and
  /// record commands (with ADh, 8Dh), the transaction's commit and abort.
  static let lightCommands: Set<UInt8> = [0x60, 0x71, 0x77, 0xAF, 0x51, 0x5C, 0xC4, 0x64, 0x6F, 0x61, 0xF5, 0x5F,
                                          0xBD, 0xAD, 0x3D, 0x8D, 0x6C, 0x0C, 0xDC, 0x1C, 0xBB, 0x3B, 0xEB, 0xC7, 0xA7]

  /// A factory MIFARE DESFire Light.
  /// - Parameter uid: 7 bytes; nil for ``defaultUID``.
  public static func light(uid: [UInt8]? = nil) throws(EmulatorError) -> DESFireVirtualTag {
    let uid = uid ?? defaultUID
    guard uid.count == 7 else { throw EmulatorError("a MIFARE DESFire UID has 7 bytes (got \(uid.count))") }
    func file(_ number: UInt8, _ communication: DESFireCommunicationMode, _ access: UInt16, size: Int = 0,
              kind: DESFireFileKind = .standard) -> DESFireFile {
      DESFireFile(number: number, isoFileID: lightFileIDs[number], communication: communication,
                  access: DESFireAccessRights(word: access), data: [UInt8](repeating: 0, count: size), kind: kind)
    }
    // Rights as read, write, read&write, change (TalkToYourDESFireCard's table).
    let files: [UInt8: DESFireFile] = [
      0x00: file(0x00, .full, 0x1F30, size: 256),
      0x01: file(0x01, .full, 0x1230, kind: .records(DESFireRecordFile(recordSize: 16, maxRecords: 5, cyclic: true, records: []))),
      0x03: file(0x03, .full, 0x1230, kind: .value(DESFireValueFile(lowerLimit: 0, upperLimit: .max, value: 0, options: 0,
                                                                    limitedCreditValue: 0))),
      0x04: file(0x04, .full, 0x1230, size: 256),
      0x1F: file(0x1F, .plain, 0xEF30, size: 32),
      // The Transaction MAC file: TMC ‖ TMV, read free, never written (DESFireVirtualTag+TransactionMAC.swift).
      0x0F: file(0x0F, .plain, 0xEFFF, size: 12),
    ]
    let application = DESFireApplication(aid: lightAID, keySettings: 0x0B, keys: Array(repeating: .zero(.aes), count: 5),
                                         isoFileID: lightDFFileID, usesISOFileIDs: true, dfName: lightDFName, files: files)
    let picc = DESFireApplication(aid: 0, keySettings: 0x09, keys: [.zero(.aes)], isoFileID: nil, usesISOFileIDs: false,
                                  dfName: nil, files: [:])
    return DESFireVirtualTag(chip: .light, uid: uid, picc: picc, applications: [application], freeMemory: 0)
  }

  /// What a Light answers before the DESFire model sees `frame`: `6E 00` for a native frame,
  /// `91 1C` for a wrapped command it does not have (the chain and any authentication end), `91 40`
  /// for an EV2 authentication at the MF; nil to go on.
  func lightRefusal(_ frame: [UInt8]) -> TagResponse? {
    guard let first = frame.first, first != 0x00 else { return nil }
    guard first == 0x90 else { return .data(StatusWord.classNotSupported.bytes) }
    guard frame.count >= 2 else { return nil }
    let command = frame[1]
    if !Self.lightCommands.contains(command) {
      pending = nil
      endAuthentication()
      return .data([0x91, DESFireStatus.illegalCommand.rawValue])
    }
    if (command == 0x71 || command == 0x77), selectedAID == 0 {
      pending = nil
      endAuthentication()
      return .data([0x91, DESFireStatus.noSuchKey.rawValue])
    }
    return nil
  }

  /// The answer data of an ISO SELECT of the Light's application: with P2 00h, file 1Fh's FCI
  /// when its bytes begin a whole `6F L …` template; else none (P2 0Ch asks for none).
  func lightFCI(_ apdu: ShortAPDU) -> [UInt8] {
    guard chip.isLight, apdu.p2 == 0x00, let bytes = currentApplication?.files[0x1F]?.data,
          bytes.count >= 2, bytes[0] == 0x6F, 2 + Int(bytes[1]) <= bytes.count else { return [] }
    return Array(bytes[0..<(2 + Int(bytes[1]))])
  }

  /// SetConfiguration options 06h and 08h on a Light in an EV2 session (`option ‖ data`, opened
  /// from Full mode); nil for any other card or option (``ev2SetConfiguration(_:)`` answers).
  func lightSetConfiguration(_ plain: [UInt8]) -> (DESFireStatus, [UInt8])? {
    guard chip.isLight, let option = plain.first, option == 0x06 || option == 0x08 else { return nil }
    guard let application = currentApplication, masterKeyAuthenticated else { return (needsMasterKey, []) }
    let data = Array(plain.dropFirst())
    return option == 0x06 ? renameApplication(application, data) : renameFiles(application, data)
  }

  /// Option 06h: `80h|length ‖ DF name (16 bytes, zero-padded) ‖ ISO FID (LE)`.
  private func renameApplication(_ application: DESFireApplication, _ data: [UInt8]) -> (DESFireStatus, [UInt8]) {
    guard data.count == 19 else { return (.lengthError, []) }
    let length = Int(data[0] & 0x1F)
    guard data[0] & 0x60 == 0, data[0] & 0x80 != 0, (1...16).contains(length) else { return (.parameterError, []) }
    let fid = UInt16(data[17]) | UInt16(data[18]) << 8
    guard ![0x0000, 0x3F00, 0x3FFF, 0xFFFF].contains(fid) else { return (.parameterError, []) }
    guard application.dfName == Self.lightDFName, application.isoFileID == Self.lightDFFileID else { return (.permissionDenied, []) }
    updateCurrent {
      $0.dfName = Array(data[1...length])
      $0.isoFileID = fid
    }
    return (.operationOK, [])
  }

  /// Option 08h: `option ‖ (old number ‖ new number ‖ ISO FID (LE)) × 1, or × 2 with option bit 1`.
  private func renameFiles(_ application: DESFireApplication, _ data: [UInt8]) -> (DESFireStatus, [UInt8]) {
    guard let option = data.first else { return (.lengthError, []) }
    guard option & 0xFC == 0, option & 0x01 != 0 else { return (.parameterError, []) }
    let count = option & 0x02 != 0 ? 2 : 1
    guard data.count == 1 + 4 * count else { return (.lengthError, []) }
    var files = application.files
    for index in 0..<count {
      let entry = data[(1 + 4 * index)..<(5 + 4 * index)]
      let old = entry[entry.startIndex], new = entry[entry.startIndex + 1]
      let fid = UInt16(entry[entry.startIndex + 2]) | UInt16(entry[entry.startIndex + 3]) << 8
      guard new <= 0x1F, ![0x0000, 0x3F00, 0x3FFF, 0xFFFF].contains(fid) else { return (.parameterError, []) }
      guard var file = files[old] else { return (.fileNotFound, []) }
      guard let factory = Self.lightFileIDs[old], file.isoFileID == factory else { return (.permissionDenied, []) }
      guard new == old || files[new] == nil,
            !files.values.contains(where: { $0.number != old && $0.isoFileID == fid }) else { return (.duplicateError, []) }
      files[old] = nil
      file.number = new
      file.isoFileID = fid
      files[new] = file
    }
    updateCurrent { $0.files = files }
    return (.operationOK, [])
  }
}
