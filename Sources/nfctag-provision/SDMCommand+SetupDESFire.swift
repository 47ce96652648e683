import DESFire
import DESFireTag
import NFCTagCLI
import NFCTags
import NFCTransport
import NTAG424
import NTAG424Tag
import ProvisionCommands

/// `sdm setup` on a MIFARE DESFire EV3 (docs/desfire.md, "SDM on the virtual EV3"): the chip is
/// told by GetVersion (the hardware type 01h and major version 3xh name an EV3, as Proxmark3's
/// `hf mfdes info` tells them; NXP AN12343 shows the EV2 scheme SDM's ChangeFileSettings runs in),
/// and the plan is the 424 DNA's (``SDMPlan``, NT4H2421Gx datasheet §9.3, §10.7.1), written to
/// the NDEF application AN11004 defines (AID 000001, the NDEF file 02h) with DESFireTag's
/// commands.
extension SDMCommand.Setup {
  /// What GetVersion told: a DESFire (of which generation), or another chip (the 424 DNA path).
  enum Chip {
    case desfire(DESFireVersionInfo)
    case other
  }

  /// GetVersion, read as a DESFire's (``DESFireVersionInfo``): a DESFire, or `other` for any other
  /// answer (a 424 DNA names hardware type 04h; a status or a short answer is not a DESFire either).
  /// Only a lost link is thrown.
  static func identify(on link: any Transceiver) throws(CLIFailure) -> Chip {
    do {
      let version = try DESFireCard(link: link).getVersion()
      return version.isDESFire ? .desfire(version) : .other
    } catch {
      if case .link = error { throw desfireSetupFailure(error) }
      return .other
    }
  }

  /// The refusal, before anything is sent past GetVersion, of a DESFire that cannot take SDM: an
  /// EV1, EV2 (or the first DESFire); nil for an EV3 and a DESFire Light.
  static func refusal(of version: DESFireVersionInfo) -> CLIFailure? {
    if version.isLight { return nil }
    if case .ev3 = version.generation { return nil }
    let name = version.generation.description.isEmpty ? "MIFARE DESFire" : "MIFARE DESFire \(version.generation)"
    return CLIFailure(.invalidValue("SDM needs a DESFire EV3, a DESFire Light or an NTAG 424 DNA; this is a \(name) (nothing written)"))
  }

  /// The steps on an EV3, each refusal before anything is written:
  /// 1. SelectApplication 000001 (the NDEF application, AN11004) and GetKeySettings: AES keys,
  ///    or 64 (`nfctag format --key-type aes` makes them); GetFileSettings of file 02h: a standard
  ///    data file that holds the planned file (the plan again with the file's size).
  /// 2. AuthenticateEV2First with key 0 (AES).
  /// 3. ChangeFileSettings with the plan's SDM settings (`enableSDM`, CommMode.Full): the card
  ///    refuses a file created without FileOption bit 6 (`91 9E`), which is 64, nothing written.
  /// 4. WriteData of the NDEF file in the tear-safe order (NLEN zeroed, the message, NLEN: a
  ///    DESFire standard data file has no tearing protection of its own, MF3ICDx21_41_81 §9, so a
  ///    removal in between leaves an empty file, never a length over another message).
  /// 5. SelectApplication again (it ends the authentication) and an unauthenticated ReadData, on
  ///    which SDM mirrors and the counter rises. Returns the file as read.
  static func writeDESFire(template: String, fileData: String?, on link: any Transceiver,
                           key: DESFireKeyMaterial, console: Console) throws(CLIFailure) -> [UInt8] {
    try writeDESFire(template: template, fileData: fileData, on: link, light: false, shownUID: nil, key: key, console: console).readBack
  }

  /// What the DESFire path read back, and the card's real UID (GetCardUID) when the reader showed
  /// a random ID (4 bytes from 08h: docs/desfire.md, "Random UID"), which the SUN never mirrors.
  struct DESFireSetupResult: Sendable {
    var readBack: [UInt8]
    var realUID: [UInt8]?
  }

