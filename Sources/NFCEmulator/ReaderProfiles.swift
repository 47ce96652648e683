import NFCTransport

// One profile per reader. Sources, by key (full titles in docs/readers.md, "Reader faces"):
// ACM1252 = ACS "ACM1252U-Y3 USB NFC Reader Module Reference Manual" V1.03 (the module version of
//   the ACR1252U; its firmware string is "ACR1252U_V202.2"); API1252 = ACS "ACR1252U … Application
//   Programming Interface" V1.09; ACR1255 = ACS "ACR1255U-J1 Reference Manual" V1.01 (ACS family);
// CLOUD37 = Identiv "Reference Manual for the CLOUD 370x F Contactless Desktop Readers" v1.0 (the
//   uTrust 3700 F's earlier name, same USB ID 04E6:5790); CLOUD47 = Identive "CLOUD 47x0 F Reference
//   Manual" v1.0; UT3720 = Identiv "Reference Manual for uTrust 3720F and 3721F" v1.00 (Identiv family);
// SCL3711M = SCM Microsystems "SCL3711 Reference Manual" v1.3;
// HIDSC = hidglobal/HID-OMNIKEY-Sample-Codes (commit 41a18e6), HID's own sample code;
// libccid = the CCID driver 1.5.2's Info.plist (reader names by VID:PID) and readers/*.txt
//   (USB descriptor dumps: iInterface strings); pcsc-lite `src/hotplug_libudev.c` builds the name
//   "<ifdFriendlyName> [<iInterface>] (<serial>)".
// Where no source says, the value is a choice, listed with its reason in docs/readers.md.

extension ReaderProfile {
  /// The ACS family's key rules: LOAD KEYS `FF 82 00 <00|01> 06 key`, structure 00 only (volatile,
  /// lost when the reader is unplugged), `63 00` otherwise (ACM1252 p.34, §5.2.4.1); GENERAL
  /// AUTHENTICATE and the obsolete `FF 88` form both taken (ACM1252 p.37).
  static let acsKeys = Keys(volatileStructures: [0x00], persistentStructures: [], slots: [0x00, 0x01],
                            badStructure: .noInformation, badSlot: .noInformation, obsoleteAuthenticate: true)

  /// ACS ACR1252U (`072F:223B`, PICC interface).
  public static let acr1252u = ReaderProfile(
    face: "acr1252u", productName: "ACS ACR1252U",
    // libccid: 223B "ACS ACR1252 Dual Reader", iInterface "ACR1252 Dual Reader PICC"
    // (readers/ACS_ACR1252_Dual_Reader.txt); no serial string in the dump.
    readerName: "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC]",
    // Polling bit map: ISO 14443A/B, FeliCa 212/424, Topaz; no ISO 15693 (ACM1252 p.57, §5.3.11).
    // Type 1 is polled but its command path is in no page read: refused (docs/readers.md).
    families: [.type2, .type3, .type4, .mifareClassic],
    // Le a multiple of 4, at most 16 on Ultralight (ACM1252 p.38, §5.2.4.3).
    type2Read: .asked(multiple: 4),
    type5Access: .blocks,
    // Manage Session / Transparent Exchange / Switch Protocol (ACM1252 p.26, p.32).
    transparentExchange: true,
    // `FF 00 00 00 Lc <FeliCa command with its length byte>` (ACM1252 p.45, §5.2.6).
    directTransmit: .felica,
    // "ACR122U compatible" `FF 00 40` LED/buzzer (ACM1252 p.86–87, §5.6.1).
    acr122LEDCommand: true, vendorCommandThroughTransmit: false,
    keys: acsKeys,
    // `6A 81` "function not supported" (ACR1255 p.40, GET DATA table; ACS family).
    unsupported: .functionNotSupported,
    // `63 00` the operation failed (ACM1252 p.38–39, §5.2.4.3–4).
    failed: .noInformation,
    // FeliCa `… 11 00 3B …` (ACM1252 p.45); Topaz card name `00 30` (ACR1255 p.38, ACS family).
    felicaATR: .partThree(standard: 0x11, name: [0x00, 0x3B]), topazATR: .partThree(standard: 0x03, name: [0x00, 0x30]),
    iso15693Name: [0x00, 0x14],
    // SCardControl: SCARD_CTL_CODE(3500) with ACS's acsccid driver, SCARD_CTL_CODE(1) with libccid
    // and ifdDriverOptions 0x0001 (acshk/acsccid src/ifdhandler.c; libccid Info.plist).
    escapeCodes: [ReaderControlCode.vendorEscape, ReaderControlCode.pcscLite(3500)],
    // `E0 00 00 18 00` → "ACR1252U_V202.2" (ACM1252 p.46, §5.3.1); LED `29`, buzzer `28` (§5.3.2–5.3.4).
    escapes: .acs(firmware: "ACR1252U_V202.2"))

