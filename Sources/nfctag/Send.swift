import NFCTagCLI
import ArgumentParser
import Dispatch
import NFCSession
import NFCTransport
import Synchronization

extension NFCTool {
  /// `nfctag send HEX…`: native commands to the tag in the field, through an ``NFCTagReaderSession``.
  struct Send: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "send",
      abstract: "Send raw commands to the tag in the field and print each answer.",
      discussion: """
        Each HEX is one command as the tag sees it, without CRC: Type 1 and 2 native commands (60 \
        GET_VERSION, 3c00 READ_SIG, 3902 READ_CNT, 3004 READ); ISO 7816 APDUs for Type 4 (--apdu \
        says you mean an APDU); FeliCa packets from the command code (the length byte is added); \
        ISO 15693 requests as flags, command code, parameters. All go to one tag in one session. \
        Answers are printed in hex with the meaning of a status word or a Type 2 ACK/NAK. \
        Commands that carry a password (PWD_AUTH 1b, VERIFY 0020) belong in --commands-file, \
        not on the command line, where every user can read them in the process list.
        """)
    @OptionGroup var readerOptions: ReaderOptions
    @Argument(help: "The commands, in hex (spaces and colons allowed inside quotes).") var commands: [String] = []
    @Option(help: "A file (- for standard input) with one command in hex per line, after the COMMANDS; blank lines and lines starting with # are skipped.")
    var commandsFile: String?
    @Flag(help: "The commands are ISO 7816 APDUs (the tag must take them: Type 4).") var apdu = false
    @Option(help: "Output: text or json.") var format: TextOrJSON = .text
    @Flag(help: "Show the passwords in commands that carry one, and their answers (masked as ******** by default).")
    var showSecrets = false

    func validate() throws {
      guard !commands.isEmpty || commandsFile != nil else {
        throw ValidationError("give at least one command in hex, or --commands-file.")
      }
      for command in commands {
        if let problem = Self.problem(with: command, apdu: apdu) { throw ValidationError("'\(command)' \(problem).") }
      }
    }

    /// Why `command` cannot be sent, or nil when it can.
    static func problem(with command: some StringProtocol, apdu: Bool) -> String? {
      guard let bytes = parseLenientHex(Array(command.utf8)), !bytes.isEmpty else { return "is not a command in hex" }
      if apdu, NFCISO7816APDU(data: bytes) == nil { return "is not an ISO 7816 APDU (CLA INS P1 P2 [Lc data] [Le])" }
      return nil
    }

    /// The commands of --commands-file. A bad line is named by its number, not its text: the
    /// file is where passwords go.
    func fileCommands(in context: CommandContext) throws(CLIFailure) -> [String] {
      guard let commandsFile else { return [] }
      let bytes = try readInputOrFail(commandsFile, in: context)
      let name = inputName(commandsFile)
      guard let text = String(validating: bytes, as: UTF8.self) else {
        throw CLIFailure(.malformedInput("\(name) is not text"))
      }
      var commands: [String] = []
      for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
        let command = line.trimmingASCIISpaces()
        if command.isEmpty || command.hasPrefix("#") { continue }
        if let problem = Self.problem(with: command, apdu: apdu) {
          throw CLIFailure(.malformedInput("line \(index + 1) of \(name) \(problem)"))
        }
        commands.append(String(command))
      }
      guard !commands.isEmpty || !self.commands.isEmpty else {
        throw CLIFailure(.malformedInput("\(name) holds no command"))
      }
      return commands
    }

    func run(in context: CommandContext) throws {
      let (apdu, json, showSecrets) = (apdu, format == .json, showSecrets)
      let frames = try (commands + fileCommands(in: context)).compactMap { parseLenientHex(Array($0.utf8)) }
      let exchanges = try TagSession(options: readerOptions, context: context).withTypedTag { tag in
        try frames.map { frame in try Exchange(tag: tag, command: frame, apdu: apdu) }
      }
      let output = StandardOutput(context.output)
      if json {
        var o = JSONObjectWriter()
        o.string("reader", exchanges.reader)
        o.string("uid", hexString(exchanges.uid))
        o.string("kind", exchanges.kind)
        o.raw("exchanges", "[" + exchanges.value.map { $0.json(showSecrets: showSecrets) }.joined(separator: ",") + "]")
        output.write(o.finish() + "\n")
      } else {
        for exchange in exchanges.value { output.write(exchange.text(showSecrets: showSecrets)) }
      }
      output.flush()
    }
  }
}

