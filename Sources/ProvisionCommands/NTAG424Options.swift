import ArgumentParser
import NFCTagCLI

/// The reader options of the NTAG 424 DNA commands (`sdm setup`, `keys`): which reader, how long
/// to wait, what to say on stderr. The same names and checks as the other tag commands' options.
package struct NTAG424ReaderOptions: ParsableArguments {
  @Option(name: .shortAndLong, help: ArgumentHelp("""
    Reader name, a unique prefix of it, its index in `nfctag readers`, or the built-in simulator \
    (sim:ntag424dna, sim:ntag424dna:IMAGE to keep the tag in an image file).
    """))
  package var reader: String?

  @Option(parsing: .unconditional, help: "Seconds to wait for a tag (default 60).")
  package var timeout: Double?

  @Option(parsing: .unconditional, help: "Seconds a PC/SC reader may take to answer one command before the tag counts as lost (default 5).")
  package var exchangeTimeout: Double?

  @Flag(help: "Print every APDU in and out, with timings, on stderr (keys never appear: they travel encrypted under the session keys).")
  package var trace = false

  @Flag(name: .shortAndLong, help: "Errors only: no warnings (factory keys) or confirmations.")
  package var quiet = false

  @Flag(name: .shortAndLong, help: "Say what the tool does on stderr: the reader, the tag, each step and the exchanges it took.")
  package var verbose = false

  package init() {}

  /// The session's time limit: seconds without a tag before it ends.
  package var waitSeconds: Double { timeout ?? 60 }
  /// The exchange deadline in seconds.
  package var exchangeSeconds: Double { exchangeTimeout ?? defaultExchangeTimeout }

  package func validate() throws {
    if let timeout, !(timeout > 0 && timeout <= 86_400) {
      throw ValidationError("--timeout must be more than 0 and at most 86400 seconds.")
    }
    if let exchangeTimeout, !(exchangeTimeout >= 0.05 && exchangeTimeout <= 600) {
      throw ValidationError("--exchange-timeout must be at least 0.05 and at most 600 seconds.")
    }
    if quiet && verbose { throw ValidationError("give one of --quiet or --verbose, not both.") }
  }
}

/// The key that authorises a change on an NTAG 424 DNA: the application master key (key 0, the
/// NDEF file's Change key as shipped), from a file or an environment variable, never argv.
package struct NTAG424AuthKeyOptions: ParsableArguments {
  @Option(help: ArgumentHelp("A file whose first line is key 0, the key that authorises the change (32 hex digits; default the factory key).",
                             valueName: "file"))
  package var authKeyFile: String?
  @Option(help: ArgumentHelp("An environment variable holding key 0, 32 hex digits.", valueName: "name"))
  package var authKeyEnv: String?

  package init() {}

  package func validate() throws {
    if authKeyFile != nil && authKeyEnv != nil { throw ValidationError("give key 0 with one of --auth-key-file or --auth-key-env.") }
  }
}

/// The SDM keys `sdm setup` checks the read-back SUN with: the values of the tag's SDMMetaRead key
/// (key 2) and SDMFileRead key (key 1).
package struct SDMRoleKeyOptions: ParsableArguments {
  @Option(help: ArgumentHelp("A file whose first line is the SDMMetaRead key (key 2: PICCData), 32 hex digits.", valueName: "file"))
  package var metaKeyFile: String?
  @Option(help: ArgumentHelp("An environment variable holding the SDMMetaRead key, 32 hex digits.", valueName: "name"))
  package var metaKeyEnv: String?
  @Option(help: ArgumentHelp("A file whose first line is the SDMFileRead key (key 1: the CMAC), 32 hex digits.", valueName: "file"))
  package var fileKeyFile: String?
  @Option(help: ArgumentHelp("An environment variable holding the SDMFileRead key, 32 hex digits.", valueName: "name"))
  package var fileKeyEnv: String?

  package init() {}

  package func validate() throws {
    if metaKeyFile != nil && metaKeyEnv != nil { throw ValidationError("give the meta-read key with one of --meta-key-file or --meta-key-env.") }
    if fileKeyFile != nil && fileKeyEnv != nil { throw ValidationError("give the file-read key with one of --file-key-file or --file-key-env.") }
  }
}

/// `--format text|json` of the NTAG 424 DNA commands, with `--json` as its hidden alias, as for
/// the other commands with an output format.
package struct NTAG424OutputOptions: ParsableArguments {
  @Option(help: "Output: text or json.") package var format: SDMOutputFormat?
  /// `--json`: the hidden alias of `--format json`.
  @Flag(name: .customLong("json"), help: .hidden) package var jsonFlag = false

  package init() {}

  /// True for JSON output: `--format json`, or `--json`.
  package var json: Bool { format.map { $0 == .json } ?? jsonFlag }

  package func validate() throws {
    if jsonFlag, format == .text { throw ValidationError("--json and --format text disagree: give one of them.") }
  }
}
