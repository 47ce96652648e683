import ArgumentParser
import NFCTagCLI

/// The SDM keys by role, each from a file or an environment variable (never the command line).
package struct SDMKeyOptions: ParsableArguments {
  @Option(help: ArgumentHelp("A file whose first line is the SDMMetaRead key (PICCData), 32 hex digits.", valueName: "file"))
  package var metaKeyFile: String?
  @Option(help: ArgumentHelp("An environment variable holding the SDMMetaRead key, 32 hex digits.", valueName: "name"))
  package var metaKeyEnv: String?
  @Option(help: ArgumentHelp("A file whose first line is the SDMFileRead key (the CMAC), 32 hex digits.", valueName: "file"))
  package var fileKeyFile: String?
  @Option(help: ArgumentHelp("An environment variable holding the SDMFileRead key, 32 hex digits.", valueName: "name"))
  package var fileKeyEnv: String?
  @Option(help: ArgumentHelp(
    "A file whose first line is a master key (32 hex digits): both keys derived from it (AN10922; see ntag-424-dna.md).",
    valueName: "file"))
  package var masterKeyFile: String?
  @Option(help: ArgumentHelp("An environment variable holding the master key, 32 hex digits.", valueName: "name"))
  package var masterKeyEnv: String?

  package init() {}

  package func validate() throws {
    if metaKeyFile != nil && metaKeyEnv != nil { throw ValidationError("give the meta-read key with one of --meta-key-file or --meta-key-env.") }
    if fileKeyFile != nil && fileKeyEnv != nil { throw ValidationError("give the file-read key with one of --file-key-file or --file-key-env.") }
    if masterKeyFile != nil && masterKeyEnv != nil { throw ValidationError("give the master key with one of --master-key-file or --master-key-env.") }
    let byRole = metaKeyFile != nil || metaKeyEnv != nil || fileKeyFile != nil || fileKeyEnv != nil
    if byRole && (masterKeyFile != nil || masterKeyEnv != nil) {
      throw ValidationError("a master key derives both keys: give it, or the keys by role, not both.")
    }
  }
}

/// `sdm verify --format`'s values.
package enum SDMOutputFormat: String, ExpressibleByArgument, CaseIterable, Sendable { case text, json }

/// `nfctag sdm`: NTAG 424 DNA Secure Dynamic Messaging (SUN).
///
/// The declarations: options only. nfctag-provision, which links swift-crypto, parses and performs
/// them (nfctag hands `sdm` over by name, before parsing: its `HandOver.commands`); `run(in:)`
/// dispatches the command (``CommandContext/dispatch(_:)``: performed in nfctag-provision).
package struct SDMCommand: ParsableCommand {
  package static let configuration = CommandConfiguration(
    commandName: "sdm",
    abstract: "Set up NTAG 424 DNA tags and DESFire EV3 cards to produce SUN URLs, and check the URLs (Secure Dynamic Messaging).",
    discussion: "See ntag-424-dna.md in the documentation folder: URL placeholders, key roles, exit statuses.",
    subcommands: [Setup.self, Verify.self, Serve.self])

  package init() {}

  /// The SUN URL templates `sdm setup --url` and `provision --sdm-url` take, as their help states
  /// it: NTAG424's `SUNTemplateRule.statement`, the rule the planner applies (a test checks that
  /// the two are the same; this module does not link NTAG424).
  package static let sunTemplateRule =
    "{picc} and {cmac}, and optionally {enc:N} before {cmac}, each the whole value of a query parameter of its own (?p={picc}&c={cmac})"

  /// `sdm verify URL`: offline check of one SUN URL.
  package struct Verify: ToolCommand {
    package static let configuration = CommandConfiguration(
      commandName: "verify",
      abstract: "Check that a SUN URL comes from a tag holding the keys; print its UID, counter and file data.",
      discussion: """
        Offline: no reader. The URL is read without the whitespace around it, each parameter \
        percent-decoded. PICCData (the --picc-param parameter) is decrypted with the SDMMetaRead \
        key, the CMAC (--mac-param) checked with the SDMFileRead key, then the file data \
        (--enc-param, when the URL has it) decrypted. Keys are 32 hex digits in a file or an \
        environment variable, never on the command line; a key not given is the factory key \
        00...00 (with a warning). Exit 0 when authentic, 65 when not, with the reason (bad CMAC, \
        bad PICCData, wrong key role, a replayed counter). With --counter-store, a counter not \
        above the last one accepted for the same UID is refused as a replay; the file keeps UIDs \
        and counters only.
        """)
    @Argument(help: "The URL the tag produced.") package var url: String
    @OptionGroup package var keys: SDMKeyOptions
    @OptionGroup package var parameters: SUNParameterOptions
    @Option(help: ArgumentHelp("A file of the last counter accepted per UID; a counter not above it is a replay.",
                               valueName: "file"))
    package var counterStore: String?
    @OptionGroup package var output: NTAG424OutputOptions
    @Flag(name: .shortAndLong, help: "No warnings (factory keys); errors only on stderr.") package var quiet = false

    package init() {}

    /// True for JSON output: `--format json`, or `--json`.
    package var json: Bool { output.json }

    package func validate() throws { try parameters.validate(reserved: []) }

    package func run(in context: CommandContext) throws { try context.dispatch(self) }
  }

  /// `sdm setup --url TEMPLATE`: writes the URL and turns SDM on, then checks one tap.
  package struct Setup: ToolCommand {
    package static let configuration = CommandConfiguration(
      commandName: "setup",
      abstract: "Write a SUN URL onto an NTAG 424 DNA, a DESFire EV3 or a DESFire Light and turn Secure Dynamic Messaging on; check one tap.",
      discussion: """
        The URL template marks where the tag writes each field: {picc} (encrypted UID and \
        counter), {cmac} (the MAC), {enc:N} (N/2 characters from --enc-data-file, encrypted). It \
        takes \(sunTemplateRule): a template that sdm verify and sdm serve could not check is \
        refused (64) before the tag is touched; parameters not named p, c and enc are given to \
        them with --picc-param, --mac-param and --enc-param. The \
        tool computes every offset, authenticates with key 0 (--auth-key-file or --auth-key-env; \
        the factory key by default), writes the NDEF file (its length zeroed first, then the data, \
        then the length), changes the file settings (PICCData with key 2, the MAC with key 1, \
        read free, write and change with key 0), then reads the file once without a key, as a \
        phone does, and verifies the URL the tag produced with --meta-key-* (key 2's value) and \
        --file-key-* (key 1's value) before it says done. Keys are 32 hex digits in a file or an \
        environment variable, never on the command line.
        """)
    @Option(help: ArgumentHelp("The URL template: \(SDMCommand.sunTemplateRule).", valueName: "template"))
    package var url: String
    @Option(help: ArgumentHelp(
      "With {enc:N} in --url: a file whose first line is the N/2 printable ASCII characters the tag encrypts there.",
      valueName: "file"))
    package var encDataFile: String?
    @OptionGroup package var reader: NTAG424ReaderOptions
    @OptionGroup package var keys: SDMRoleKeyOptions
    @OptionGroup package var auth: NTAG424AuthKeyOptions
    @OptionGroup package var output: NTAG424OutputOptions

    package init() {}

    /// True for JSON output: `--format json`, or `--json`.
    package var json: Bool { output.json }

    package func run(in context: CommandContext) throws { try context.dispatch(self) }
  }
}
