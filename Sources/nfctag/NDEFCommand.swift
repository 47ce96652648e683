import ArgumentParser
import NDEF
import NDEFJSON
#if canImport(Glibc)
import Glibc
#endif

/// `nfctag ndef`: the offline codec.
struct NDEFCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "ndef", abstract: "Decode and encode NDEF messages offline (no reader needed).",
    subcommands: [Decode.self, Encode.self])
}

enum DecodeFormat: String, ExpressibleByArgument, CaseIterable { case text, json }
enum EncodeOutput: String, ExpressibleByArgument, CaseIterable { case hex, raw, base64 }

extension NDEFCommand {
  /// `nfctag ndef decode`.
  struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "decode",
      abstract: "Decode an NDEF message.",
      discussion: """
        Hex may contain spaces, colons and 0x prefixes. With --lines, every input line is one hex \
        message and every output line one JSON object; a bad line prints {"line":N,"error":"..."} and \
        the others go on (exit 65 at the end).
        """)
    @Argument(help: "The message as hex, or - (the default) to read standard input.") var message: String = "-"
    @Option(help: "How the input is given: hex, raw or base64.") var input: InputEncodingArgument = .hex
    @Option(help: "Output: text or json.") var format: DecodeFormat = .text
    @Flag(help: "One hex message per input line, one JSON object per output line (streams).") var lines = false
    @Flag(help: "Show Wi-Fi keys and other secrets in text output.") var showSecrets = false

    func validate() throws {
      if lines, input != .hex { throw ValidationError("--lines reads hex lines: drop --input \(input.rawValue).") }
    }

    func run() throws {
      if lines {
        guard message == "-" else { throw fail(CLIFailure(ExitStatus.usage, "--lines reads standard input: drop the argument")) }
        let failed = decodeLines()
        if failed { throw ExitCode(ExitStatus.dataError) }
        return
      }
      do {
        let raw: [UInt8] = message == "-" ? try readInputOrFail("-") : Array(message.utf8)
        let bytes = try decodeInput(raw, as: input.encoding)
        let decoded: NDEFMessage
        do { decoded = try NDEFMessage(decoding: bytes) } catch {
          throw CLIFailure(ExitStatus.dataError, "invalid NDEF message: \(error)")
        }
        let output = StandardOutput()
        output.write(format == .json ? messageJSON(decoded) + "\n" : messageText(decoded, showSecrets: showSecrets))
        output.flush()
      } catch let failure as CLIFailure {
        throw fail(failure)
      }
    }

    /// Streams stdin: constant memory whatever the input length. Returns true when a line failed.
    private func decodeLines() -> Bool {
      let output = StandardOutput()
      var failed = false
      var lineNumber = 0
      var pending: [UInt8] = []
      var chunk = [UInt8](repeating: 0, count: 1 << 16)
      var writer = JSONWriter(capacity: 1 << 12)

      func handle(_ line: ArraySlice<UInt8>) {
        lineNumber += 1
        var body = line
        if body.last == 0x0D { body = body.dropLast() }
        if body.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
        writer.bytes.removeAll(keepingCapacity: true)
        if let bytes = parseLenientHex(body) {
          do {
            writer.message(try NDEFMessage(decoding: bytes))
          } catch {
            failed = true
            writer.bytes.removeAll(keepingCapacity: true)
            writer.raw("{\"line\":"); writer.number(lineNumber)
            writer.key("error"); writer.string("invalid NDEF message: \(error)")
            writer.bytes.append(0x7D)
          }
        } else {
          failed = true
          writer.raw("{\"line\":"); writer.number(lineNumber)
          writer.key("error"); writer.string("not hex")
          writer.bytes.append(0x7D)
        }
        writer.bytes.append(0x0A)
        output.append { $0.append(contentsOf: writer.bytes) }
      }

      while true {
        let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
        if n < 0 {
          if errno == EINTR { continue }
          break
        }
        if n == 0 { break }
        var start = 0
        var i = 0
        while i < n {
          if chunk[i] == 0x0A {
            if pending.isEmpty {
              handle(chunk[start..<i])
            } else {
              pending.append(contentsOf: chunk[start..<i])
              handle(pending[...])
              pending.removeAll(keepingCapacity: true)
            }
            start = i + 1
          }
          i += 1
        }
        if start < n { pending.append(contentsOf: chunk[start..<n]) }
      }
      if !pending.isEmpty { handle(pending[...]) }
      output.flush()
      return failed
    }
  }

  /// `nfctag ndef encode <kind>`.
  struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "encode",
      abstract: "Build an NDEF message and print its bytes.",
      subcommands: [
        EncodeKindCommand<TextKind>.self, EncodeKindCommand<URLKind>.self, EncodeKindCommand<MIMEKind>.self,
        EncodeKindCommand<ExternalKind>.self, EncodeKindCommand<AARKind>.self, EncodeKindCommand<SmartPosterKind>.self,
        EncodeKindCommand<WiFiKind>.self, EncodeKindCommand<JSONKind>.self,
      ])
  }
}

/// `nfctag ndef encode KIND …`: one subcommand per ``MessageKind``.
struct EncodeKindCommand<Kind: MessageKind>: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(commandName: Kind.kindName, abstract: Kind.abstract, aliases: Kind.aliases)
  }
  @OptionGroup var kind: Kind
  @Option(help: "Output: hex, raw bytes or base64.") var output: EncodeOutput = .hex

  func run() throws {
    do {
      let bytes: [UInt8]
      do { bytes = try kind.makeMessage().encoded() } catch let error as NDEFError {
        throw CLIFailure(ExitStatus.dataError, "cannot encode: \(error)")
      }
      let out = StandardOutput()
      switch output {
      case .hex: out.write(hexString(bytes) + "\n")
      case .raw: out.write(bytes)
      case .base64: out.write(encodeBase64(bytes) + "\n")
      }
      out.flush()
    } catch let failure as CLIFailure {
      throw fail(failure)
    }
  }
}