  /// ``writeDESFire(template:fileData:on:key:console:)`` on an EV3 or, with `light`, on a MIFARE
  /// DESFire Light set up for NDEF by `nfctag format` (its application selected by ISO SELECT of
  /// D2760000850101, its keys AES as shipped, so no GetKeySettings, which a Light lacks; the NDEF
  /// file is 04h, ISO E104h: DESFireTag's `DESFireCard.setUpLightForNDEF(key:)`). With a random ID
  /// shown (`shownUID`), GetCardUID after the authentication gives the UID the check and the
  /// report use.
  static func writeDESFire(template: String, fileData: String?, on link: any Transceiver, light: Bool, shownUID: [UInt8]?,
                           key: DESFireKeyMaterial, console: Console) throws(CLIFailure) -> DESFireSetupResult {
    let card = DESFireCard(link: link)
    card.isLight = light
    let file: UInt8 = light ? DESFireCard.lightNDEFFile.number : 2
    let chip = light ? "DESFire Light" : "DESFire EV3"
    let plan: SDMPlan
    var realUID: [UInt8]?
    do {
      if light {
        guard try card.selectLightApplication() == DESFireCard.ndefDFName else {
          throw CLIFailure(.invalidValue("the DESFire Light is not set up for NDEF: run `nfctag format` on it first (nothing written)"))
        }
      } else {
        try selectEV3NDEFApplication(card)
      }
      let size = try card.dataFileSize(file)
      do {
        plan = try SDMPlan.plan(template: template, fileData: fileData, fileSize: size)
      } catch {
        throw CLIFailure(.invalidValue(sanitizeLine("--url: \(error) (the \(chip)'s NDEF file; nothing written)")))
      }
      try card.authenticateEV2First(keyNumber: 0, key: key)
      console.info("authenticated with key 0 (AuthenticateEV2First)")
      if let shownUID, shownUID.count == 4, shownUID.first == 0x08 {
        realUID = try card.cardUID()
        console.info("the card shows a random ID: its UID is \(hexString(realUID ?? []))")
      }
      let sdm: [UInt8]
      do { sdm = try plan.settings.changeData() } catch {
        throw CLIFailure(.invalidValue(sanitizeLine("--url: \(error)")))
      }
      do { try card.enableSDM(file: file, settings: sdm) } catch {
        if case .status(.parameterError, _) = error {
          if light { throw CLIFailure(.unsupported("the DESFire Light refused SDM on its NDEF file (91 9E; nothing written)")) }
          throw CLIFailure(.invalidValue("the DESFire EV3's NDEF file was not created for SDM (FileOption bit 6): format it with "
                                         + "`nfctag format --key-type aes` (format erases the card's data; nothing written)"))
        }
        throw error
      }
      console.info("changed the NDEF file's settings: SDM on")
      try card.writeNDEFFile(file, contents: plan.ndefFile)
      console.info("wrote the NDEF file (\(plan.ndefFile.count) bytes): NLEN zeroed, the message, NLEN")
      let back = try card.readSDMFile(file, in: .ndefApplication, length: plan.ndefFile.count)
      return DESFireSetupResult(readBack: back, realUID: realUID)
    } catch let error as CLIFailure {
      throw error
    } catch let error as DESFireCommandError {
      throw desfireSetupFailure(error)
    } catch {
      throw CLIFailure(.internalError("\(error)"))
    }
  }

  /// An EV3's NDEF application (AN11004's 000001) selected and its keys AES (GetKeySettings), or 64.
  private static func selectEV3NDEFApplication(_ card: DESFireCard) throws -> Void {
    do { try card.selectApplication(.ndefApplication) } catch {
      if case .status(.applicationNotFound, _) = error {
        throw CLIFailure(.invalidValue("the DESFire EV3 has no NDEF application: format it with `nfctag format --key-type aes` (nothing written)"))
      }
      throw error
    }
    let settings = try card.keySettings()
    guard settings.keyType == .aes else {
      let type = settings.keyType.map { "\($0)" } ?? "unknown"
      throw CLIFailure(.invalidValue("the DESFire EV3's NDEF application has \(type) keys and SDM needs AES keys: format it with "
                                     + "`nfctag format --key-type aes` (format erases the card's data; nothing written)"))
    }
  }

  /// One line and its status for a DESFire's refusal or a lost link.
  static func desfireSetupFailure(_ error: DESFireCommandError) -> CLIFailure {
    let line = sanitizeLine(error.description)
    switch error {
    case .status(.authenticationError, _):
      return CLIFailure(.tagRefused(line + ": give the NDEF application's key 0 with --auth-key-file or --auth-key-env"))
    case .status(.permissionDenied, _):
      return CLIFailure(.tagRefused(line + ": the NDEF file's access rights do not allow it with key 0"))
    case .link(.tagRemoved, _):
      return CLIFailure(.nfcFailure(.readerTransceiveErrorTagConnectionLost, line + ": keep the tag on the reader and run `sdm setup` again"))
    case .link:
      return CLIFailure(.nfcFailure(.readerTransceiveErrorTagResponseError, line))
    case .integrity:
      return CLIFailure(.readBackMismatch(line + ": tap the card again; if it persists, check key 0"))
    default:
      return CLIFailure(.unsupported(line))
    }
  }

  /// Key 0's 16 bytes (the 424 DNA's key 0, or the EV3 NDEF application's), read once from
  /// `--auth-key-file`/`--auth-key-env` as ``SDMKeys`` reads every key (its lines and statuses);
  /// the factory key, with a warning, when neither is given.
  static func authKeyBytes(_ options: NTAG424AuthKeyOptions, in context: CommandContext) throws(CLIFailure) -> [UInt8] {
    let text: [UInt8], origin: String
    if let file = options.authKeyFile {
      text = try readSecretInputOrFail(file, option: "--auth-key-file", alternative: "--auth-key-env", in: context)
      origin = "--auth-key-file \(secretSourceName(file, option: "--auth-key-file"))"
    } else if let env = options.authKeyEnv {
      text = Array(try secretVariableOrFail(env, option: "--auth-key-env", alternative: "--auth-key-file", what: "key 0", in: context).utf8)
      origin = "--auth-key-env \(secretSourceName(env, option: "--auth-key-env"))"
    } else {
      context.console.warning("no key 0 given (--auth-key-file or --auth-key-env): authenticating with the factory key 00…00")
      return [UInt8](repeating: 0, count: 16)
    }
    var line = Array(text.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? [])
    while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line.removeLast() }
    guard line.count == 32, let bytes = parseHex(String(decoding: line, as: UTF8.self)), bytes.count == 16 else {
      throw CLIFailure(.invalidValue("key 0 (\(origin)) must be 32 hex digits on the first line"))
    }
    return bytes
  }
}
