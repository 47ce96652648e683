import NTAG424Commands

/// Secure Dynamic Messaging on the virtual DESFire EV3's and DESFire Light's standard data files: the NTAG 424 DNA's
/// SDM (NT4H2421Gx datasheet §9.3, §10.7.1; NXP's EV3 material: "SDM is compatible and already
/// known from NTAG 424 DNA"). A file created with FileOption bit 6 ("pre-enable SDM", the rule of
/// one source: MichaelsPlayground/MifareDesfireEv3Sun_Reference, DesfireEv3Light.java) takes
/// ChangeFileSettings with the 424 DNA's SDM layout in an EV2 Full session (else `91 9E`); an
/// unauthenticated read then returns the file with its mirrors filled in, SDMReadCtr rising at each
/// read from offset 0. The SDM settings are parsed by NTAG424Commands (``SDMSettings``), the mirror
/// is EV2SecureMessaging's ``SDMMirror`` run by the installed security (``DESFireSDMMirroring``:
/// NFCEmulator has no cipher). docs/desfire.md, "SDM on the virtual EV3".
package struct DESFireFileSDM: Hashable, Sendable {
  /// The SDM settings once ChangeFileSettings enabled SDM; nil while only pre-enabled.
  package var settings: SDMSettings?
  /// SDMReadCtr: the reads so far.
  package var readCounter: UInt32 = 0
  /// The file as mirrored for the read in progress (a read from offset 0 starts one).
  var mirrored: [UInt8]?

  /// Pre-enabled, not yet configured.
  package init(settings: SDMSettings? = nil, readCounter: UInt32 = 0) {
    self.settings = settings
    self.readCounter = readCounter
  }
}

/// The SDM mirror a ``DESFireSecurity`` may also supply (DESFireEmulator's does, over OpenSSL).
package protocol DESFireSDMMirroring: Sendable {
  /// The file's bytes with the mirrors of `layout` filled in (``SDMMirror``); nil when the
  /// cryptography fails or a key the layout names is missing.
  func sdmMirror(_ contents: [UInt8], layout: SDMMirrorLayout, uid: [UInt8], counter: UInt32, keys: [[UInt8]]) -> [UInt8]?
}

extension DESFireVirtualTag {
  /// Whether this card is an EV3 (GetVersion's HW major 33h) or a DESFire Light: the kinds with
  /// SDM here.
  var hasSDM: Bool { isEV3 || chip.isLight }

  /// Whether this card is an EV3 (GetVersion's HW major 33h).
  private var isEV3: Bool { chip.hardwareVersion.count > 3 && chip.hardwareVersion[3] == 0x33 }

  /// CreateStdDataFile's FileOption on an EV3: bit 6 pre-enables SDM (taken off before the
  /// communication mode is read); other cards keep the option as sent.
  func sdmFileOption(_ option: UInt8) -> (option: UInt8, preEnabled: Bool) {
    guard isEV3, option & 0x40 != 0 else { return (option, false) }
    return (option & ~0x40, true)
  }

  /// ChangeFileSettings' data with FileOption bit 6 (SDM) on an EV3 or a Light, in an EV2 session:
  /// `option ‖ AR(2) ‖ SDMOptions ‖ SDMAccessRights(2) ‖ offsets…`, the 424 DNA's layout (§10.7.1).
  /// `91 9E` when an EV3's file was not created with SDM pre-enabled, the card is neither or a
  /// field is wrong. A Light's standard data files (it creates none) take SDM as they are: which
  /// of a real Light's files take it is not confirmed here (the MF2DLHX0 data sheet was not at hand).
  func ev2ChangeSDMSettings(file: DESFireFile, settings: [UInt8]) -> (DESFireStatus, [UInt8]) {
    guard hasSDM, file.kind == .standard, var sdm = file.sdm ?? (chip.isLight ? DESFireFileSDM() : nil), settings.count >= 3,
          let mode = DESFireCommunicationMode(optionByte: settings[0] & ~0x40) else { return (.parameterError, []) }
    // GetFileSettings' shape (FileType, FileOption, AR, FileSize) for NTAG424Commands' one parser.
    let size = file.data.count
    let frame = [0x00] + Array(settings[0..<3]) + [UInt8(truncatingIfNeeded: size), UInt8(truncatingIfNeeded: size >> 8),
                                                    UInt8(truncatingIfNeeded: size >> 16)] + Array(settings[3...])
    guard let parsed = try? FileProperties(parsing: frame), let parsedSDM = parsed.settings.sdm,
          parsedSDM.options.contains(.asciiEncoding), Self.sdmFits(parsedSDM, size: size) else { return (.parameterError, []) }
    sdm.settings = parsedSDM
    sdm.mirrored = nil
    updateCurrent {
      $0.files[file.number]?.communication = mode
      $0.files[file.number]?.access = DESFireAccessRights(bytes: settings[1], settings[2])
      $0.files[file.number]?.sdm = sdm
    }
    return (.operationOK, [])
  }

