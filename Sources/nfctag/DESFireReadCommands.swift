import ArgumentParser
import DESFireTag
import NFCTagCLI
import NFCTags
import NFCTransport

/// Output formats of `desfire read-file`.
enum DESFireReadFormat: String, ExpressibleByArgument, CaseIterable { case hex, raw, json }

extension DESFireCommand {
  /// `nfctag desfire info`: the card, its PICC level and every application with its files.
  struct Info: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "info",
      abstract: "Show a MIFARE DESFire: version, storage, free memory, UID, key settings, applications and files.")
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var piccKey: DESFirePICCKeyOptions
    @OptionGroup var format: FormatOption

    func run(in context: CommandContext) throws {
      let authenticate = try piccKey.givenAuthentication(in: context)
      var (shown, report) = try withDESFireCardShowingUID(readerOptions, in: context) { card, version throws(DESFireCommandError) in
        try DESFireCardReport.read(card, version: version, authenticate: authenticate, files: true, cardUID: true)
      }
      report.shownUID = shown
      writeDESFireOutput(format.isJSON ? Self.json(report) + "\n" : Self.text(report), in: context)
    }

    static func text(_ report: DESFireCardReport) -> String {
      if let light = report.light { return lightText(report, light) }  // DESFireLightReport.swift
      let version = report.version, hw = version.hardware, sw = version.software
      // GetCardUID's real UID beside GetVersion's (a card with random UIDs shows a random one there).
      var cardUIDLine = report.cardUID.map { "\ncard UID:     " + textOf($0) { hexString($0) } + " (GetCardUID)" } ?? ""
      if let shown = report.shownUID, isRandomUID(shown) {  // DESFireConfigCommands.swift
        cardUIDLine += "\nrandom ID:    on (the card shows \(hexString(shown)), a new one at each activation; its real UID is "
          + "GetCardUID's, with the PICC master key)"
      }
      var text = """
        chip:         \(version.productName)
        UID:          \(hexString(version.uid))\(cardUIDLine)
        hardware:     vendor \(hexString([hw.vendor])), type \(hexString([hw.type])).\(hexString([hw.subType])), \
        version \(hw.majorVersion).\(hw.minorVersion), storage \(version.storageText)
        software:     version \(sw.majorVersion).\(sw.minorVersion) (\(version.generation))
        production:   week \(hexString([version.productionWeek])) of 20\(hexString([version.productionYear])), batch \(hexString(version.batchNumber))
        free memory:  \(textOf(report.freeMemory) { "\($0) bytes" })
        PICC keys:    \(textOf(report.piccKeySettings, \.text))

        """
      switch report.applications {
      case .failure(let error): text += "applications: \(error)\n"
      case .success(let applications):
        text += "applications: \(applications.isEmpty ? "none" : String(applications.count))\n"
        for application in applications { text += application.text(indent: "  ") }
      }
      return text
    }

    static func json(_ report: DESFireCardReport) -> String {
      if let light = report.light { return lightJSON(report, light) }
      let version = report.version
      var o = JSONObjectWriter()
      o.string("chip", version.productName)
      o.string("generation", "\(version.generation)")
      o.string("uid", hexString(version.uid))
      switch report.cardUID {
      case .success(let uid)?: o.string("cardUID", hexString(uid))
      case .failure(let error)?: o.raw("cardUID", desfireErrorJSON(error))
      case nil: break
      }
      if let shown = report.shownUID, isRandomUID(shown) {
        o.string("shownUID", hexString(shown))
        o.bool("randomUID", true)
      }
      writeVersionFrames(version, to: &o)
      if let bytes = version.storageBytes { o.number("storageBytes", bytes) }
      o.string("productionWeek", hexString([version.productionWeek]))
      o.string("productionYear", hexString([version.productionYear]))
      o.string("batch", hexString(version.batchNumber))
      o.raw("freeMemory", jsonOf(report.freeMemory) { String($0) })
      o.raw("piccKeySettings", jsonOf(report.piccKeySettings, \.json))
      switch report.applications {
      case .failure(let error): o.raw("applications", desfireErrorJSON(error))
      case .success(let applications): o.array("applications", applications.map(\.json))
      }
      return o.finish()
    }
  }

  /// `nfctag desfire apps`: the applications and their key settings.
  struct Apps: ToolCommand {
    static let configuration = CommandConfiguration(commandName: "apps", abstract: "List the applications on a MIFARE DESFire.")
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var piccKey: DESFirePICCKeyOptions
    @OptionGroup var format: FormatOption

    func run(in context: CommandContext) throws {
      let authenticate = try piccKey.givenAuthentication(in: context)
      let report = try withDESFireCard(readerOptions, in: context) { card, version throws(DESFireCommandError) in
        try DESFireCardReport.read(card, version: version, authenticate: authenticate, files: false)
      }
      // The list is what the command is for: a card that hides it is a refusal.
      let applications: [DESFireCardReport.ApplicationReport]
      switch report.applications {
      case .failure(let error): throw desfireFailure(error)
      case .success(let list): applications = list
      }
      if format.isJSON {
        var o = JSONObjectWriter()
        o.array("applications", applications.map(\.json))
        writeDESFireOutput(o.finish() + "\n", in: context)
      } else {
        writeDESFireOutput(applications.isEmpty ? "no applications\n" : applications.map { $0.text(indent: "") }.joined(), in: context)
      }
    }
  }

  /// `nfctag desfire files --aid HEX`: an application's files and their settings.
  struct Files: ToolCommand {
    static let configuration = CommandConfiguration(commandName: "files", abstract: "List an application's files and their settings.")
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var aid: DESFireAIDOption
    @OptionGroup var key: DESFireKeyOptions
    @OptionGroup var format: FormatOption

    func run(in context: CommandContext) throws {
      let aid = aid.value, key = try key.key(in: context)
      let report = try withDESFireCard(readerOptions, in: context) { card, version throws(DESFireCommandError) in
        try card.selectApplication(aid)
        if let key { try key.authenticate(card, version: version) }
        return try DESFireCardReport.application(card, aid: aid, files: true)
      }
      if case .failure(let error)? = report.files { throw desfireFailure(error) }
      writeDESFireOutput(format.isJSON ? report.json + "\n" : report.text(indent: ""), in: context)
    }
  }

  /// `nfctag desfire read-file`: a standard or backup data file's bytes, in the file's
  /// communication mode when the key given grants the read.
  struct ReadFile: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "read-file", abstract: "Read a data file of an application (plain, MAC or full communication mode).")
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var aid: DESFireAIDOption
    @OptionGroup var file: DESFireFileOption
    @Option(help: ArgumentHelp("The first byte to read (default 0).", valueName: "n")) var offset = 0
    @Option(help: ArgumentHelp("How many bytes (default: to the end of the file).", valueName: "n")) var length: Int?
    @Option(help: "Output: hex, raw bytes or json.") var format: DESFireReadFormat = .hex
    @Flag(help: "Write raw bytes even to a terminal.") var force = false
    @OptionGroup var key: DESFireKeyOptions
    @Option(help: ArgumentHelp("After the read, CommitTransaction with option 01h and check the card's Transaction MAC (TMV) of "
                               + "the read with this file's AES AppTransactionMACKey (hex on the first line).", valueName: "file"))
    var transactionMACKeyFile: String?

    func validate() throws {
      guard (0...0xFF_FFFF).contains(offset) else { throw ValidationError("--offset is 0 to 16777215, not \(offset).") }
      if let length, !(1...0xFF_FFFF).contains(length) { throw ValidationError("--length is 1 to 16777215, not \(length).") }
    }

    func run(in context: CommandContext) throws {
      if format == .raw, !force, context.outputIsTerminal {
        throw ValidationError("refusing to write raw bytes to a terminal: redirect the output or add --force.")
      }
      let (aid, number, offset, length, key) = (aid.value, file.number, offset, length ?? 0, try key.key(in: context))
      let tmKey = try readDESFireSecretKey(file: transactionMACKeyFile, env: nil,
                                           options: ("--transaction-mac-key-file", "--transaction-mac-key-env", "--key-type"),
                                           kind: .aes, what: "the Transaction MAC key", in: context)
      let (bytes, counter) = try withDESFireCard(readerOptions, in: context) { card, version throws(DESFireCommandError) -> ([UInt8], UInt32?) in
        try card.selectApplication(aid)
        if let key { try key.authenticate(card, version: version) }
        let (_, mode) = try dataFile(card, number, writing: false)
        guard let tmKey else { return (try card.readData(file: number, offset: offset, length: length, communication: mode), nil) }
        // The TMV is over the real UID: GetCardUID in a session (a card showing a random ID), else GetVersion's.
        let uid = key != nil ? try card.cardUID() : version.uid
        let (data, tmc) = try card.readDataWithTransactionMAC(file: number, offset: offset, length: length, communication: mode,
                                                              key: tmKey.material, uid: uid)
        return (data, tmc)
      }
      if let counter { context.say("transaction MAC: TMC \(counter), TMV verified") }  // beside the data, never in it
      let output = StandardOutput(context.output)
      switch format {
      case .raw: output.write(bytes)
      case .hex: output.write(hexString(bytes) + "\n")
      case .json:
        var o = JSONObjectWriter()
        o.string("aid", aid.description)
        o.number("file", Int(number))
        o.number("offset", offset)
        o.number("length", bytes.count)
        o.string("hex", hexString(bytes))
        output.write(o.finish() + "\n")
      }
      output.flush()
    }
  }
}

/// Checks that file `number` of the selected application is a data file (GetFileSettings) and
/// gives its kind and the mode ReadData or WriteData travels in (the file's own when the session's
/// key is what grants the access: docs/desfire.md, "Command line"); anything else is refused (65,
/// nothing sent after the settings).
func dataFile(_ card: DESFireCard, _ number: UInt8,
              writing: Bool) throws(DESFireCommandError) -> (DESFireFileSettings.FileType, DESFireFileCommunication) {
  let settings = try card.fileSettings(number)
  guard let type = settings.fileType, type == .standardData || type == .backupData else {
    throw .invalidArgument("file \(number) is a \(settings.fileType?.description ?? "unknown") file: "
                           + (writing ? "write-file" : "read-file") + " takes standard and backup data files "
                           + "(`nfctag desfire value` and `nfctag desfire records` the others)")
  }
  let access = settings.access
  let granting = writing ? [access.write, access.readWrite] : [access.read, access.readWrite]
  return (type, card.communication(for: settings, granting: granting))
}
