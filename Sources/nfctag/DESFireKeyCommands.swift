import ArgumentParser
import DESFireTag
import NFCTagCLI
import NFCTags
import NFCTransport

extension DESFireCommand {
  /// `nfctag desfire keys …`.
  struct Keys: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "keys", abstract: "A MIFARE DESFire's keys.",
                                                    subcommands: [Versions.self, Change.self])
  }
}

/// A DESFire key from a file or an environment variable (never argv; never in traces, logs or
/// errors), nil when neither option is given.
/// - Throws: 66 for an unreadable file, 64 for a variable not set or a value that is not a key of
///   the type (the message shows no digit of it).
func readDESFireSecretKey(file: String?, env: String?, options: (file: String, env: String, type: String),
                          kind: DESFireSecretKey.Kind?, what: String, in context: CommandContext) throws(CLIFailure) -> DESFireSecretKey? {
  guard let (text, origin) = try readSecret(file: file, environment: env, options: (options.file, options.env), what: what,
                                            in: context) else { return nil }
  switch DESFireSecretKey.parse(text, kind: kind, what: what, origin: origin, typeOption: options.type) {
  case .success(let key): return key
  case .failure(let why): throw CLIFailure(.invalidValue(why.description))
  }
}

extension DESFireCommand.Keys {
  /// `nfctag desfire keys change`: ChangeKey (C4h) of an application's key or of the PICC master
  /// key, run again after a cut to finish (docs/desfire.md, "Command line").
  struct Change: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "change", abstract: "Change a key of an application, or the PICC master key (needs --yes).",
      discussion: """
        Authenticates with key --key-no (default 0, the master key) given by --key-file or --key-env (default: the \
        factory zero key), then changes key --change-key-no (or the PICC master key, --picc) to --new-key-file or --new-key-env. \
        Changing another key than the authenticated one needs its current value: --old-key-file or --old-key-env (default \
        the zero key). Run again after a removal: a key already changed is reported so, nothing changed.
        """)
    @OptionGroup var readerOptions: ReaderOptions
    @Option(help: ArgumentHelp("The application: 6 hex digits.", valueName: "hex")) var aid: String?
    @Option(help: ArgumentHelp("The key to change, 0 to 13.", valueName: "n")) var changeKeyNo: Int?
    @Flag(help: "Change the PICC master key (to any type: a lost key loses the card; needs --yes).") var picc = false
    @Option(help: ArgumentHelp("The key to authenticate with, 0 to 13 (default 0).", valueName: "n")) var keyNo: Int?
    @Option(help: ArgumentHelp("A file whose first line is the key to authenticate with, in hex.", valueName: "file")) var keyFile: String?
    @Option(help: ArgumentHelp("An environment variable holding the key to authenticate with, in hex.", valueName: "name")) var keyEnv: String?
    @Option(help: ArgumentHelp("The type of the key to authenticate with.", valueName: "des|2k3des|3k3des|aes"))
    var keyType: DESFireSecretKey.Kind?
    @Option(help: ArgumentHelp("How the key authenticates: ev1 (the default), ev2 (AuthenticateEV2First: an EV2 or EV3 and "
                               + "an AES key; the new key AES too) or auto (ev2 on an EV2 or EV3 with an AES key).",
                               valueName: "ev1|ev2|auto"))
    var auth: DESFireAuthenticationScheme?
    @Option(help: ArgumentHelp("A file whose first line is the new key, in hex.", valueName: "file")) var newKeyFile: String?
    @Option(help: ArgumentHelp("An environment variable holding the new key, in hex.", valueName: "name")) var newKeyEnv: String?
    @Option(help: ArgumentHelp("The new key's type.", valueName: "des|2k3des|3k3des|aes")) var newKeyType: DESFireSecretKey.Kind?
    @Option(help: ArgumentHelp("The new AES key's version, 0 to 255 (default 0).", valueName: "n")) var newKeyVersion: Int?
    @Option(help: ArgumentHelp("A file whose first line is the changed key's current value, in hex.", valueName: "file"))
    var oldKeyFile: String?
    @Option(help: ArgumentHelp("An environment variable holding the changed key's current value, in hex.", valueName: "name"))
    var oldKeyEnv: String?
    @Flag(help: "Confirm changing the PICC master key.") var yes = false

    func validate() throws {
      if picc == (changeKeyNo != nil) { throw ValidationError("name the key to change: --change-key-no N (with --aid) or --picc.") }
      if picc && aid != nil { throw ValidationError("--picc changes the PICC master key: no --aid.") }
      if !picc && aid == nil { throw ValidationError("--change-key-no needs the application: --aid.") }
      if let aid, parseDESFireAID(aid) == nil { throw ValidationError("--aid is 6 hex digits other than 000000, not '\(aid)'.") }
      for (name, value) in [("--change-key-no", changeKeyNo), ("--key-no", keyNo)] {
        if let value, !(0...13).contains(value) { throw ValidationError("\(name) is 0 to 13, not \(value).") }
      }
      if picc && (keyNo ?? 0) != 0 { throw ValidationError("the PICC level has one key: no --key-no.") }
      for (a, b, x, y) in [("--key-file", "--key-env", keyFile, keyEnv), ("--new-key-file", "--new-key-env", newKeyFile, newKeyEnv),
                           ("--old-key-file", "--old-key-env", oldKeyFile, oldKeyEnv)] where x != nil && y != nil {
        throw ValidationError("give the key with one of \(a) or \(b).")
      }
      if newKeyFile == nil && newKeyEnv == nil { throw ValidationError("the new key: --new-key-file or --new-key-env.") }
      if let newKeyVersion {
        guard (0...255).contains(newKeyVersion) else { throw ValidationError("--new-key-version is 0 to 255, not \(newKeyVersion).") }
        guard newKeyType == .aes else { throw ValidationError("--new-key-version is for an AES key (--new-key-type aes).") }
      }
    }

    func run(in context: CommandContext) throws {
      let level = aid.flatMap(parseDESFireAID) ?? .picc
      let target = picc ? UInt8(0) : UInt8(clamping: changeKeyNo ?? 0)
      let authNumber = UInt8(clamping: keyNo ?? 0)
      let name = picc ? "the PICC master key" : "key \(target) of application \(level)"
      guard yes || !picc else {
        throw CLIFailure(.needsConfirmation("keys change --picc changes the PICC master key: lost, it loses the card: add --yes; nothing was sent"))
      }
      let options = (file: "--key-file", env: "--key-env", type: "--key-type")
      let current = try readDESFireSecretKey(file: keyFile, env: keyEnv, options: options, kind: keyType,
                                             what: "the key", in: context) ?? .zero(keyType ?? .des)
      guard let new = try readDESFireSecretKey(file: newKeyFile, env: newKeyEnv,
                                               options: (file: "--new-key-file", env: "--new-key-env", type: "--new-key-type"),
                                               kind: newKeyType, what: "the new key", in: context) else { return }
      let old = try readDESFireSecretKey(file: oldKeyFile, env: oldKeyEnv, options: (file: "--old-key-file", env: "--old-key-env", type: "--new-key-type"),
                                         kind: new.kind, what: "the old key", in: context) ?? .zero(new.kind)
      let scheme = auth ?? .ev1
      try checkDESFireAuthentication(scheme, key: current, keyOption: "--key-type")
      if scheme == .ev2, new.kind != .aes {
        throw CLIFailure(.invalidValue("--auth ev2 changes a key to an AES key, not a \(new.kind.rawValue) key: "
                                       + "--new-key-type aes, or use --auth ev1"))
      }
      let slot: DESFireKeySlot = picc ? .piccMaster : .application(target)
      let version = UInt8(clamping: newKeyVersion ?? 0)
      let outcome = try withDESFireCard(readerOptions, in: context) { card, cardVersion throws(DESFireCommandError) -> DESFireRerunOutcome? in
        do throws(DESFireCommandError) {
          return try card.changeKey(at: level, slot, to: new, version: version, authenticatingWith: current, keyNumber: authNumber,
                                    oldKey: old, cardVersion: cardVersion, scheme: scheme)
        } catch where error.status == .integrityError && authNumber != target {
          return nil  // the old key given is not the card's (91 1E), and the new one is not in place
        }
      }
      switch outcome {
      case .done?: context.console.notice("changed \(name) (\(new.kind.rawValue))")
      case .alreadyDone?: context.console.notice("\(name) was already changed to the new key: nothing was changed")
      case nil:
        throw CLIFailure(.tagRefused("ChangeKey \(target) answered 91 1e: the old key given is not \(name)'s current value: "
                                     + "give it with --old-key-file or --old-key-env; nothing was changed"))
      }
    }
  }
}

