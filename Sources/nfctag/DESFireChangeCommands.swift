import ArgumentParser
import DESFireTag
import NFCTagCLI
import NFCTags
import NFCTransport

/// An application's key type as `desfire create-app --key-type` names it.
enum DESFireNewKeyType: String, ExpressibleByArgument, CaseIterable {
  case des, twoKeyTripleDES = "2k3des", threeKeyTripleDES = "3k3des", aes
  /// DES and 2K3DES keys are one type on the card (MF3ICDx21_41_81 §9, CreateApplication KS2).
  var algorithm: DESFireKeyAlgorithm {
    switch self {
    case .des, .twoKeyTripleDES: return .des
    case .threeKeyTripleDES: return .tripleDES3K
    case .aes: return .aes
    }
  }
}

/// A file's communication mode as `desfire create-file --comm` names it.
enum DESFireCommName: String, ExpressibleByArgument, CaseIterable {
  case plain, mac, full
  var mode: DESFireFileCommunication {
    switch self {
    case .plain: return .plain
    case .mac: return .mac
    case .full: return .full
    }
  }
}

/// A file's kind as `desfire create-file --kind` names it.
enum DESFireFileKindName: String, ExpressibleByArgument, CaseIterable {
  case standard, backup, value, linearRecord = "linear-record", cyclicRecord = "cyclic-record"
}

/// Parses a key-number access right: 0-13, or "free" (Eh), "never" (Fh).
func parseDESFireRight(_ text: String) -> UInt8? {
  switch text.lowercased() {
  case "free", "e": return 0x0E
  case "never", "f": return 0x0F
  default: return Int(text).flatMap { (0...13).contains($0) ? UInt8($0) : nil }
  }
}