/// One command and the tag's answer.
struct Exchange: Sendable {
  var command: [UInt8]
  var response: [UInt8]
  var meaning: String
  /// The bytes of a command that carries a password shown before `********`, as traces show it
  /// (``secretHeaderLength(_:kind:)``); nil for a command that carries none.
  var secretHeader: Int?
  /// Whether the answer ends in a status word, which stays visible when the answer is masked.
  var endsInStatusWord = false

  init(tag: NFCTag, command: [UInt8], apdu: Bool) throws {
    self.command = command
    switch tag {
    case .iso7816: secretHeader = secretHeaderLength(command[...], kind: .apdu)
    case .miFare, .iso15693: secretHeader = secretHeaderLength(command[...], kind: .raw)
    case .feliCa: secretHeader = nil
    }
    if let header = secretHeader, header >= command.count { secretHeader = nil }
    switch tag {
    case .iso7816(let card):
      guard let parsed = NFCISO7816APDU(data: command) else {
        throw CLIFailure(.invalidValue("\(hexString(command)) is not an ISO 7816 APDU"))
      }
      let (data, sw1, sw2) = try card.sendCommand(apdu: parsed)
      response = data + [sw1, sw2]
      endsInStatusWord = true
      meaning = statusWordMeaning(sw1, sw2)
    case _ where apdu:
      throw CLIFailure(.unsupported("the tag in the field does not take ISO 7816 APDUs (it is not a Type 4 tag)"))
    case .miFare(let tag):
      response = try tag.sendMiFareCommand(command)
      meaning = type2AnswerMeaning(response)
    case .feliCa(let tag):
      response = try tag.sendFeliCaCommand(commandPacket: command)
      meaning = ""
    case .iso15693(let tag):
      let reply = try tag.sendRawRequest(command)
      response = reply
      meaning = iso15693AnswerMeaning(reply)
    }
  }

  /// The command and the answer in hex, with the password and the answer's data as `********`
  /// unless `showSecrets`.
  private func shown(showSecrets: Bool, separator: String) -> (command: String, response: String) {
    guard let header = secretHeader, !showSecrets else {
      return (hexString(command, separator: separator), hexString(response, separator: separator))
    }
    let command = hexString(command.prefix(header), separator: separator) + separator + "********"
    let status = endsInStatusWord && response.count >= 2 ? Array(response.suffix(2)) : []
    guard response.count > status.count else { return (command, hexString(response, separator: separator)) }
    return (command, "********" + (status.isEmpty ? "" : separator + hexString(status, separator: separator)))
  }

  func text(showSecrets: Bool) -> String {
    let (command, response) = shown(showSecrets: showSecrets, separator: " ")
    return "> \(command)\n< \(response)\(meaning.isEmpty ? "" : "  (\(meaning))")\n"
  }

  func json(showSecrets: Bool) -> String {
    let (command, response) = shown(showSecrets: showSecrets, separator: "")
    var o = JSONObjectWriter()
    o.string("command", command)
    o.string("response", response)
    if !meaning.isEmpty { o.string("meaning", meaning) }
    return o.finish()
  }
}

/// A Type 2 answer of one byte: ACK (A) or a 4-bit NAK (NTAG21x datasheet §9.3).
func type2AnswerMeaning(_ answer: [UInt8]) -> String {
  guard answer.count == 1, let value = answer.first else { return "" }
  switch value {
  case 0x0A: return "ACK"
  case 0x00: return "NAK 0: invalid argument (page or command)"
  case 0x01: return "NAK 1: parity or CRC error"
  case 0x04: return "NAK 4: authentication counter overflow"
  case 0x05: return "NAK 5: EEPROM write error"
  default: return "NAK \(value)"
  }
}

/// What an ISO 15693 answer means: "ok", "error 10h: block not available", or that it is malformed
/// (an error flag without its code); nothing for an empty answer. ISO/IEC 15693-3:2009 §7.4.
func iso15693AnswerMeaning(_ answer: [UInt8]) -> String {
  guard !answer.isEmpty else { return "" }
  guard let response = ISO15693Response(answer) else { return "malformed: the error flag without an error code" }
  guard let code = response.errorCode else { return "ok" }
  return "error \(code): \(code.meaning)"
}

/// What an ISO 7816 status word means ("9000: success").
func statusWordMeaning(_ sw1: UInt8, _ sw2: UInt8) -> String {
  let status = StatusWord(sw1, sw2)
  return "\(status.description): \(status.meaning)"
}

extension Substring {
  /// The line without the spaces, tabs and carriage return around it.
  fileprivate func trimmingASCIISpaces() -> Substring {
    let space: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
    guard let first = firstIndex(where: { !space($0) }), let last = lastIndex(where: { !space($0) }) else { return "" }
    return self[first...last]
  }
}
