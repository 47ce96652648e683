import NFCTagCLI
import ArgumentParser
import NDEF
import NDEFJSON

/// `nfctag ndef`: the offline codec.
struct NDEFCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ndef", abstract: "Decode and encode NDEF messages offline (no reader needed).",
    subcommands: [Decode.self, Encode.self])
}

extension NDEFCommand {
  /// `nfctag ndef decode`.
  struct Decode: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "decode",
      abstract: "Decode an NDEF message.",
      discussion: """
        Hex may contain spaces, colons and 0x prefixes. An empty line (what dump prints for an empty \
        tag) is the empty NDEF message, as are an empty argument ("") and zero bytes with --input \
        raw; no input at all on standard input (not even a line feed, usually a failed command \
        before the pipe) is refused (65). With --lines, every \
        input line is one hex message and every output line one JSON object, or with an explicit \
        --format text one line of text (the records joined by "; "); blank lines are skipped. A \
        bad line prints {"line":N,"error":"..."} (text: line N: error: ...) and the others go on \
        (exit 65 at the end).
        """)
    @Argument(help: "The message as hex, or - (the default) to read standard input.") var message: String = "-"
    @Option(help: "How the input is given: hex, raw or base64.") var input: ByteEncoding = .hex
    @Option(help: "Output: text or json (default: text; with --lines, json).") var format: TextOrJSON?
    @Flag(help: "One hex message per input line, one output line per message: JSON, or text with --format text (streams).")
    var lines = false
    @Flag(help: showSecretsHelp) var showSecrets = false

    func validate() throws {
      if lines, input != .hex { throw ValidationError("--lines reads hex lines: drop --input \(input.rawValue).") }
    }

    func run(in context: CommandContext) throws {
      if lines {
        guard message == "-" else { throw CLIFailure(.invalidCommandLine("--lines reads standard input: drop the argument")) }
        try decodeLines(in: context)
        return
      }
      let raw: [UInt8] = message == "-" ? try readInputOrFail("-", in: context) : Array(message.utf8)
      if raw.isEmpty, input != .raw, message == "-" {
        throw CLIFailure(.malformedInput("no input on standard input: "
                                         + "the empty NDEF message is an empty line (what dump prints for an empty tag)"))
      }
      // An argument given is explicit: "" is the empty message, in every encoding.
      let bytes = raw.isEmpty ? [] : try decodeInput(raw, as: input)
      let decoded: NDEFMessage
      do { decoded = try NDEFMessage.decodingAllowingEmpty(bytes) } catch {
        throw CLIFailure(.malformedInput("invalid NDEF message: \(error)"))
      }
      let output = StandardOutput(context.output)
      output.write(format == .json ? messageJSON(decoded, showSecrets: showSecrets) + "\n" : messageTextOrEmpty(decoded, showSecrets: showSecrets))
      output.flush()
    }

    /// Streams stdin: memory bounded by the longest line, whatever the input length; one JSON
    /// object per message, or with --format text one line (``messageSummary(_:showSecrets:)``).
    /// - Throws: 65 when a line failed (one line counting them, after the output), 66 when
    ///   standard input could not be read (the lines before it are written).
    ///
    /// The hot path: lines are parsed where they lie in the read buffer (``LineReader``), into
    /// one byte buffer sized for the longest line so far, and the JSON is written straight into
    /// the output buffer, which goes out with write(2) once it holds a megabyte.
    private func decodeLines(in context: CommandContext) throws {
      let output = StandardOutput(context.output)
      var lines = LinesDecoder(text: format == .text, showSecrets: showSecrets)  // JSON unless --format text
      let readAll = LineReader(fd: context.inputDescriptor).forEachLine { line in
        lines.decode(line)
        if lines.writer.bytes.count >= 1 << 20 {
          output.writeThrough(lines.writer.bytes)
          lines.writer.bytes.removeAll(keepingCapacity: true)
        }
      }
      output.writeThrough(lines.writer.bytes)
      if !readAll {
        throw CLIFailure(.unreadableFile("cannot read standard input: \(String(cString: strerror(errno)))"))
      }
      if let first = lines.firstFailedLine {
        throw CLIFailure(.malformedInput("\(lines.failures) of \(lines.messages) messages failed, the first on line \(first)"))
      }
    }
  }

  /// `nfctag ndef encode <kind>`.
  struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "encode",
      abstract: "Build an NDEF message and print its bytes.",
      subcommands: messageKindTypes.map { encodeKindCommand($0) })
  }
}

