/// How the tool tells a reader's model and what the model can do.
///
/// A model is identified by what the reader answers (``ReaderIdentification``); its PC/SC name is
/// only a hint, used when the reader answers nothing that tells (a driver that refuses escapes
/// without a card, docs/readers.md).
extension ReaderModel {
  /// The model a PC/SC reader name suggests, or nil. The names are those the drivers give
  /// (libccid 1.5.2 `Info.plist`, acsccid `supported_readers.txt`, Identiv's SCL3711 driver as a
  /// user's pcsc_scan showed it, https://github.com/Yubico/yubioath-flutter/issues/727), Windows' included.
  public static func hinted(byName name: String) -> ReaderModel? {
    let n = name.lowercased()
    if n.contains("acr122") { return .acr122u }
    if n.contains("acr1252") { return .acr1252u }
    if n.contains("acr1552") { return .acr1552u }
    if n.contains("3700 f") { return .utrust3700f }
    if n.contains("omnikey 5022") { return .omnikey5022 }
    if n.contains("omnikey 5422") { return .omnikey5422 }
    if n.contains("scl3711") { return .scl3711 }
    return nil
  }

  /// The model a firmware string names: the ACR122U's `FF 00 48` answer ("ACR122U207") or an
  /// ACS escape's Get Firmware Version ("ACR1252U_V202.2", ACM1252U-Y3 Reference Manual §5.3.1).
  public static func named(byFirmware firmware: String) -> ReaderModel? {
    if firmware.hasPrefix("ACR122") { return .acr122u }
    if firmware.hasPrefix("ACR1252") { return .acr1252u }
    if firmware.hasPrefix("ACR1552") { return .acr1552u }
    return nil
  }

  /// What the model can do (facts and sources in docs/reader-faces.md's primary sources, cited
  /// per field in ``ReaderCapabilities``).
  public var capabilities: ReaderCapabilities { ReaderCapabilities.of(self) }
}

/// What a reader model can do, as the tool uses it: which exchange path reaches a tag, which tag
/// families nfctag reads through it, how it loads MIFARE Classic keys, how READ BINARY answers on a
/// Type 2 tag, and how its LEDs and buzzer are driven.
///
/// A family field is true when nfctag reads that family through the reader (for the uTrust 3700 F's
/// and SCL3711's FeliCa and the SCL3711's Topaz, through SCM's own pseudo-APDUs: ``SCMFeliCaLink``,
/// ``SCMType1Link``); false when the reader does not read it; nil when the reader polls it but no
/// public source gives a command path (docs/readers.md).
public struct ReaderCapabilities: Sendable, Equatable {
  /// What `FF 00 00 00 Lc data` (direct transmit) reaches.
  public enum DirectTransmit: String, Sendable {
    /// The reader's PN53x (`D4 …` frames): the ACR122U (ACR122U API V2.04 §6.1).
    case pn53x = "PN532 frames"
    /// FeliCa commands to the card (ACM1252U-Y3 Reference Manual §5.2.6).
    case felica = "FeliCa commands"
    /// None, or none documented.
    case none
  }

  /// How LOAD KEYS (`FF 82 P1 P2 Lc key`) takes a MIFARE Classic key.
  public enum KeyLoading: String, Sendable {
    /// P1 `00` (volatile), P2 a key number 00–01 (ACR122U API §5.1; ACM1252U-Y3 §5.2.4.1).
    case volatileSlots = "P1 00, key number 00-01 (volatile)"
    /// P1 a key structure (bit 7 reader key, bit 5 non-volatile), P2 the key number (Identiv
    /// CLOUD 47x0 F Reference Manual §6.2.3; HID OMNIKEY sample `LoadKeyCommand`).
    case keyStructure = "P1 key structure, P2 key number"
    /// P2 the key type (`60` A, `61` B), not a key number (SCL3711 Reference Manual §6.2.3).
    case keyTypeInP2 = "P2 key type 60/61"
  }

