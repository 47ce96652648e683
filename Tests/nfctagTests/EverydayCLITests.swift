import ArgumentParser
import Foundation
import Testing
@testable import nfctag
@testable import NFCTagCLI
import ProvisionCommands

/// Everyday command-line behaviour: an empty Wi-Fi key, negative
/// numbers for options, Wi-Fi keys masked in every output format, `ndef decode ""`, and help
/// texts that name what exists.
@Suite struct EverydayCommandLine {
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-everyday-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  func file(_ name: String, _ text: String) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  // MARK: 20. An empty Wi-Fi key is not an open network unless asked for

  /// An empty file, a file of one line feed, an empty variable, an empty standard input: 64, and
  /// nothing written on a tag; `--auth open` asks for the open network, which is then written.
  @Test func anEmptyWiFiKeyIsRefused() throws {
    let sources: [([String], [String: String], Data?)] = [
      (["--password-file", try file("empty.txt", "")], [:], nil),
      (["--password-file", try file("newline.txt", "\n")], [:], nil),
      (["--password-file", try file("crlf.txt", "\r\n")], [:], nil),
      (["--password-env", "WIFI_KEY"], ["WIFI_KEY": ""], nil),
      (["--password-file", "-"], [:], Data("\n".utf8)),
    ]
    for (source, environment, stdin) in sources {
      let r = try runTool(["ndef", "encode", "wifi", "--ssid", "Home"] + source, stdin: stdin, environment: environment)
      #expect(r.status == 64, "\(source): \(r.stdout) \(r.stderr)")
      #expect(r.stdout.isEmpty && r.stderr.contains("--auth open"), "\(r.stderr)")
      let open = try runTool(["ndef", "encode", "wifi", "--ssid", "Home", "--auth", "open"] + source, stdin: stdin, environment: environment)
      #expect(open.status == 0, "\(source): \(open.stderr)")
    }
    let image = directory.appendingPathComponent("tag.bin").path
    let write = try runTool(["write", "wifi", "--ssid", "Home", "--password-env", "WIFI_KEY", "--reader", "sim:ntag215:" + image],
                            environment: ["WIFI_KEY": ""])
    #expect(write.status == 64 && !write.stderr.contains("wrote"), "\(write.stderr)")
    let read = try runTool(["read", "--reader", "sim:ntag215:" + image])
    #expect(!read.stdout.contains("Wi-Fi"), "\(read.stdout)")
  }

  // MARK: 21. Negative numbers

  /// `value --init -5` takes the negative value; a negative amount or key version is a range
  /// error, not "Missing value".
  @Test func negativeNumbersForOptions() throws {
    let reader = "sim:mifare-classic-1k:" + directory.appendingPathComponent("classic.bin").path
    let initial = try runTool(["value", "4", "--init", "-5", "--reader", reader])
    #expect(initial.status == 0 && initial.stdout == "-5\n", "\(initial.stderr)")
    #expect(try runTool(["value", "4", "--init=-7", "--reader", reader]).stdout == "-7\n")
    for (arguments, range) in [
      (["value", "4", "--increment", "-5", "--reader", reader], "0 to 2147483647"),
      (["value", "4", "--decrement", "-1", "--reader", reader], "0 to 2147483647"),
      (["keys", "change", "--key", "1", "--new-key-env", "K", "--key-version", "-1", "--reader", "sim:ntag424dna"], "0 to 255"),
      (["keys", "change", "--key", "1", "--new-key-env", "K", "--version", "-1", "--reader", "sim:ntag424dna"], "0 to 255"),
      (["keys", "change", "--key", "1", "--new-key-env", "K", "--key-version", "256", "--reader", "sim:ntag424dna"], "0 to 255"),
      (["keys", "change", "--key", "-1", "--new-key-env", "K", "--key-version", "1", "--reader", "sim:ntag424dna"], "0 to 4"),
      (["sdm", "serve", "--master-key-env", "M", "--ledger", "x.sqlite", "--connections", "-1"], "1 to 64"),
      (["reader", "led", "--period", "-100"], "100 to 25500"),
      (["reader", "led", "--blink", "-1"], "0 to 255"),
      (["password", "set", "--new-password-env", "P", "--from-page", "-1", "--reader", reader], "0 to 255"),
    ] {
      let r = try runTool(arguments)
      #expect(r.status == 64, "\(arguments): \(r.stderr)")
      #expect(r.stderr.contains(range) && !r.stderr.contains("Missing value"), "\(arguments): \(r.stderr)")
    }
  }

  // MARK: 22. One masking rule for every output format