  /// ACS ACR1552U (`072F:2303`, PICC interface). No page of ACS's own manual was readable: its
  /// card-level behaviour is the ACS family's, so the ACR1252U's above (key rules, `FF C2`, status
  /// words, ATR names, escape codes), but for what its own sources say, as docs/readers.md says.
  public static let acr1552u: ReaderProfile = {
    var profile = acr1252u
    profile.face = "acr1552u"
    profile.productName = "ACS ACR1552U"
    // acsccid: 2303 "ACS ACR1552 1S CL Reader" (acshk/acsccid src/supported_readers.txt), iInterface
    // "ACR1552 1S CL Reader PICC" (libccid readers/ACS_ACR1552U.txt); libccid 1.5.2 has no entry.
    profile.readerName = "ACS ACR1552 1S CL Reader [ACR1552 1S CL Reader PICC]"
    // Polling bit map has 14443A/B, FeliCa 212, Topaz, ISO 15693 (entur/android-nfc-lib
    // Acr1552UReader.java); how Type 1 and FeliCa are reached is not found: refused (docs/readers.md).
    // ISO 15693 through FF C2 (NXP community thread 2093136, an ACR1552U trace).
    profile.families = [.type2, .type4, .type5, .mifareClassic]
    profile.type2Read = .asked(multiple: 1)
    profile.directTransmit = .none
    profile.acr122LEDCommand = false
    // ICODE: `0B 00 14` (pcsc-tools smartcard_list.txt; the only ICODE name in Part 3's list).
    // `E0 00 00 18 00` firmware, LED `29` (bit0 blue, bit1 green), buzzer `28`
    // (entur/android-nfc-lib ACR1552Commands.java); the version string is our choice.
    profile.escapes = .acs(firmware: "ACR1552U_V101.0")
    return profile
  }()