  /// How READ BINARY (`FF B0 00 pg Le`) answers on a Type 2 tag.
  public enum Type2ReadBinary: String, Sendable {
    /// The Le bytes asked for.
    case asAsked = "as asked"
    /// One 4-byte page whatever Le says (uTrust 3700 F: Identiv CLOUD 47x0 F §6.2.1; nfc4pc
    /// `NDEF.java`).
    case onePage = "one page whatever Le"
    /// 16 bytes whatever Le says (OMNIKEY 5022: nfc4pc `NDEF.java`, https://github.com/martinpaljak/nfc4pc/issues/14).
    case sixteenBytes = "16 bytes whatever Le"
    /// No public source says.
    case unknown
  }

  /// How the reader's LEDs and buzzer are driven.
  public enum Signalling: String, Sendable {
    /// The ACR122U's pseudo-APDU `FF 00 40 …` (ACR122U API V2.04 §6.2), through the escape or a card.
    case acr122PseudoAPDU = "FF 00 40 pseudo-APDU"
    /// ACS escapes through `SCardControl`: LED `E0 00 00 29 01 s`, buzzer `E0 00 00 28 01 t`
    /// (ACM1252U-Y3 Reference Manual §5.3.2–5.3.4; ACR1552U: entur/android-nfc-lib
    /// `ACR1552Commands.java`).
    case acsEscape = "ACS escape E0 00 00 29/28 (SCardControl)"
    /// None the tool can drive (none documented through PC/SC).
    case none
  }

  /// The model described.
  public var model: ReaderModel
  /// What direct transmit reaches.
  public var directTransmit: DirectTransmit
  /// PC/SC Part 3 transparent exchange (`FF C2`).
  public var transparentExchange: Bool?
  /// nfctag reads FeliCa (NFC Forum Type 3) through it.
  public var felica: Bool?
  /// nfctag reads ISO 15693 (NFC Forum Type 5) through it.
  public var iso15693: Bool?
  /// nfctag reads Topaz (NFC Forum Type 1) through it.
  public var type1: Bool?
  /// How MIFARE Classic keys are loaded.
  public var keyLoading: KeyLoading
  /// How READ BINARY answers on a Type 2 tag.
  public var type2ReadBinary: Type2ReadBinary
  /// How the LEDs and buzzer are driven.
  public var signalling: Signalling
  /// True when its PC/SC escapes need the CCID driver's `ifdDriverOptions` bit 0x0001 to work
  /// without a card on Linux (libccid 1.5.2 `Info.plist`; https://github.com/AdamLaurie/RFIDIOt/issues/23).
  public var escapeNeedsDriverOption: Bool
  /// True when the kernel's `pn533_usb` binds the reader and must be kept off it (Linux
  /// `drivers/nfc/pn533/usb.c`, `pn533_usb_table`).
  public var claimedByPN533Module: Bool
  /// True when FeliCa goes through SCM's pseudo-APDUs `FF 40`–`FF 4A` (SCL3711 Reference Manual
  /// v1.3 §6.4.3; Identiv CLOUD 370x F Reference Manual §6.2.13–6.2.18).
  public var scmFeliCaCommands = false
  /// True when Topaz goes through SCM's pseudo-APDUs `FF 50`–`FF 60` (SCL3711 Reference Manual §6.4.1).
  public var scmType1Commands = false

