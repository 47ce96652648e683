import NFCTagCLI
import ArgumentParser
import NDEF
import NDEFJSON

/// One way to describe an NDEF message on the command line: the grammar shared by
/// `nfctag ndef encode <kind>` and `nfctag write <kind>`.
///
/// Each kind is a `ParsableArguments` struct; ``EncodeKindCommand`` and ``WriteKindCommand`` wrap
/// it with `@OptionGroup`, so both commands take exactly the same words and build the same bytes.
protocol MessageKind: ParsableArguments {
  /// The subcommand name (`text`, `url`…).
  static var kindName: String { get }
  /// Other names for it (`uri` for `url`).
  static var aliases: [String] { get }
  /// One line of help.
  static var abstract: String { get }
  /// Builds the message; bad input is a `CLIFailure` (64 usage, 65 data, 66 missing file).
  func makeMessage(in context: CommandContext) throws(CLIFailure) -> NDEFMessage
}

extension MessageKind {
  static var aliases: [String] { [] }
}

/// A command of one kind (`ndef encode KIND`, `write KIND`): named, aliased and described by it.
protocol MessageKindCommand: ToolCommand {
  associatedtype Kind: MessageKind
}

extension MessageKindCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(commandName: Kind.kindName, abstract: Kind.abstract, aliases: Kind.aliases)
  }
}

/// Reads data given inline (`--data`) or from a file (`--file`), exactly one of them.
private func inlineOrFile(data: String?, file: String?, in context: CommandContext) throws(CLIFailure) -> [UInt8] {
  switch (data, file) {
  case let (data?, nil): return Array(data.utf8)
  case let (nil, file?): return try readInputOrFail(file, in: context)
  default: throw CLIFailure(.invalidCommandLine("give exactly one of --data or --file"))
  }
}

struct TextKind: MessageKind {
  static let kindName = "text"
  static let abstract = "A Text record."
  @Argument(help: "The text, or - to read it from standard input (one trailing newline dropped).") var text: String
  @Option(help: "IANA language code.") var lang: String = "en"
  @Flag(help: "Encode as UTF-16 (big-endian with a byte-order mark) instead of UTF-8.") var utf16 = false

  func makeMessage(in context: CommandContext) throws(CLIFailure) -> NDEFMessage {
    var text = text
    if text == "-" {
      var input = try readInputOrFail("-", in: context)
      if input.last == 0x0A { input.removeLast() }
      if input.last == 0x0D { input.removeLast() }
      guard let decoded = String(validating: input, as: UTF8.self) else {
        throw CLIFailure(.malformedInput("standard input is not UTF-8 text"))
      }
      text = decoded
    }
    let record = TextRecord(text: text, language: lang, encoding: utf16 ? .utf16 : .utf8)
    do { try record.validate() } catch { throw CLIFailure(.invalidValue(error.reason)) }
    return NDEFMessage(records: [record.record])
  }
}

struct URLKind: MessageKind {
  static let kindName = "url"
  static let aliases = ["uri"]
  static let abstract = "A URI record (the longest standard prefix is abbreviated)."
  @Argument(help: "The URL or URI.") var url: String
  @Flag(help: "Refuse a URL without a scheme (https:, tel: and so on) instead of warning.") var strict = false

  func makeMessage(in context: CommandContext) throws(CLIFailure) -> NDEFMessage {
    guard !url.isEmpty else { throw CLIFailure(.invalidValue("the URL is empty")) }
    // A URI holds no control characters and no spaces (RFC 3986 §2): a control is refused, a
    // space (which phones may cut the link at) is written as given, with a warning.
    if let control = url.unicodeScalars.first(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
      let code = String(control.value, radix: 16, uppercase: true)
      throw CLIFailure(.malformedInput("the URL holds a control character (U+\(String(repeating: "0", count: 4 - code.count))\(code)), which a URI cannot hold"))
    }
    if url.contains(" ") { context.console.warning("'\(url)' holds a space, which a URI cannot hold: write it as %20") }
    if !hasScheme(url) {
      let problem = "'\(url)' has no scheme (such as https://): phones may not open it"
      if strict { throw CLIFailure(.invalidValue(problem)) }
      context.console.warning(problem)
    }
    return NDEFMessage(records: [URIRecord(uri: url).record])
  }
}

