import ArgumentParser
import DESFireTag
import NFCTagCLI
import NFCTags
import NFCTransport

extension DESFireCommand {
  /// `nfctag desfire records read|write|clear`: a linear or cyclic record file (MF3ICDx21_41_81 §9.6).
  struct Records: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "records", abstract: "Read, write or clear a record file of a MIFARE DESFire.",
      discussion: "In the file's communication mode when the key given grants the command (plain when the right is free); "
        + "a write or clear is committed (CommitTransaction) at the end of the command: cut before, the file is unchanged.",
      subcommands: [Read.self, Write.self, Clear.self])
  }
}

/// Selects the application, authenticates with the key given, and checks that the file is a
/// record file; gives its settings and the mode a command opened by `granting` travels in.
func recordFileMode(_ card: DESFireCard, _ version: DESFireVersionInfo, _ options: DESFireFileTargetOptions,
                    key: DESFireAuthenticatingKey?, granting: (DESFireFileAccess) -> [UInt8])
  throws(DESFireCommandError) -> (DESFireFileSettings, DESFireFileCommunication) {
  let number = options.file.number
  try card.selectApplication(options.aid.value)
  if let key { try key.authenticate(card, version: version) }
  let settings = try card.fileSettings(number)
  guard settings.fileType == .linearRecord || settings.fileType == .cyclicRecord else {
    throw .invalidArgument("file \(number) is a \(settings.fileType?.description ?? "unknown") file, not a record file")
  }
  return (settings, card.communication(for: settings, granting: granting(settings.access)))
}

extension DESFireCommand.Records {
  /// `nfctag desfire records read`: ReadRecords, the committed records, oldest first.
  struct Read: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "read", abstract: "Show a record file's committed records, oldest first (one per line in hex).")
    @OptionGroup var options: DESFireFileTargetOptions
    @Option(help: ArgumentHelp("Skip this many of the newest records (default 0).", valueName: "n")) var offset = 0
    @Option(help: ArgumentHelp("How many records (default: all).", valueName: "n")) var count: Int?
    @OptionGroup var format: FormatOption

    func validate() throws {
      guard (0...0xFF_FFFF).contains(offset) else { throw ValidationError("--offset is 0 to 16777215, not \(offset).") }
      if let count, !(1...0xFF_FFFF).contains(count) { throw ValidationError("--count is 1 to 16777215, not \(count).") }
    }

    func run(in context: CommandContext) throws {
      let key = try options.key.key(in: context), (offset, count, options) = (offset, count ?? 0, options)
      let (size, bytes) = try withDESFireCard(options.readerOptions, in: context) { card, version throws(DESFireCommandError) in
        let (settings, mode) = try recordFileMode(card, version, options, key: key) { [$0.read, $0.readWrite] }
        let size = settings.records?.size ?? 1
        // An empty file (or nothing before `offset`) answers 91 BE: nothing to show.
        if count == 0, let current = settings.records?.current, current <= offset { return (size, [UInt8]()) }
        return (size, try card.readRecords(file: options.file.number, offset: offset, count: count, recordSize: size,
                                           communication: mode))
      }
      let records = stride(from: 0, to: bytes.count, by: max(size, 1)).map { Array(bytes[$0..<min($0 + size, bytes.count)]) }
      if format.isJSON {
        var o = JSONObjectWriter()
        o.string("aid", options.aid.value.description)
        o.number("file", Int(options.file.number))
        o.array("records", records.map { "\"\(hexString($0))\"" })
        writeDESFireOutput(o.finish() + "\n", in: context)
      } else {
        writeDESFireOutput(records.map { hexString($0) + "\n" }.joined(), in: context)
      }
    }
  }

  /// `nfctag desfire records write`: WriteRecord into a new record, then CommitTransaction.
  struct Write: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "write", abstract: "Add a record to a record file (the bytes at --offset within it, the rest zeros).")
    @OptionGroup var options: DESFireFileTargetOptions
    @Option(help: ArgumentHelp("The bytes, in hex.", valueName: "hex")) var hex: String?
    @Option(help: ArgumentHelp("A file (- for standard input) whose bytes are written as they are.", valueName: "file")) var from: String?
    @Option(help: ArgumentHelp("Where in the record to start (default 0).", valueName: "n")) var offset = 0

    func validate() throws {
      guard (hex == nil) != (from == nil) else { throw ValidationError("give the bytes with one of --hex or --from.") }
      if let hex, parseLenientHex(Array(hex.utf8))?.isEmpty != false { throw ValidationError("--hex is one or more bytes in hex.") }
      guard (0...0xFF_FFFF).contains(offset) else { throw ValidationError("--offset is 0 to 16777215, not \(offset).") }
    }

    func run(in context: CommandContext) throws {
      let bytes = try hex.flatMap { parseLenientHex(Array($0.utf8)) } ?? readInputOrFail(from ?? "-", in: context)
      guard !bytes.isEmpty else { throw CLIFailure(.malformedInput("\(inputName(from ?? "-")) holds no byte to write")) }
      let (key, offset, options) = (try options.key.key(in: context), offset, options)
      try withDESFireCard(options.readerOptions, in: context) { card, version throws(DESFireCommandError) in
        let (_, mode) = try recordFileMode(card, version, options, key: key) { [$0.write, $0.readWrite] }
        do throws(DESFireCommandError) {
          try card.writeRecord(file: options.file.number, offset: offset, bytes, communication: mode)
        } catch where error.status == .boundaryError {
          throw .invalidArgument("\(error): past the record's size, or a full linear record file "
                                 + "(`nfctag desfire files --aid` shows them; `records clear` empties it); nothing changed")
        }
        try card.commitTransaction()
      }
      context.console.notice("wrote a record of file \(options.file.number) of application \(options.aid.value) (committed)")
    }
  }

  /// `nfctag desfire records clear`: ClearRecordFile, then CommitTransaction.
  struct Clear: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "clear", abstract: "Delete every record of a record file (the read&write key).")
    @OptionGroup var options: DESFireFileTargetOptions

    func run(in context: CommandContext) throws {
      let (key, options) = (try options.key.key(in: context), options)
      try withDESFireCard(options.readerOptions, in: context) { card, version throws(DESFireCommandError) in
        _ = try recordFileMode(card, version, options, key: key) { [$0.readWrite] }
        try card.clearRecordFile(options.file.number)
        try card.commitTransaction()
      }
      context.console.notice("cleared file \(options.file.number) of application \(options.aid.value) (committed)")
    }
  }
}