  /// Identiv uTrust 3700 F (`04E6:5790`).
  public static let utrust3700f = ReaderProfile(
    face: "utrust3700f", productName: "Identiv uTrust 3700 F",
    // libccid: "Identiv uTrust 3700 F CL Reader", iInterface "uTrust 3700 F CL Reader", and a USB
    // serial per device (readers/Identiv_uTrust_3700_F_CL_Reader.txt); the serial is ours.
    readerName: "Identiv uTrust 3700 F CL Reader [uTrust 3700 F CL Reader] (0000000001)",
    // 14443 A/B, MIFARE, FeliCa through its pseudo-APDUs `FF 40`–`FF 4A` (CLOUD37 p.43, p.58,
    // §6.2.13–6.2.18); Type 1 and ISO 15693 are not listed: refused (docs/readers.md).
    families: [.type2, .type3, .type4, .mifareClassic],
    // "regardless of the value given in Le" the whole block: 4 bytes on Ultralight (CLOUD47 p.31,
    // §6.2.1; UT3720 p.33); martinpaljak/nfc4pc NDEF.java: "returns 4 bytes even if asked for 16".
    type2Read: .page,
    type5Access: .oneBlock,
    // No Part 3 FF C2 found for the 3700 F: none.
    transparentExchange: false,
    directTransmit: .none,
    acr122LEDCommand: false, vendorCommandThroughTransmit: false,
    // LOAD KEYS `FF 82 <structure> <number>`: card keys only in volatile memory (CLOUD47 p.33,
    // §6.2.3); UT3720's example loads key number 60 (p.35); errors 69 87 / 69 88 (SCL3711M p.34).
    keys: Keys(volatileStructures: [0x00], persistentStructures: [], slots: [0x00, 0x01, 0x60, 0x61],
               badStructure: StatusWord(0x69, 0x87), badSlot: StatusWord(0x69, 0x88), obsoleteAuthenticate: false),
    // `6A 81` function not supported, `6A 82` block does not exist (SCL3711M p.30, the family's list).
    unsupported: .functionNotSupported,
    failed: .fileNotFound,
    // Storage cards: the Part 3 ATR with the Part 3 Supplemental Document's standard and card name
    // (CLOUD37 p.24, §5.3.3.1): FeliCa standard 11, name 00 3B; Topaz 00 30 (unused: not read).
    felicaATR: .partThree(standard: 0x11, name: [0x00, 0x3B]), topazATR: .partThree(standard: 0x03, name: [0x00, 0x30]),
    iso15693Name: [0x00, 0x14],
    // Escape with libccid: SCARD_CTL_CODE(1) (CLOUD37 p.54; libccid).
    escapeCodes: [ReaderControlCode.vendorEscape],
    // `B2 00|01|FF`: LED control by firmware on, off, get (CLOUD37 p.54, §6.3.3.7).
    escapes: .identiv,
    // PAPDU_FELICA_REQC … PAPDU_FELICA_SYS_CODE (CLOUD37 p.42–43, §6.2.13–6.2.18).
    scmFeliCaCommands: true)

  /// HID Global OMNIKEY 5022 CL (`076B:5022`).
  public static let omnikey5022 = ReaderProfile(
    face: "omnikey5022", productName: "HID OMNIKEY 5022 CL",
    // libccid: "HID Global OMNIKEY 5022 Smart Card Reader", iInterface "OMNIKEY 5022 Smart Card
    // Reader" (readers/HID_Global_OMNIKEY_5022_Smart_Card_Reader.txt); no serial in the dump.
    readerName: "HID Global OMNIKEY 5022 Smart Card Reader [OMNIKEY 5022 Smart Card Reader]",
    // ISO 14443 A/B, ISO 15693, FeliCa, iCLASS (HIDSC AViatoR/OK5022.cs). How FeliCa blocks are read
    // and whether Topaz is: not found, refused (docs/readers.md).
    families: [.type2, .type4, .type5, .mifareClassic],
    // 16 bytes when 4 are asked (martinpaljak/nfc4pc NDEF.java, "OK 5022 returns 16 bytes even if
    // asked for 4", and https://github.com/martinpaljak/nfc4pc/issues/14).
    type2Read: .fourPages,
    // `FF B0 00 00 00` reads block 0; the sample writes one 4-byte block (HIDSC ExampleWithIso15693.cs).
    type5Access: .oneBlock,
    // FF C2 only in the value-block form (HIDSC ContactlessCardCommunication.cs): no session.
    transparentExchange: false,
    directTransmit: .none,
    acr122LEDCommand: false, vendorCommandThroughTransmit: true,
    // Structure bit5 = persistent, else volatile; plain card keys (HIDSC LoadKeyCommand). Slot count
    // is ours (00–1F); errors per PC/SC Part 3 §3.2.2.1.4 (69 83 / 69 88).
    keys: Keys(volatileStructures: [0x00], persistentStructures: [0x20], slots: Set(0x00...0x1F),
               badStructure: StatusWord(0x69, 0x83), badSlot: StatusWord(0x69, 0x88), obsoleteAuthenticate: false),
    // Not found: ISO 7816-4's "instruction not supported" and "no information" (docs/readers.md).
    unsupported: .instructionNotSupported,
    failed: .noInformation,
    felicaATR: .partThree(standard: 0x11, name: [0x00, 0x3B]), topazATR: .partThree(standard: 0x03, name: [0x00, 0x30]),
    iso15693Name: [0x00, 0x14],
    // SCardControl with libccid: SCARD_CTL_CODE(1) + ifdDriverOptions 0x0001; HID's sample uses
    // IOCTL_CCID_ESCAPE = SCARD_CTL_CODE(3500) (HIDSC ReaderControlCode.cs).
    escapeCodes: [ReaderControlCode.vendorEscape, ReaderControlCode.pcscLite(3500)],
    // `FF 70 07 6B 08 A2 06 A0 04 A0 02 85 00 00` → `BD 05 85 03 maj min rev 90 00` (HIDSC
    // ReaderCapabilities.cs); the version is ours.
    escapes: .omnikey(firmware: [0x01, 0x0A, 0x00]))