struct MIMEKind: MessageKind {
  static let kindName = "mime"
  static let abstract = "A MIME media record."
  @Argument(help: "The media type, for example text/plain.") var type: String
  @Option(help: "The data, as text.") var data: String?
  @Option(help: "Read the data from a file (- for stdin).") var file: String?

  func makeMessage(in context: CommandContext) throws(CLIFailure) -> NDEFMessage {
    let parts = type.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty,
          type.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
      throw CLIFailure(.invalidValue("'\(type)' is not a media type (type/subtype)"))
    }
    return NDEFMessage(records: [MIMERecord(mediaType: type, data: try inlineOrFile(data: data, file: file, in: context)).record])
  }
}

struct ExternalKind: MessageKind {
  static let kindName = "external"
  static let abstract = "An NFC Forum external type record (DOMAIN:TYPE)."
  @Argument(help: "DOMAIN:TYPE, for example example.com:mytype.") var type: String
  @Option(help: "The payload, as text.") var data: String?
  @Option(help: "Read the payload from a file (- for stdin).") var file: String?

  func makeMessage(in context: CommandContext) throws(CLIFailure) -> NDEFMessage {
    let payload = try inlineOrFile(data: data, file: file, in: context)
    do {
      return NDEFMessage(records: [try ExternalTypeRecord(type: type, payload: payload).record])
    } catch {
      throw CLIFailure(.invalidValue(error.reason))
    }
  }
}

struct AARKind: MessageKind {
  static let kindName = "aar"
  static let abstract = "An Android Application Record (opens or installs the app)."
  @Argument(help: "The package name, for example com.example.app.") var package: String

  func makeMessage(in context: CommandContext) throws(CLIFailure) -> NDEFMessage {
    guard !package.isEmpty, package.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
      throw CLIFailure(.invalidValue("'\(package)' is not a package name"))
    }
    return NDEFMessage(records: [AndroidApplicationRecord(packageName: package).record])
  }
}

struct SmartPosterKind: MessageKind {
  static let kindName = "smartposter"
  static let abstract = "A Smart Poster: a URI with an optional title."
  @Argument(help: "The URL.") var url: String
  @Option(help: "A title.") var title: String?
  @Option(help: "The title's language code.") var lang: String = "en"

  func makeMessage(in context: CommandContext) throws(CLIFailure) -> NDEFMessage {
    var poster = SmartPosterRecord(uri: url)
    if let title {
      let record = TextRecord(text: title, language: lang)
      do { try record.validate() } catch { throw CLIFailure(.invalidValue(error.reason)) }
      poster.titles = [record]
    }
    return NDEFMessage(records: [poster.record])
  }
}

struct WiFiKind: MessageKind {
  static let kindName = "wifi"
  static let abstract = "A Wi-Fi network (Wi-Fi Simple Config credential) that phones join."
  @Option(help: "The network name.") var ssid: String
  @Option(help: "A file whose first line is the network key (- for standard input); an empty key is refused unless --auth open.")
  var passwordFile: String?
  @Option(help: "An environment variable that holds the network key (empty: refused unless --auth open).") var passwordEnv: String?
  /// Refused: a key in argv is in the process list for every user to read.
  @Option(help: .hidden) var password: String?
  @Option(help: "open (the default without --password-file or --password-env), wpa-personal, wpa2-personal (default with a key), wpa-enterprise, wpa2-enterprise, shared; or several joined with +.")
  var auth: String?
  @Option(help: "none, wep, tkip, aes (default with a key); or several joined with +.") var encryption: String?