  /// GetFileSettings of a file whose SDM is on, as the 424 DNA answers it (NT4H2421Gx §10.7.2):
  /// FileOption with bit 6, then after the size the SDM part (SDMOptions, SDMAccessRights, the
  /// offsets); nil for a file without SDM settings (pre-enabled only: its answer keeps bit 6
  /// clear, since what a real EV3 shows then is not known here).
  func sdmFileSettings(_ file: DESFireFile) -> [UInt8]? {
    guard let settings = file.sdm?.settings, let part = DESFireImage.sdmPart(settings) else { return nil }
    var answer = file.settings
    guard answer.count > 1 else { return nil }
    answer[1] |= 0x40
    return answer + part
  }

  /// Every mirror inside the file (Table 71's PARAMETER_ERROR for one that is not).
  static func sdmFits(_ sdm: SDMSettings, size: Int) -> Bool {
    let spans: [(Int?, Int)] = [(sdm.uidOffset, 14), (sdm.readCounterOffset, 6), (sdm.piccDataOffset, 32),
                                (sdm.macOffset, 16), (sdm.encryptedFileDataOffset, sdm.encryptedFileDataLength ?? 0),
                                (sdm.macInputOffset, 0)]
    return spans.allSatisfy { offset, length in offset.map { $0 >= 0 && $0 <= size && length <= size - $0 } ?? true }
  }

  /// The bytes an unauthenticated read of `file` from `offset` sees: the mirrored file when SDM is
  /// on (a read from offset 0 raises SDMReadCtr and mirrors again), nil when the file has no SDM or
  /// a key is authenticated (then the stored bytes are read). `91 1E` when SDMReadCtr is at its end or the mirror fails.
  func sdmContents(of file: DESFireFile, from offset: Int) -> Result<[UInt8], DESFireStatus>? {
    guard authenticatedKey == nil, var sdm = file.sdm, let settings = sdm.settings else { return nil }
    if offset != 0, let mirrored = sdm.mirrored { return .success(mirrored) }
    guard sdm.readCounter < SDMFrames.maximumReadCounter,
          let mirroring = security as? any DESFireSDMMirroring,
          let keys = currentApplication?.keys.map(\.value) else { return .failure(.integrityError) }
    if let limit = settings.readCounterLimit, sdm.readCounter >= limit { return .failure(.permissionDenied) }
    let counter = sdm.readCounter + 1
    guard let mirrored = mirroring.sdmMirror(file.data, layout: settings.mirrorLayout, uid: uid, counter: counter,
                                             keys: keys) else { return .failure(.integrityError) }
    sdm.readCounter = counter
    sdm.mirrored = mirrored
    updateCurrent { $0.files[file.number]?.sdm = sdm }
    return .success(mirrored)
  }
}

extension SDMSettings {
  /// Where the mirrors go, for ``SDMMirror``.
  var mirrorLayout: SDMMirrorLayout {
    let encrypts = options.contains(.encryptedFileData)
    return SDMMirrorLayout(mirrorsUID: options.contains(.uid), mirrorsCounter: options.contains(.readCounter),
                           metaRead: accessRights.metaRead.nibble, fileRead: accessRights.fileRead.nibble,
                           uidOffset: uidOffset, readCounterOffset: readCounterOffset, piccDataOffset: piccDataOffset,
                           macInputOffset: macInputOffset, macOffset: macOffset,
                           encOffset: encrypts ? encryptedFileDataOffset : nil,
                           encLength: encrypts ? encryptedFileDataLength : nil)
  }
}