  /// A Wi-Fi key is masked in JSON as in text (`read`, `scan`, `ndef decode`, `--lines`): no
  /// `networkKey`, no payload (which holds it), `"networkKeyMasked":true`; `--show-secrets`
  /// shows it; masked JSON is refused by `write json` (65) rather than written without its key.
  @Test func wifiKeysAreMaskedInJSON() throws {
    let key = "hunter22secret"
    let image = directory.appendingPathComponent("wifi.bin").path
    let reader = "sim:ntag215:" + image
    let written = try runTool(["write", "wifi", "--ssid", "Net", "--password-env", "K", "--reader", reader], environment: ["K": key])
    #expect(written.status == 0, "\(written.stderr)")
    let hexKey = key.utf8.map { String(format: "%02x", $0) }.joined()
    let encoded = try runTool(["ndef", "encode", "wifi", "--ssid", "Net", "--password-env", "K"], environment: ["K": key])
      .stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    let outputs = [
      try runTool(["read", "--format", "json", "--reader", reader]).stdout,
      try runTool(["scan", "--format", "json", "--reader", reader]).stdout,
      try runTool(["ndef", "decode", encoded, "--format", "json"]).stdout,
      try runTool(["ndef", "decode", "--lines"], stdin: Data((encoded + "\n").utf8)).stdout,
    ]
    for output in outputs {
      #expect(output.contains(#""networkKeyMasked":true"#), "\(output)")
      #expect(!output.contains(key) && !output.contains(hexKey), "\(output)")
    }
    let shown = try runTool(["read", "--format", "json", "--show-secrets", "--reader", reader]).stdout
    #expect(shown.contains(#""networkKey":"hunter22secret""#) && !shown.contains("networkKeyMasked"), "\(shown)")
    let lines = try runTool(["ndef", "decode", "--lines", "--show-secrets"], stdin: Data((encoded + "\n").utf8)).stdout
    #expect(lines.contains(key), "\(lines)")
    let masked = try file("masked.json", outputs[0])
    let back = try runTool(["ndef", "encode", "json", masked])
    #expect(back.status == 65 && back.stderr.contains("--show-secrets"), "\(back.stderr)")
    let help = NFCTool.helpMessage(for: NFCTool.Read.self, columns: 10_000)
    #expect(help.contains("--show-secrets") && help.contains("JSON"), "\(help)")
  }

  // MARK: 23. `ndef decode ""`

  @Test func anEmptyArgumentIsTheEmptyMessage() throws {
    let text = try runTool(["ndef", "decode", ""])
    #expect(text.status == 0 && text.stdout == "(empty NDEF message)\n", "\(text.stdout)\(text.stderr)")
    #expect(try runTool(["ndef", "decode", "", "--format", "json"]).stdout == "{\"records\":[]}\n")
    #expect(try runTool(["ndef", "decode", "", "--input", "base64"]).status == 0)
    #expect(try runTool(["ndef", "decode"]).status == 65)  // no input at all on standard input
  }

  // MARK: 24. Help that names what exists

  /// The documentation folder is the one that exists for the running program: PREFIX/share/doc/nfctag
  /// beside an installed binary, the checkout's docs/ for a build tree; the installed places when
  /// neither is found (and for the man page, which describes an installed nfctag).
  @Test func theDocumentationFolderIsWhereTheProgramRuns() throws {
    let files: Set<String> = ["/usr/share/doc/nfctag", "/home/u/src/nfctag/docs/exit-codes.md", "/opt/x/share/doc/nfctag"]
    let exists = { (path: String) in files.contains(path) }
    #expect(DocumentationFolder.find(executable: "/usr/bin/nfctag", exists: exists) == "/usr/share/doc/nfctag")
    #expect(DocumentationFolder.find(executable: "/opt/x/bin/nfctag", exists: exists) == "/opt/x/share/doc/nfctag")
    #expect(DocumentationFolder.find(executable: "/home/u/src/nfctag/.build/x86_64-unknown-linux-gnu/debug/nfctag", exists: exists)
            == "/home/u/src/nfctag/docs")
    #expect(DocumentationFolder.find(executable: "/tmp/nfctag", exists: exists) == nil)
    #expect(DocumentationFolder.find(executable: nil, exists: exists) == nil)
    #expect(DocumentationFolder.sentence(folder: nil).contains("/usr/share/doc/nfctag"))
    #expect(DocumentationFolder.sentence(folder: "/home/u/src/nfctag/docs").contains("/home/u/src/nfctag/docs"))
    #expect(!DocumentationFolder.sentence(folder: "/home/u/src/nfctag/docs").contains("/usr/share/doc"))
  }

  /// The built program, run from the build tree, names the checkout's docs folder; the text the
  /// man page is made from names the installed places.
  @Test func theBuiltProgramNamesTheCheckoutsDocs() throws {
    let docs = packageRoot.appendingPathComponent("docs").resolvingSymlinksInPath().path
    let help = try runNFCTag(["--help"])
    #expect(help.status == 0)
    #expect(help.stdout.replacingOccurrences(of: "\n", with: " ").contains(docs), "\(help.stdout)")
    #expect(!help.stdout.contains("/usr/share/doc/nfctag"), "\(help.stdout)")
    let dump = try runNFCTag(["--experimental-dump-help"]).stdout.replacingOccurrences(of: "\\/", with: "/")  // JSON escapes "/"
    #expect(dump.contains("/usr/share/doc/nfctag") && !dump.contains(docs))
  }

  /// `keys change` names the key's version `--key-version`; `--version` still works as a hidden
  /// alias and the tool's own `--version` is the only one listed.
  @Test func theKeyVersionHasItsOwnName() throws {
    let help = NFCTool.helpMessage(for: KeysCommand.Change.self, columns: 10_000)
    #expect(help.contains("--key-version <v>"), "\(help)")
    #expect(!help.contains("--version <v>"), "\(help)")
    for option in ["--key-version", "--version"] {
      let change = try #require(try NFCTool.parseAsRoot(["keys", "change", "--key", "1", "--new-key-env", "K", option, "7"])
                                  as? KeysCommand.Change)
      #expect(change.version == 7)
    }
    #expect(throws: (any Error).self) {
      try NFCTool.parseAsRoot(["keys", "change", "--key", "1", "--new-key-env", "K", "--version", "1", "--key-version", "2"])
    }
    #expect(try runTool(["--version"]).stdout == "0.1.0\n")
  }
}