  func makeMessage(in context: CommandContext) throws(CLIFailure) -> NDEFMessage {
    guard password == nil else {
      throw CLIFailure(.secretOnCommandLine("a Wi-Fi key on the command line is visible to every user of this machine: give it with --password-file FILE (- for standard input) or --password-env NAME"))
    }
    guard passwordFile == nil || passwordEnv == nil else {
      throw CLIFailure(.invalidCommandLine("give the network key with one of --password-file or --password-env, not both"))
    }
    let key = try PasswordSource(file: passwordFile, environment: passwordEnv, what: "the network key",
                                 options: ("--password-file", "--password-env")).firstLine(in: context) ?? []
    // An empty file or variable is a mistake far more often than a wish for an open network:
    // that one is asked for with --auth open.
    if key.isEmpty, auth == nil, let option = passwordFile != nil ? "--password-file" : passwordEnv != nil ? "--password-env" : nil {
      throw CLIFailure(.invalidValue("the network key (\(option)) is empty: give the key, or --auth open for an open network"))
    }
    guard !ssid.isEmpty, ssid.utf8.count <= 32 else { throw CLIFailure(.invalidValue("the SSID must be 1 to 32 bytes")) }
    var credential = WiFiCredential(ssid: Array(ssid.utf8), networkKey: key)
    credential.authentication = try bits(auth ?? (key.isEmpty ? "open" : "wpa2-personal"), WiFiCredential.authenticationBit, "--auth")
    credential.encryption = try bits(encryption ?? (key.isEmpty ? "none" : "aes"), WiFiCredential.encryptionBit, "--encryption")
    try checkJoinable(authentication: credential.authentication, encryption: credential.encryption, key: key)
    return NDEFMessage(records: [credential.record])
  }

  /// Refuses credentials no phone can join (Wi-Fi Simple Config 2.0 §12; IEEE 802.11i passphrases):
  /// an open network takes no key and no WPA cipher; WPA/WPA2-Personal needs TKIP or AES and a
  /// key of 8 to 63 printable ASCII characters or 64 hex digits.
  private func checkJoinable(authentication: UInt16, encryption: UInt16, key: [UInt8]) throws(CLIFailure) {
    func bit(_ name: String, _ lookup: (String) -> UInt16?) -> UInt16 { lookup(name) ?? 0 }
    let open = bit("open", WiFiCredential.authenticationBit), shared = bit("shared", WiFiCredential.authenticationBit)
    let personal = bit("wpa-personal", WiFiCredential.authenticationBit) | bit("wpa2-personal", WiFiCredential.authenticationBit)
    let none = bit("none", WiFiCredential.encryptionBit), wep = bit("wep", WiFiCredential.encryptionBit)
    let wpaCiphers = bit("tkip", WiFiCredential.encryptionBit) | bit("aes", WiFiCredential.encryptionBit)
    if authentication & ~(open | shared) == 0 {
      guard encryption & wpaCiphers == 0 else {
        throw CLIFailure(.invalidCommandLine("--auth open (or shared) does not go with TKIP or AES encryption: use --auth wpa2-personal"))
      }
      if encryption & ~none == 0, !key.isEmpty {
        throw CLIFailure(.invalidCommandLine("an open network takes no key: drop the key, or use --auth wpa2-personal"))
      }
      if encryption & wep != 0, key.isEmpty { throw CLIFailure(.invalidCommandLine("WEP needs a key")) }
    }
    if authentication & personal != 0 {
      guard encryption & wpaCiphers != 0, encryption & (none | wep) == 0 else {
        throw CLIFailure(.invalidCommandLine("WPA/WPA2-Personal needs --encryption tkip or aes"))
      }
      let printable = key.allSatisfy { (0x20...0x7E).contains($0) }
      let hex64 = key.count == 64 && key.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) }
      guard hex64 || (printable && (8...63).contains(key.count)) else {
        throw CLIFailure(.invalidValue("a WPA/WPA2 key is 8 to 63 printable ASCII characters or 64 hex digits (this one has \(key.count) bytes)"))
      }
    }
  }

  private func bits(_ text: String, _ lookup: (String) -> UInt16?, _ option: String) throws(CLIFailure) -> UInt16 {
    var value: UInt16 = 0
    for name in text.lowercased().split(separator: "+") {
      guard let bit = lookup(String(name)) else { throw CLIFailure(.invalidValue("unknown \(option) value '\(name)'")) }
      value |= bit
    }
    return value
  }
}