  /// HID Global OMNIKEY 5422, its contactless interface (`076B:5422`, interface 0): the 5022's
  /// commands (the same ContactlessCardCommunication class in HIDSC OK5422.cs, so the same READ
  /// BINARY, a choice), keys, status words and `FF 70 07 6B …` frames, with its own name and families.
  public static let omnikey5422: ReaderProfile = {
    var profile = omnikey5022
    profile.face = "omnikey5422"
    profile.productName = "HID OMNIKEY 5422"
    // libccid: "HID Global OMNIKEY 5422 Smartcard Reader", iInterface "OMNIKEY 5422CL Smartcard
    // Reader" (readers/HID_OMNIKEY_5422.txt).
    profile.readerName = "HID Global OMNIKEY 5422 Smartcard Reader [OMNIKEY 5422CL Smartcard Reader]"
    // Contactless configuration objects: ISO 14443 A/B, iCLASS only (HIDSC AViatoR/OK5422.cs).
    // Escapes need a card or the driver option (https://github.com/hidglobal/HID-OMNIKEY-Sample-Codes/issues/1), which
    // an attached emulator stands for.
    profile.families = [.type2, .type4, .mifareClassic]
    return profile
  }()

  /// SCM (Identiv) SCL3711 (`04E6:5591`, a PN533), behind Identiv's own PC/SC driver.
  public static let scl3711 = ReaderProfile(
    face: "scl3711", productName: "SCM SCL3711",
    // Not a CCID device (https://github.com/OpenSC/OpenSC/issues/672); with Identiv's pcsc-lite driver pcsc_scan shows
    // "SCL3711 Reader and NFC Device 00 00" (https://github.com/Yubico/yubioath-flutter/issues/727).
    readerName: "SCL3711 Reader and NFC Device",
    // Types 1, 2, 3, 4 and MIFARE Classic (SCL3711M §6.4): Type 1 through `FF 50`–`FF 60` (§6.4.1),
    // FeliCa through `FF 40`–`FF 4A` (§6.4.3); no ISO 15693 (a PN533).
    families: [.type1, .type2, .type3, .type4, .mifareClassic],
    // Block of 4 bytes on Ultralight; Le 00 = to the end of the file (SCL3711M p.30, §6.2.1).
    type2Read: .asked(multiple: 1),
    type5Access: .oneBlock,
    transparentExchange: false,
    directTransmit: .none,
    acr122LEDCommand: false, vendorCommandThroughTransmit: false,
    // `FF 82 00 <60 key A | 61 key B> 06 key`: P2 is the key type, no non-volatile memory; errors
    // 69 87 / 69 88 (SCL3711M p.34, §6.2.3).
    keys: Keys(volatileStructures: [0x00], persistentStructures: [], slots: [0x60, 0x61],
               badStructure: StatusWord(0x69, 0x87), badSlot: StatusWord(0x69, 0x88), obsoleteAuthenticate: false),
    // `6A 81` function not supported, `6A 82` block does not exist (SCL3711M p.30).
    unsupported: .functionNotSupported,
    failed: .fileNotFound,
    // Topaz `3B 82 80 01 02 44 45`, FeliCa `3B 8C 80 01 04 43 FD IDm timeout` (SCL3711M p.24–25).
    felicaATR: .scm, topazATR: .scm,
    iso15693Name: [0x00, 0x14],
    // No escape, LED or buzzer through PC/SC found: none.
    escapeCodes: [],
    escapes: .none,
    scmFeliCaCommands: true, scmType1Commands: true)
}