extension DESFireCommand {
  /// `nfctag desfire create-app`.
  struct CreateApp: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "create-app",
      abstract: "Create an application on a MIFARE DESFire (its keys are the zero key of their type).",
      discussion: "The PICC master key (--picc-key-file or --picc-key-env) authenticates first when given; a card whose "
        + "PICC key settings make creating free needs none.")
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var aid: DESFireAIDOption
    // `--keys` is every tag command's MIFARE Classic keys file (ReaderOptions).
    @Option(help: ArgumentHelp("How many keys, 1 to 14.", valueName: "n")) var keyCount: Int
    @Option(help: ArgumentHelp("The keys' type.", valueName: "des|2k3des|3k3des|aes")) var keyType: DESFireNewKeyType
    @Option(help: ArgumentHelp("The key settings byte in hex (default 0f: everything free, master key and settings changeable).",
                               valueName: "hex")) var settings = "0f"
    @Option(help: ArgumentHelp("The application's ISO file ID, 4 hex digits (with --df-name).", valueName: "hex")) var isoFid: String?
    @Option(help: ArgumentHelp("The application's ISO DF name, 1 to 16 bytes in hex (with --iso-fid).", valueName: "hex")) var dfName: String?
    @OptionGroup var piccKey: DESFirePICCKeyOptions

    func validate() throws {
      guard (1...14).contains(keyCount) else { throw ValidationError("--key-count is 1 to 14, not \(keyCount).") }
      guard let bytes = parseHex(settings), bytes.count == 1 else { throw ValidationError("--settings is one byte in hex, not '\(settings)'.") }
      if (isoFid == nil) != (dfName == nil) { throw ValidationError("--iso-fid and --df-name go together.") }
      if let isoFid {
        guard isoFid.utf8.count == 4, let fid = parseHex(isoFid), fid.count == 2 else {
          throw ValidationError("--iso-fid is 4 hex digits, not '\(isoFid)'.")
        }
      }
      if let dfName {
        guard let name = parseHex(dfName), (1...16).contains(name.count) else {
          throw ValidationError("--df-name is 1 to 16 bytes in hex, not '\(dfName)'.")
        }
      }
    }

    func run(in context: CommandContext) throws {
      let authenticate = try piccKey.givenAuthentication(in: context)
      let (aid, count, type) = (aid.value, keyCount, keyType.algorithm)
      let settings = parseHex(settings)?.first ?? 0x0F
      let fid = isoFid.flatMap(parseHex).map { $0.reduce(UInt16(0)) { $0 << 8 | UInt16($1) } }
      let name = dfName.flatMap(parseHex)
      // A rerun after a cut finds the application made: the same settings are done (docs/desfire.md).
      let outcome = try withDESFireCard(readerOptions, in: context) { card, version throws(DESFireCommandError) in
        try card.selectApplication(.picc)
        try authenticate?(card, version)
        // A rerun's GetDFNames comes after the card's 91 DE ended the session: authenticate again.
        var reauthenticate: ((DESFireCard) throws(DESFireCommandError) -> Void)?
        if let authenticate { reauthenticate = { card throws(DESFireCommandError) in try authenticate(card, version) } }
        return try card.createApplicationOnce(aid, settings: settings, keyCount: count, keyType: type, isoFileID: fid, dfName: name,
                                              reauthenticate: reauthenticate)
      }
      context.console.notice(outcome == .done ? "created application \(aid)" : "application \(aid) already exists with these settings")
    }
  }

  /// `nfctag desfire delete-app --yes`.
  struct DeleteApp: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "delete-app",
      abstract: "Delete an application and all its files, for good (needs --yes).",
      discussion: "Authenticates with the PICC master key: --picc-key-file or --picc-key-env, else the factory DES zero key.")
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var aid: DESFireAIDOption
    @Flag(help: "Confirm: the application and its files are gone for good.") var yes = false
    @OptionGroup var piccKey: DESFirePICCKeyOptions

    func run(in context: CommandContext) throws {
      guard yes else {
        throw CLIFailure(.needsConfirmation("delete-app deletes application \(aid.value) and all its files for good: add --yes; nothing was sent"))
      }
      let authenticate = try piccKey.authentication(in: context), aid = aid.value
      try withDESFireCard(readerOptions, in: context) { card, version throws(DESFireCommandError) in
        try card.selectApplication(.picc)
        try authenticate(card, version)
        try card.deleteApplication(aid)
      }
      context.console.notice("deleted application \(aid)")
    }
  }

  /// `nfctag desfire format-card --yes`: FormatPICC.
  struct FormatCard: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "format-card",
      abstract: "Delete every application and file on a MIFARE DESFire, for good (FormatPICC; needs --yes).",
      discussion: "The PICC master key and its settings stay. Authenticates with the PICC master key: --picc-key-file or "
        + "--picc-key-env, else the factory DES zero key.")
    @OptionGroup var readerOptions: ReaderOptions
    @Flag(help: "Confirm: every application and file is gone for good.") var yes = false
    @OptionGroup var piccKey: DESFirePICCKeyOptions

    func run(in context: CommandContext) throws {
      guard yes else {
        throw CLIFailure(.needsConfirmation("format-card deletes every application and file for good: add --yes; nothing was sent"))
      }
      let authenticate = try piccKey.authentication(in: context)
      try withDESFireCard(readerOptions, in: context) { card, version throws(DESFireCommandError) in
        try card.selectApplication(.picc)
        try authenticate(card, version)
        try card.formatPICC()
      }
      context.console.notice("formatted the card: no applications left")
    }
  }

  /// `nfctag desfire create-file`: a file of any kind (MF3ICDx21_41_81 §9: CreateStdDataFile,
  /// CreateBackupDataFile, CreateValueFile, CreateLinearRecordFile, CreateCyclicRecordFile).
  struct CreateFile: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "create-file", abstract: "Create a file in an application: standard, backup, value or record.",
      discussion: "Each access right is a key number (0-13), free or never; default free, change key 0. Data files take "
        + "--size; value files --lower, --upper, --value and --limited-credit; record files --record-size and --records.")
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var aid: DESFireAIDOption
    @OptionGroup var file: DESFireFileOption
    @Option(help: "The kind of file.") var kind: DESFireFileKindName = .standard
    @Option(help: ArgumentHelp("A data file's size in bytes, 1 to 16777215.", valueName: "n")) var size: Int?
    @Option(parsing: .unconditional, help: ArgumentHelp("A value file's lower limit (default 0).", valueName: "n")) var lower: Int?
    @Option(parsing: .unconditional, help: ArgumentHelp("A value file's upper limit (default 2147483647).", valueName: "n")) var upper: Int?
    @Option(parsing: .unconditional, help: ArgumentHelp("A value file's starting value (default: the lower limit).", valueName: "n")) var value: Int?
    @Flag(help: "A value file takes LimitedCredit.") var limitedCredit = false
    @Option(help: ArgumentHelp("A record file's record size in bytes, 1 to 16777215.", valueName: "n")) var recordSize: Int?
    @Option(help: ArgumentHelp("A record file's maximum number of records (a cyclic file keeps one fewer; 2 or more).",
                               valueName: "n")) var records: Int?
    @Option(help: "Communication mode: plain, mac or full.") var comm: DESFireCommName = .plain
    @Option(help: ArgumentHelp("Read right.", valueName: "key|free|never")) var read = "free"
    @Option(help: ArgumentHelp("Write right.", valueName: "key|free|never")) var write = "free"
    @Option(help: ArgumentHelp("Read&write right.", valueName: "key|free|never")) var readWrite = "free"
    @Option(help: ArgumentHelp("Change right.", valueName: "key|free|never")) var change = "0"
    @OptionGroup var key: DESFireKeyOptions

    func validate() throws {
      for (option, value) in [("--read", read), ("--write", write), ("--read-write", readWrite), ("--change", change)]
      where parseDESFireRight(value) == nil {
        throw ValidationError("\(option) is a key number 0 to 13, free or never, not '\(value)'.")
      }
      let given: [(String, Bool)] = [("--size", size != nil), ("--lower", lower != nil), ("--upper", upper != nil),
                                     ("--value", value != nil), ("--limited-credit", limitedCredit),
                                     ("--record-size", recordSize != nil), ("--records", records != nil)]
      let allowed: Set<String>
      switch kind {
      case .standard, .backup:
        allowed = ["--size"]
        guard let size else { throw ValidationError("a \(kind.rawValue) data file needs --size.") }
        guard (1...0xFF_FFFF).contains(size) else { throw ValidationError("--size is 1 to 16777215, not \(size).") }
      case .value:
        allowed = ["--lower", "--upper", "--value", "--limited-credit"]
        let range = Int(Int32.min)...Int(Int32.max)
        for (option, number) in [("--lower", lower), ("--upper", upper), ("--value", value)] {
          if let number, !range.contains(number) { throw ValidationError("\(option) is -2147483648 to 2147483647, not \(number).") }
        }
        guard valueLimits != nil else { throw ValidationError("--lower, --value and --upper go in that order.") }
      case .linearRecord, .cyclicRecord:
        allowed = ["--record-size", "--records"]
        guard let recordSize, let records else { throw ValidationError("a record file needs --record-size and --records.") }
        guard (1...0xFF_FFFF).contains(recordSize) else { throw ValidationError("--record-size is 1 to 16777215, not \(recordSize).") }
        let least = kind == .cyclicRecord ? 2 : 1
        guard (least...0xFF_FFFF).contains(records) else {
          throw ValidationError("--records is \(least) to 16777215 for a \(kind.rawValue) file, not \(records).")
        }
      }
      if let (option, _) = given.first(where: { $0.1 && !allowed.contains($0.0) }) {
        throw ValidationError("\(option) does not go with --kind \(kind.rawValue).")
      }
    }

    /// A value file's limits (nil when out of order or out of range).
    var valueLimits: DESFireValueFileLimits? {
      guard let low = Int32(exactly: lower ?? 0), let high = Int32(exactly: upper ?? Int(Int32.max)),
            let start = Int32(exactly: value ?? Int(low)), low <= start, start <= high else { return nil }
      return DESFireValueFileLimits(lower: low, upper: high, value: start, limitedCreditEnabled: limitedCredit)
    }

    func run(in context: CommandContext) throws {
      let access = DESFireFileAccess(read: parseDESFireRight(read) ?? 0x0F, write: parseDESFireRight(write) ?? 0x0F,
                                     readWrite: parseDESFireRight(readWrite) ?? 0x0F, change: parseDESFireRight(change) ?? 0x0F)
      let (aid, number, mode, key) = (aid.value, file.number, comm.mode, try key.key(in: context))
      let (kind, size, limits, recordSize, records) = (kind, size ?? 0, valueLimits, recordSize ?? 0, records ?? 0)
      try withDESFireCard(readerOptions, in: context) { card, version throws(DESFireCommandError) in
        try card.selectApplication(aid)
        if let key { try key.authenticate(card, version: version) }
        switch kind {
        case .standard: try card.createStandardDataFile(number, communication: mode, access: access, size: size)
        case .backup: try card.createBackupDataFile(number, communication: mode, access: access, size: size)
        case .value:
          guard let limits else { throw .invalidArgument("--lower, --value and --upper go in that order") }
          try card.createValueFile(number, communication: mode, access: access, limits: limits)
        case .linearRecord, .cyclicRecord:
          try card.createRecordFile(number, cyclic: kind == .cyclicRecord, communication: mode, access: access,
                                    recordSize: recordSize, maximumRecords: records)
        }
      }
      context.console.notice("created \(kind.rawValue) file \(number) in application \(aid)")
    }
  }

  /// `nfctag desfire delete-file`.
  struct DeleteFile: ToolCommand {
    static let configuration = CommandConfiguration(commandName: "delete-file", abstract: "Delete a file of an application.")
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var aid: DESFireAIDOption
    @OptionGroup var file: DESFireFileOption
    @OptionGroup var key: DESFireKeyOptions

    func run(in context: CommandContext) throws {
      let (aid, number, key) = (aid.value, file.number, try key.key(in: context))
      try withDESFireCard(readerOptions, in: context) { card, version throws(DESFireCommandError) in
        try card.selectApplication(aid)
        if let key { try key.authenticate(card, version: version) }
        try card.deleteFile(number)
      }
      context.console.notice("deleted file \(number) of application \(aid)")
    }
  }

  /// `nfctag desfire write-file`: bytes into a standard or backup data file, in the file's
  /// communication mode when the key given grants the write; a backup file's write committed.
  struct WriteFile: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "write-file", abstract: "Write bytes into a data file of an application (plain, MAC or full communication mode).",
      discussion: "A backup data file's write is committed (CommitTransaction) at the end: cut before, the file is unchanged.")
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var aid: DESFireAIDOption
    @OptionGroup var file: DESFireFileOption
    @Option(help: ArgumentHelp("The bytes, in hex.", valueName: "hex")) var hex: String?
    @Option(help: ArgumentHelp("A file (- for standard input) whose bytes are written as they are.", valueName: "file")) var from: String?
    @Option(help: ArgumentHelp("Where in the file to start (default 0).", valueName: "n")) var offset = 0
    @OptionGroup var key: DESFireKeyOptions

    func validate() throws {
      guard (hex == nil) != (from == nil) else { throw ValidationError("give the bytes with one of --hex or --from.") }
      if let hex, parseLenientHex(Array(hex.utf8))?.isEmpty != false { throw ValidationError("--hex is one or more bytes in hex.") }
      guard (0...0xFF_FFFF).contains(offset) else { throw ValidationError("--offset is 0 to 16777215, not \(offset).") }
    }

    func run(in context: CommandContext) throws {
      let bytes = try hex.flatMap { parseLenientHex(Array($0.utf8)) } ?? readInputOrFail(from ?? "-", in: context)
      guard !bytes.isEmpty else { throw CLIFailure(.malformedInput("\(inputName(from ?? "-")) holds no byte to write")) }
      let (aid, number, offset, key) = (aid.value, file.number, offset, try key.key(in: context))
      try withDESFireCard(readerOptions, in: context) { card, version throws(DESFireCommandError) in
        try card.selectApplication(aid)
        if let key { try key.authenticate(card, version: version) }
        let (type, mode) = try dataFile(card, number, writing: true)
        try card.writeData(file: number, offset: offset, bytes, communication: mode)
        if type == .backupData { try card.commitTransaction() }
      }
      context.console.notice("wrote \(bytes.count) bytes to file \(number) of application \(aid)")
    }
  }
}
