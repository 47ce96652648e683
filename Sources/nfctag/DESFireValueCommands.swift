import ArgumentParser
import DESFireTag
import NFCTagCLI
import NFCTags
import NFCTransport

extension DESFireCommand {
  /// `nfctag desfire value get|credit|debit|limited-credit`: a value file (MF3ICDx21_41_81 §9.6).
  struct Value: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "value", abstract: "Read or change a value file of a MIFARE DESFire.",
      discussion: "In the file's communication mode when the key given grants the command (plain when the right is free); "
        + "a change is committed (CommitTransaction) at the end of the command: cut before, the value is unchanged.",
      subcommands: [Get.self, Change.self, Change.Debit.self, Change.LimitedCredit.self])
  }
}

/// The options every `desfire value` and `desfire records` subcommand takes: the reader, the
/// application, the file and the key.
struct DESFireFileTargetOptions: ParsableArguments {
  @OptionGroup var readerOptions: ReaderOptions
  @OptionGroup var aid: DESFireAIDOption
  @OptionGroup var file: DESFireFileOption
  @OptionGroup var key: DESFireKeyOptions
}

/// Selects the application, authenticates with the key given, and checks that the file is a value
/// file; gives the mode a command opened by `granting` travels in.
func valueFileMode(_ card: DESFireCard, _ version: DESFireVersionInfo, _ options: (aid: DESFireApplicationID, number: UInt8,
                   key: DESFireAuthenticatingKey?),
                   granting: (DESFireFileAccess) -> [UInt8]) throws(DESFireCommandError) -> DESFireFileCommunication {
  try card.selectApplication(options.aid)
  if let key = options.key { try key.authenticate(card, version: version) }
  let settings = try card.fileSettings(options.number)
  guard settings.fileType == .value else {
    throw .invalidArgument("file \(options.number) is a \(settings.fileType?.description ?? "unknown") file, not a value file")
  }
  return card.communication(for: settings, granting: granting(settings.access))
}

extension DESFireCommand.Value {
  /// `nfctag desfire value get`: GetValue, the committed value.
  struct Get: ToolCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Show a value file's committed value.")
    @OptionGroup var options: DESFireFileTargetOptions
    @OptionGroup var format: FormatOption

    func run(in context: CommandContext) throws {
      let (aid, number) = (options.aid.value, options.file.number)
      let target = (aid: aid, number: number, key: try options.key.key(in: context))
      let value = try withDESFireCard(options.readerOptions, in: context) { card, version throws(DESFireCommandError) -> Int32 in
        let mode = try valueFileMode(card, version, target) { [$0.read, $0.write, $0.readWrite] }
        return try card.value(of: number, communication: mode)
      }
      if format.isJSON {
        var o = JSONObjectWriter()
        o.string("aid", aid.description)
        o.number("file", Int(number))
        o.number("value", Int(value))
        writeDESFireOutput(o.finish() + "\n", in: context)
      } else {
        writeDESFireOutput("\(value)\n", in: context)
      }
    }
  }

  /// `nfctag desfire value credit`: Credit then CommitTransaction (Debit and LimitedCredit below).
  struct Change: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "credit", abstract: "Add an amount to a value file, up to its upper limit (the read&write key).")
    @OptionGroup var options: DESFireFileTargetOptions
    @Option(help: ArgumentHelp("The amount, 0 to 2147483647.", valueName: "n")) var amount: Int

    func validate() throws { try Self.check(amount) }

    func run(in context: CommandContext) throws { try Self.change(.credit, options, amount, in: context) }

    static func check(_ amount: Int) throws {
      guard (0...Int(Int32.max)).contains(amount) else { throw ValidationError("--amount is 0 to 2147483647, not \(amount).") }
    }

    /// `change` of `amount` in the file's mode, then CommitTransaction; a limit passed (`91 BE`) is
    /// said as such (65).
    static func change(_ change: DESFireValueChange, _ options: DESFireFileTargetOptions, _ amount: Int,
                       in context: CommandContext) throws {
      let (aid, number) = (options.aid.value, options.file.number)
      let target = (aid: aid, number: number, key: try options.key.key(in: context))
      let amount = Int32(clamping: amount)
      try withDESFireCard(options.readerOptions, in: context) { card, version throws(DESFireCommandError) in
        let mode = try valueFileMode(card, version, target) { access in
          switch change {
          case .credit: return [access.readWrite]
          case .debit: return [access.read, access.write, access.readWrite]
          case .limitedCredit: return [access.write, access.readWrite]
          }
        }
        do throws(DESFireCommandError) {
          try card.changeValue(change, file: number, amount: amount, communication: mode)
        } catch where error.status == .boundaryError {
          throw .invalidArgument("\(error): " + (change == .limitedCredit
            ? "LimitedCredit adds at most what the last committed Debits took, once"
            : "the value would pass the file's limits") + " (`nfctag desfire files --aid` shows them); nothing changed")
        }
        try card.commitTransaction()
      }
      let verb = change == .credit ? "credited" : change == .debit ? "debited" : "credited (limited)"
      context.console.notice("\(verb) \(amount) on file \(number) of application \(aid) (committed)")
    }

    /// `nfctag desfire value debit`.
    struct Debit: ToolCommand {
      static let configuration = CommandConfiguration(
        commandName: "debit", abstract: "Take an amount from a value file, down to its lower limit (the read, write or read&write key).")
      @OptionGroup var options: DESFireFileTargetOptions
      @Option(help: ArgumentHelp("The amount, 0 to 2147483647.", valueName: "n")) var amount: Int

      func validate() throws { try Change.check(amount) }
      func run(in context: CommandContext) throws { try Change.change(.debit, options, amount, in: context) }
    }

    /// `nfctag desfire value limited-credit`.
    struct LimitedCredit: ToolCommand {
      static let configuration = CommandConfiguration(
        commandName: "limited-credit",
        abstract: "Give back at most what the last committed Debits took, once (a file created with --limited-credit; the write key).")
      @OptionGroup var options: DESFireFileTargetOptions
      @Option(help: ArgumentHelp("The amount, 0 to 2147483647.", valueName: "n")) var amount: Int

      func validate() throws { try Change.check(amount) }
      func run(in context: CommandContext) throws { try Change.change(.limitedCredit, options, amount, in: context) }
    }
  }
}
