import ArgumentParser
import NFCTagCLI

/// `nfctag keys versions|change`: an NTAG 424 DNA's five application keys.
///
/// The declarations: options only. nfctag-provision, which links swift-crypto, parses and performs
/// them (nfctag hands `keys` over by name, before parsing: its `HandOver.commands`); `run(in:)`
/// dispatches the command (``CommandContext/dispatch(_:)``: performed in nfctag-provision).
package struct KeysCommand: ParsableCommand {
  package static let configuration = CommandConfiguration(
    commandName: "keys",
    abstract: "Show the versions of an NTAG 424 DNA's keys, or change a key.",
    discussion: "See ntag-424-dna.md in the documentation folder: key roles, what changing key 0 means, exit statuses.",
    subcommands: [Versions.self, Change.self, LockNDEFFile.self])

  package init() {}

  /// `keys versions`: GetKeyVersion of keys 0–4, no key needed.
  package struct Versions: ToolCommand {
    package static let configuration = CommandConfiguration(
      commandName: "versions",
      abstract: "Print the version of each of the tag's five keys (no key needed).",
      discussion: "A factory key has version 00; `keys change --version V` sets it with the key.")
    @OptionGroup package var reader: NTAG424ReaderOptions
    @OptionGroup package var output: NTAG424OutputOptions

    package init() {}

    /// True for JSON output: `--format json`, or `--json`.
    package var json: Bool { output.json }

    package func run(in context: CommandContext) throws { try context.dispatch(self) }
  }

  /// `keys change --key N`: ChangeKey, authenticated with key 0; `keys change --all`: the five
  /// keys in one session, 1–4 then 0.
  package struct Change: ToolCommand {
    package static let configuration = CommandConfiguration(
      commandName: "change",
      abstract: "Change one of the tag's keys (0-4) and its version, or all five, authenticated with key 0.",
      discussion: """
        Authenticates with key 0 (--auth-key-file or --auth-key-env; the factory key by default), \
        changes key --key to the new key with version --key-version, then reads the version back. \
        Keys 1-4 need their current value (--old-key-file or --old-key-env; the factory key by \
        default). Key 0's current value is the authentication key; changing it ends the \
        session, and a key 0 that is lost locks the tag's settings for good, so it needs --yes. \
        Change keys 1-4 first and key 0 last. With --all, the five keys change in one session \
        (keys 1-4, then key 0; --yes needed): the new keys are the five lines of \
        --new-keys-file (key 0 first) or the variables PREFIX0 to PREFIX4 of --new-keys-env \
        PREFIX, their current values the same way with --old-keys-file or --old-keys-env (the \
        factory keys by default; line 0 is the authentication key), all with version --key-version. \
        Keys are 32 hex digits in a file or an environment variable, never on the command line, \
        and never printed.
        """)
    @Option(parsing: .unconditional, help: ArgumentHelp("The key to change, 0-4.", valueName: "n")) package var key: Int?
    @Flag(help: "Change all five keys in one session: keys 1-4, then key 0 (with --new-keys-file or --new-keys-env, and --yes).")
    package var all = false
    @Option(help: ArgumentHelp("A file whose first line is the key's current value (keys 1-4), 32 hex digits.", valueName: "file"))
    package var oldKeyFile: String?
    @Option(help: ArgumentHelp("An environment variable holding the key's current value, 32 hex digits.", valueName: "name"))
    package var oldKeyEnv: String?
    @Option(help: ArgumentHelp("A file whose first line is the new key, 32 hex digits.", valueName: "file"))
    package var newKeyFile: String?
    @Option(help: ArgumentHelp("An environment variable holding the new key, 32 hex digits.", valueName: "name"))
    package var newKeyEnv: String?
    @Option(help: ArgumentHelp("With --all: a file of five lines, the new keys 0 to 4, each 32 hex digits.", valueName: "file"))
    package var newKeysFile: String?
    @Option(help: ArgumentHelp("With --all: the new keys are in the variables PREFIX0 to PREFIX4.", valueName: "prefix"))
    package var newKeysEnv: String?
    @Option(help: ArgumentHelp("With --all: a file of five lines, the current keys 0 to 4 (the factory keys by default).", valueName: "file"))
    package var oldKeysFile: String?
    @Option(help: ArgumentHelp("With --all: the current keys are in the variables PREFIX0 to PREFIX4.", valueName: "prefix"))
    package var oldKeysEnv: String?
    @Option(name: .customLong("key-version"), parsing: .unconditional, help: ArgumentHelp("The new key's version, 0-255.", valueName: "v"))
    package var keyVersion: Int?
    /// `--version`, the older name of `--key-version`: hidden, so that the help lists the
    /// tool's own `--version` only.
    @Option(name: .customLong("version"), parsing: .unconditional, help: .hidden) package var versionAlias: Int?
    @OptionGroup package var auth: NTAG424AuthKeyOptions
    @Flag(help: "Confirm a change of key 0 (a lost key 0 cannot be recovered).") package var yes = false
    @OptionGroup package var reader: NTAG424ReaderOptions
    @OptionGroup package var output: NTAG424OutputOptions

    package init() {}

    /// True for JSON output: `--format json`, or `--json`.
    package var json: Bool { output.json }

    /// The new key's version: `--key-version`, or `--version` (its older name); 0 before `validate()`.
    package var version: Int { keyVersion ?? versionAlias ?? 0 }

    package func validate() throws {
      if keyVersion != nil && versionAlias != nil {
        throw ValidationError("give the key version once: --key-version (--version is its older name).")
      }
      guard let given = keyVersion ?? versionAlias else { throw ValidationError("give the new key's version with --key-version V (0 to 255).") }
      guard (0...255).contains(given) else { throw ValidationError("--key-version must be 0 to 255.") }
      if all { return try validateAll() }
      if let option = [newKeysFile.map { _ in "--new-keys-file" }, newKeysEnv.map { _ in "--new-keys-env" },
                       oldKeysFile.map { _ in "--old-keys-file" }, oldKeysEnv.map { _ in "--old-keys-env" }].compactMap({ $0 }).first {
        throw ValidationError("\(option) goes with --all.")
      }
      guard let key else { throw ValidationError("give the key to change with --key N, or --all.") }
      guard (0...4).contains(key) else { throw ValidationError("--key must be 0 to 4.") }
      if oldKeyFile != nil && oldKeyEnv != nil { throw ValidationError("give the old key with one of --old-key-file or --old-key-env.") }
      if newKeyFile != nil && newKeyEnv != nil { throw ValidationError("give the new key with one of --new-key-file or --new-key-env.") }
      if newKeyFile == nil && newKeyEnv == nil { throw ValidationError("give the new key with --new-key-file or --new-key-env.") }
      if key == 0 && !yes {
        throw ValidationError("changing key 0 needs --yes: key 0 authorises every change, and a tag whose key 0 is lost cannot be changed again.")
      }
      if key == 0, oldKeyFile != nil || oldKeyEnv != nil, auth.authKeyFile != nil || auth.authKeyEnv != nil {
        throw ValidationError("key 0's current value is the authentication key: give it with --old-key-* or --auth-key-*, not both.")
      }
    }

    /// `--all`: the five new keys from one place, the current ones from one place at most, `--yes`.
    private func validateAll() throws {
      if key != nil { throw ValidationError("--all changes every key: give --key N or --all, not both.") }
      if let option = [newKeyFile.map { _ in "--new-key-file" }, newKeyEnv.map { _ in "--new-key-env" },
                       oldKeyFile.map { _ in "--old-key-file" }, oldKeyEnv.map { _ in "--old-key-env" }].compactMap({ $0 }).first {
        throw ValidationError("\(option) is for one key: with --all, give the keys with --new-keys-file or --new-keys-env (and --old-keys-*).")
      }
      if newKeysFile != nil && newKeysEnv != nil { throw ValidationError("give the new keys with one of --new-keys-file or --new-keys-env.") }
      if newKeysFile == nil && newKeysEnv == nil { throw ValidationError("--all needs the new keys: --new-keys-file or --new-keys-env.") }
      if oldKeysFile != nil && oldKeysEnv != nil { throw ValidationError("give the current keys with one of --old-keys-file or --old-keys-env.") }
      if oldKeysFile != nil || oldKeysEnv != nil, auth.authKeyFile != nil || auth.authKeyEnv != nil {
        throw ValidationError("key 0's current value is the authentication key: give it as line 0 of --old-keys-* or with --auth-key-*, not both.")
      }
      if !yes {
        throw ValidationError("--all changes key 0, which needs --yes: key 0 authorises every change, and a tag whose key 0 is lost cannot be changed again.")
      }
    }

    package func run(in context: CommandContext) throws { try context.dispatch(self) }
  }

  /// `keys lock-ndef-file --yes`: the NDEF file made read-only for good (ChangeFileSettings, Write,
  /// Read&Write and Change never), authenticated with the key its Change right names (key 0 on a
  /// factory tag). Hidden: `nfctag lock --yes` hands a 424 DNA over to it, with the lock's reader
  /// and key options (``arguments(reader:timeout:exchangeTimeout:trace:quiet:verbose:auth:)``).
  package struct LockNDEFFile: ToolCommand {
    package static let configuration = CommandConfiguration(
      commandName: "lock-ndef-file",
      abstract: "Make an NTAG 424 DNA's NDEF file read-only for good (what `nfctag lock` does on one).",
      shouldDisplay: false)
    @Flag(help: "Confirm: locking is permanent and cannot be undone.") package var yes = false
    @OptionGroup package var auth: NTAG424AuthKeyOptions
    @OptionGroup package var reader: NTAG424ReaderOptions

    package init() {}

    package func validate() throws {
      guard yes else { throw ValidationError("locking is permanent: add --yes to confirm.") }
    }

    /// The command line (after `keys`) that runs this command with `nfctag lock`'s options.
    package static func arguments(reader: String?, timeout: Double?, exchangeTimeout: Double?, trace: Bool,
                                  quiet: Bool, verbose: Bool, auth: NTAG424AuthKeyOptions) -> [String] {
      var out = ["lock-ndef-file", "--yes"]
      if let reader { out += ["--reader", reader] }
      if let timeout { out += ["--timeout", "\(timeout)"] }
      if let exchangeTimeout { out += ["--exchange-timeout", "\(exchangeTimeout)"] }
      if trace { out.append("--trace") }
      if quiet { out.append("--quiet") }
      if verbose { out.append("--verbose") }
      if let file = auth.authKeyFile { out += ["--auth-key-file", file] }
      if let name = auth.authKeyEnv { out += ["--auth-key-env", name] }
      return out
    }

    /// The command line that performs this command (without the program's name): what nfctag
    /// hands over when its `lock` found an NTAG 424 DNA.
    package var handOverArguments: [String] {
      ["keys"] + Self.arguments(reader: reader.reader, timeout: reader.timeout, exchangeTimeout: reader.exchangeTimeout,
                                trace: reader.trace, quiet: reader.quiet, verbose: reader.verbose, auth: auth)
    }

    package func run(in context: CommandContext) throws { try context.dispatch(self) }
  }
}