/// The `ndef encode` subcommand of `kind`.
private func encodeKindCommand<Kind: MessageKind>(_ kind: Kind.Type) -> any ParsableCommand.Type {
  EncodeKindCommand<Kind>.self
}

/// `nfctag ndef encode KIND …`: one subcommand per ``MessageKind``.
struct EncodeKindCommand<Kind: MessageKind>: MessageKindCommand {
  @OptionGroup var kind: Kind
  @Option(name: [.customLong("format"), .customLong("output")],
          help: "Output: hex, raw bytes or base64 (--output is its older name).")
  var output: ByteEncoding = .hex

  func run(in context: CommandContext) throws {
    let bytes: [UInt8]
    do { bytes = try kind.makeMessage(in: context).encodedAllowingEmpty() } catch let error as NDEFError {
      throw CLIFailure(.malformedInput("cannot encode: \(error)"))
    }
    let out = StandardOutput(context.output)
    switch output {
    case .hex: out.write(hexString(bytes) + "\n")
    case .raw: out.write(bytes)
    case .base64: out.write(encodeBase64(bytes) + "\n")
    }
    out.flush()
  }
}

/// The state of `ndef decode --lines`: one value whose methods the line loop calls, so that no
/// variable is shared between the loop's closure and a nested function (such variables were
/// boxed and checked for exclusive access at run time, on every line).
struct LinesDecoder {
  /// One text line per message (``messageSummary(_:showSecrets:)``) instead of JSON.
  let text: Bool
  /// Wi-Fi keys in clear (text and JSON).
  let showSecrets: Bool
  /// The lines not yet written out.
  var writer = JSONWriter(capacity: (1 << 20) + (1 << 16))
  /// True once a line failed.
  var failed: Bool { failures > 0 }
  /// The lines that were not blank so far.
  private(set) var messages = 0
  /// The lines that failed so far.
  private(set) var failures = 0
  /// The number of the first line that failed (counting blank lines too), nil when none did.
  private(set) var firstFailedLine: Int?
  private var lineNumber = 0
  private var bytes: [UInt8] = []

  init(text: Bool = false, showSecrets: Bool = false) {
    self.text = text
    self.showSecrets = showSecrets
  }

  /// Appends the line of one input line (without its line feed), or nothing for a blank line.
  mutating func decode(_ line: UnsafeRawBufferPointer) {
    lineNumber += 1
    var body = line
    if body.last == 0x0D { body = UnsafeRawBufferPointer(rebasing: body.dropLast()) }
    if bytes.count < body.count / 2 { bytes = [UInt8](repeating: 0, count: max(body.count / 2, bytes.count * 2)) }
    if let count = bytes.withUnsafeMutableBytes({ parseLenientHex(body, into: $0) }) {
      if count == 0, body.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }  // a blank line
      messages += 1
      let mark = writer.bytes.count
      do {
        let message = try NDEFMessage(decoding: bytes[0..<count])
        if text {
          writer.raw(json: sanitizeLine(messageSummary(message, showSecrets: showSecrets)))
        } else {
          writer.message(message, showSecrets: showSecrets)
        }
      } catch {
        writer.bytes.removeLast(writer.bytes.count - mark)
        lineError("invalid NDEF message: \(error)")
      }
    } else {
      messages += 1
      lineError("not hex")
    }
    writer.bytes.append(0x0A)
  }

  private mutating func lineError(_ reason: String) {
    failures += 1
    if firstFailedLine == nil { firstFailedLine = lineNumber }
    if text {
      writer.raw(json: "line \(lineNumber): error: \(sanitizeLine(reason))")
      return
    }
    writer.raw("{\"line\":"); writer.number(lineNumber)
    writer.key("error"); writer.string(reason)
    writer.bytes.append(0x7D)
  }
}