extension DESFireCommand.Keys {
  /// `nfctag desfire keys versions [--aid HEX]`: each key's version (GetKeyVersion).
  struct Versions: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "versions", abstract: "Show the version of each key of the PICC level or of an application.")
    @OptionGroup var readerOptions: ReaderOptions
    @Option(help: ArgumentHelp("The application: 6 hex digits (default: the PICC level).", valueName: "hex")) var aid: String?
    @OptionGroup var format: FormatOption

    func validate() throws {
      if let aid, parseDESFireAID(aid) == nil { throw ValidationError("--aid is 6 hex digits other than 000000, not '\(aid)'.") }
    }

    func run(in context: CommandContext) throws {
      let level = aid.flatMap(parseDESFireAID) ?? .picc
      let versions = try withDESFireCard(readerOptions, in: context) { card, _ throws(DESFireCommandError) -> [UInt8] in
        try card.selectApplication(level)
        // The key count from the key settings; when they are hidden, until the card has no such key.
        let count = (try? card.keySettings())?.keyCount ?? 14
        var versions: [UInt8] = []
        for number in 0..<UInt8(clamping: count) {
          do throws(DESFireCommandError) { versions.append(try card.keyVersion(number)) } catch where error.status == .noSuchKey { break }
        }
        return versions
      }
      if format.isJSON {
        var o = JSONObjectWriter()
        o.string("level", level == .picc ? "picc" : level.description)
        o.array("keys", versions.enumerated().map { "{\"key\":\($0.offset),\"version\":\($0.element)}" })
        writeDESFireOutput(o.finish() + "\n", in: context)
      } else {
        let name = level == .picc ? "PICC level" : "application \(level)"
        writeDESFireOutput(versions.enumerated().map { "\(name) key \($0.offset): version \(hexString([$0.element]))\n" }.joined(),
                           in: context)
      }
    }
  }
}
