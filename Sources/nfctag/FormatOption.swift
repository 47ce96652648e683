import ArgumentParser

/// Output formats of the commands that print text or JSON (`readers`, `scan`, `info`, `send`, `ndef decode`).
enum TextOrJSON: String, ExpressibleByArgument, CaseIterable { case text, json }

/// `--format text|json`, the option every command with an output format names `--format`;
/// `--json`, the older spelling, stays as a hidden alias.
struct FormatOption: ParsableArguments {
  @Option(help: "Output: text or json.") var format: TextOrJSON?
  @Flag(help: .hidden) var json = false

  /// True for JSON output: `--format json`, or `--json`.
  var isJSON: Bool { format.map { $0 == .json } ?? json }

  func validate() throws {
    if json, format == .text { throw ValidationError("--json and --format text disagree: give one of them.") }
  }
}

/// The help of `--show-secrets` (`read`, `scan`, `ndef decode`): one rule for every output
/// format, text and JSON (docs/json-format.md).
let showSecretsHelp: ArgumentHelp = "Show Wi-Fi network keys, which are masked otherwise, in text and in JSON."