struct JSONKind: MessageKind {
  static let kindName = "json"
  static let abstract = "A whole message from JSON (json-format.md in the documentation folder)."
  @Argument(help: "A JSON file, or - for stdin.") var file: String = "-"

  func makeMessage(in context: CommandContext) throws(CLIFailure) -> NDEFMessage {
    var bytes = try readInputOrFail(file, in: context)
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes.removeFirst(3) }  // a UTF-8 BOM, as Windows editors write it
    do throws(MessageJSONError) { return try NDEFJSON.message(fromJSONText: bytes) } catch {
      let advice = error.reason.contains("networkKeyMasked") ? ": read the tag again with --show-secrets" : ""
      throw CLIFailure(.malformedInput("bad message JSON: \(error.reason)\(advice)"))
    }
  }
}

/// `write ndef FILE|-`: a message that is already NDEF bytes.
struct NDEFBytesKind: MessageKind {
  static let kindName = "ndef"
  static let abstract = "A raw NDEF message from a file (- for stdin)."
  @Argument(help: "The file, or - for stdin.") var file: String = "-"
  @Option(help: "How the bytes are given: raw, hex or base64 (default: hex when the input is hex text, else raw).")
  var input: ByteEncoding?

  func makeMessage(in context: CommandContext) throws(CLIFailure) -> NDEFMessage {
    let given = try readInputOrFail(file, in: context)
    if given.isEmpty, input != .raw {
      throw CLIFailure(.malformedInput("no input: the empty NDEF message is an empty line (what dump prints for an empty tag)"))
    }
    let bytes: [UInt8]
    if let input {
      bytes = try decodeInput(given, as: input)
    } else {
      // What `ndef encode` and `dump` print between commands is hex text: take it as such (an
      // empty line: the empty message). No NDEF message starts with a hex digit or white space.
      bytes = parseLenientHex(given) ?? given
    }
    do { return try NDEFMessage.decodingAllowingEmpty(bytes) } catch {
      throw CLIFailure(.malformedInput("invalid NDEF message: \(error)"))
    }
  }
}

/// How NDEF bytes are given or printed on the command line: `--input` of `ndef decode` and
/// `write ndef`, `--format` of `ndef encode`.
enum ByteEncoding: String, ExpressibleByArgument, CaseIterable {
  case hex, raw, base64
}

/// Decodes input text in the given encoding; bad hex or base64 is bad data (65).
func decodeInput(_ bytes: [UInt8], as encoding: ByteEncoding) throws(CLIFailure) -> [UInt8] {
  switch encoding {
  case .raw: return bytes
  case .hex:
    guard let decoded = parseLenientHex(bytes) else { throw CLIFailure(.malformedInput("input is not hex")) }
    return decoded
  case .base64:
    guard let decoded = decodeBase64(bytes) else { throw CLIFailure(.malformedInput("input is not base64")) }
    return decoded
  }
}

/// Every kind, in help order: the subcommands of `ndef encode`, and of `write`, which adds `ndef`.
let messageKindTypes: [any MessageKind.Type] = [
  TextKind.self, URLKind.self, MIMEKind.self, ExternalKind.self, AARKind.self, SmartPosterKind.self, WiFiKind.self, JSONKind.self,
]

/// True when `uri` starts with an RFC 3986 scheme (a letter, then letters, digits, + - ., then ':').
func hasScheme(_ uri: String) -> Bool {
  guard let colon = uri.firstIndex(of: ":") else { return false }
  let scheme = uri[..<colon].unicodeScalars
  guard let first = scheme.first, first.isASCII, first.properties.isAlphabetic else { return false }
  return scheme.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) }
}