  static func of(_ model: ReaderModel) -> ReaderCapabilities {
    switch model {
    case .acr122u:
      return ReaderCapabilities(model: model, directTransmit: .pn53x, transparentExchange: false, felica: true,
                                iso15693: false, type1: true, keyLoading: .volatileSlots, type2ReadBinary: .asAsked,
                                signalling: .acr122PseudoAPDU, escapeNeedsDriverOption: true, claimedByPN533Module: true)
    case .acr1252u:
      // ACM1252U-Y3 Reference Manual: §5.2.6 direct transmit (FeliCa), p.26/32 FF C2, §5.3.11 polling
      // (14443A/B, FeliCa, Topaz; no 15693), §5.2.4.3 READ BINARY.
      return ReaderCapabilities(model: model, directTransmit: .felica, transparentExchange: true, felica: true,
                                iso15693: false, type1: nil, keyLoading: .volatileSlots, type2ReadBinary: .asAsked,
                                signalling: .acsEscape, escapeNeedsDriverOption: true, claimedByPN533Module: false)
    case .acr1552u:
      // NXP community thread 2093136 (FF C2 with ISO 15693); entur `Acr1552UReader.java` (polling map).
      return ReaderCapabilities(model: model, directTransmit: .none, transparentExchange: true, felica: nil,
                                iso15693: true, type1: nil, keyLoading: .volatileSlots, type2ReadBinary: .asAsked,
                                signalling: .acsEscape, escapeNeedsDriverOption: true, claimedByPN533Module: false)
    case .utrust3700f:
      // Identiv CLOUD 370x F Reference Manual §6.2.13–6.2.18 (FeliCa pseudo-APDUs), p.58 (no 15693
      // listed); no Type 1 command in it.
      return ReaderCapabilities(model: model, directTransmit: .none, transparentExchange: nil, felica: true,
                                iso15693: false, type1: nil, keyLoading: .keyStructure, type2ReadBinary: .onePage,
                                signalling: .none, escapeNeedsDriverOption: true, claimedByPN533Module: false,
                                scmFeliCaCommands: true)
    case .omnikey5022:
      // HID-OMNIKEY-Sample-Codes `OK5022.cs` (14443 A/B, 15693, FeliCa, iCLASS).
      return ReaderCapabilities(model: model, directTransmit: .none, transparentExchange: nil, felica: nil,
                                iso15693: true, type1: nil, keyLoading: .keyStructure, type2ReadBinary: .sixteenBytes,
                                signalling: .none, escapeNeedsDriverOption: true, claimedByPN533Module: false)
    case .omnikey5422:
      // HID-OMNIKEY-Sample-Codes `OK5422.cs`: 14443 A/B and iCLASS only.
      return ReaderCapabilities(model: model, directTransmit: .none, transparentExchange: nil, felica: nil,
                                iso15693: nil, type1: nil, keyLoading: .keyStructure, type2ReadBinary: .unknown,
                                signalling: .none, escapeNeedsDriverOption: true, claimedByPN533Module: false)
    case .scl3711:
      // SCL3711 Reference Manual v1.3 §6.2.3 (LOAD KEYS), §6.4 (Types 1–4: §6.4.1 Type 1, §6.4.3
      // FeliCa pseudo-APDUs), PN533: no 15693.
      return ReaderCapabilities(model: model, directTransmit: .none, transparentExchange: nil, felica: true,
                                iso15693: false, type1: true, keyLoading: .keyTypeInP2, type2ReadBinary: .asAsked,
                                signalling: .none, escapeNeedsDriverOption: false, claimedByPN533Module: true,
                                scmFeliCaCommands: true, scmType1Commands: true)
    }
  }

  /// The model that reads `family` ("FeliCa", "ISO 15693", "Topaz") among those that do, for a
  /// refusal's "what would work".
  public static func readers(reading keyPath: KeyPath<ReaderCapabilities, Bool?>) -> [ReaderModel] {
    ReaderModel.allCases.filter { $0.capabilities[keyPath: keyPath] == true }
  }

  /// One line for people: "transparent exchange, FeliCa, ISO 15693, Type 1; LED/buzzer: ACS escape …".
  public var summary: String {
    func flag(_ value: Bool?, _ name: String) -> String? {
      switch value {
      case true?: return name
      case false?: return nil
      case nil: return name + "?"
      }
    }
    let scm = [scmFeliCaCommands ? "FeliCa FF 40-4A" : nil, scmType1Commands ? "Type 1 FF 50-60" : nil].compactMap { $0 }
    let paths = [flag(transparentExchange, "transparent exchange"),
                 directTransmit == .none ? nil : "direct transmit (\(directTransmit.rawValue))",
                 scm.isEmpty ? nil : "SCM pseudo-APDUs (\(scm.joined(separator: ", ")))"].compactMap { $0 }
    let families = ["Type 2", "Type 4", "MIFARE Classic", flag(felica, "FeliCa"), flag(iso15693, "ISO 15693"),
                    flag(type1, "Type 1")].compactMap { $0 }
    return "reads \(families.joined(separator: ", ")); paths: \(paths.isEmpty ? "READ/UPDATE BINARY only" : paths.joined(separator: ", "))"
      + "; keys: \(keyLoading.rawValue); Type 2 READ BINARY: \(type2ReadBinary.rawValue); LED/buzzer: \(signalling.rawValue)"
  }
}
