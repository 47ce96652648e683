import NFCTagCLI
import ArgumentParser
import NDEF
import NDEFJSON
import NFCSession
import NFCTags
import ProvisionCommands

/// Output formats of `nfctag read`.
enum ReadFormat: String, ExpressibleByArgument, CaseIterable { case text, json, hex, raw }
/// Output formats of `nfctag dump`: hex text between commands (what `ndef decode` and
/// `write ndef` read), an annotated hexdump for people, JSON, raw bytes.
enum DumpFormat: String, ExpressibleByArgument, CaseIterable { case hex, hexdump, json, raw }

extension NFCTool {
  /// `nfctag read`: the NDEF message on one tag.
  struct Read: ToolCommand {
    static let configuration = CommandConfiguration(commandName: "read", abstract: "Read the NDEF message on a tag.")
    @OptionGroup var readerOptions: ReaderOptions
    @Option(help: "Output: text, json, hex or raw bytes.") var format: ReadFormat = .text
    @Flag(help: showSecretsHelp) var showSecrets = false
    @Flag(help: "Write raw bytes even to a terminal.") var force = false

    func run(in context: CommandContext) throws {
      if format == .raw, !force, context.outputIsTerminal {
        throw ValidationError("refusing to write raw bytes to a terminal: redirect the output or add --force.")
      }
      readerOptions.holdTraceForSecrets(in: context)
      let bytes = try TagSession(options: readerOptions, context: context).withTag { tag in try tag.readNDEFBytes() }
      context.trace.learnSecrets(ofMessage: bytes)
      context.trace.release()
      let output = StandardOutput(context.output)
      switch format {
      case .raw: output.write(bytes)
      case .hex: output.write(hexString(bytes) + "\n")
      case .json, .text:
        let message = try decodeTagMessage(bytes)
        output.write(format == .json ? messageJSON(message, showSecrets: showSecrets) + "\n" : messageTextOrEmpty(message, showSecrets: showSecrets))
      }
      output.flush()
    }
  }

  /// `nfctag dump`: raw NDEF bytes, or the whole memory image.
  struct Dump: ToolCommand {
    static let configuration = CommandConfiguration(commandName: "dump", abstract: "Dump the raw NDEF bytes, or the whole tag memory with --memory.")
    @OptionGroup var readerOptions: ReaderOptions
    @Flag(help: "Dump the whole memory in address order (the image-file layout) instead of the NDEF bytes.") var memory = false
    @Option(help: "Output: hex (one line, what ndef decode reads), hexdump (addresses and ASCII), json or raw bytes.")
    var format: DumpFormat = .hex

    func run(in context: CommandContext) throws {
      let memory = memory
      readerOptions.holdTraceForSecrets(in: context)
      let trace = readerOptions.trace
      let json = format == .json
      let (dump, info, sectors) = try TagSession(options: readerOptions, context: context).withTag { tag in
        // The memory holds the message somewhere: read it first, to know what to mask in the trace
        // (a memory dump may end with a page the tag refuses, after which it is mute).
        if memory { context.trace.learnSecrets(ofMessage: trace ? (try? tag.readNDEFBytes()) ?? [] : []) }
        let dump = memory ? try tag.readMemoryDump() : MemoryDump(bytes: try tag.readNDEFBytes(), extent: .known)
        if !memory { context.trace.learnSecrets(ofMessage: dump.bytes) }
        // A MIFARE Classic's JSON dump carries each sector's key and access conditions (info's facts).
        let sectors = memory && json && tag.platformType == .mifareClassic
          ? try tag.tagInfo().details.filter { $0.key.hasPrefix("sector") } : []
        return (dump, tag.platformType, sectors)
      }
      context.trace.release()
      guard let platform = info else { throw CLIFailure(.unsupported("the tag's platform is unknown")) }
      let bytes = dump.bytes
      if let warning = extentWarning(dump) { context.console.warning(warning) }
      let output = StandardOutput(context.output)
      switch format {
      case .raw: output.write(bytes)
      case .hex: output.write(hexString(bytes) + "\n")
      case .hexdump: output.write(hexDump(bytes, rowLength: memory ? rowLength(for: platform) : 16))
      case .json:
        var o = JSONObjectWriter()
        o.string("kind", memory ? "memory" : "ndef")
        o.string("platform", platform.rawValue)
        o.number("length", bytes.count)
        o.string("hex", hexString(bytes))
        if memory { o.raw("size", extentJSON(dump)) }
        if !sectors.isEmpty { o.raw("sectors", factsJSON(sectors)) }
        output.write(o.finish() + "\n")
      }
      output.flush()
    }
  }

  /// `nfctag format`: writes an empty NDEF structure.
  struct Format: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "format",
      abstract: "Format a tag for NDEF (an empty message).",
      discussion: "By default the old message's bytes are overwritten with zeros first; --fast leaves them in memory.")
    @OptionGroup var readerOptions: ReaderOptions
    @Flag(help: "Only write the NDEF structures: the old message's bytes stay in memory (default: overwrite them).")
    var fast = false
    @OptionGroup var piccKey: DESFirePICCKeyOptions
    @OptionGroup var desfire: DESFireFormatOptions
    func run(in context: CommandContext) throws {
      let fast = fast
      let piccKey = try piccKey.key(in: context), desfireOptions = desfire.options
      let piccAuthentication = try piccKey.map(self.piccKey.authentication(with:))  // --picc-auth ev2 with a DES key: 64 here
      try TagSession(options: readerOptions, context: context).withTag { tag in
        if let piccAuthentication { try tag.useDESFirePICCAuthentication(piccAuthentication) }
        if let desfireOptions {
          try tag.useDESFireFormatOptions(desfireOptions)
          try tag.checkDESFireFormatOptions()  // before the old message is overwritten
        }
        // A Type 4 tag without an NDEF application may be a MIFARE DESFire Light, whose NDEF
        // setup needs EV2 cryptography NFCTags has not (FormatDESFireLight.swift).
        let status = try? tag.queryNDEFStatus().0
        if status == nil, tag.platformType == .type4 { _ = try Self.setUpDESFireLightIfOne(tag, key: piccKey, in: context) }
        // A MIFARE Classic's format writes every data block itself, after opening every sector
        // it writes: an erase first would empty the message before knowing the format can finish.
        if !fast, tag.platformType != .mifareClassic, status == .readWrite {
          try tag.erase(overwritingOldMessage: true)
        }
        try tag.format()
      }
      context.console.notice("formatted")
    }
  }

  /// `nfctag erase`: replaces the message with an empty one.
  struct Erase: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "erase",
      abstract: "Erase the NDEF message (the tag keeps its NDEF format).",
      discussion: """
        By default the bytes the old message used are overwritten with zeros too (after its length, \
        so a tear leaves the old message or an empty one); --fast only empties the length.
        """)
    @OptionGroup var readerOptions: ReaderOptions
    @Flag(help: "Only set the message length to 0: the old bytes stay in memory (default: overwrite them).")
    var fast = false
    func run(in context: CommandContext) throws {
      let fast = fast
      try TagSession(options: readerOptions, context: context).withTag { tag in try tag.erase(overwritingOldMessage: !fast) }
      context.console.notice("erased")
    }
  }

  /// `nfctag lock --yes`: makes the tag read-only for ever.
  struct Lock: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "lock", abstract: "Make a tag permanently read-only (needs --yes).",
      discussion: """
        An NTAG 424 DNA is locked with ChangeFileSettings (Write, Read&Write and Change access \
        never), authenticated with its key 0 (--auth-key-file or --auth-key-env; the factory key \
        by default); nfctag-provision does that part. See ntag-424-dna.md in the documentation folder. \
        A MIFARE DESFire with the NDEF application `format` makes gets its NDEF file's write access \
        never (ChangeFileSettings, authenticated with the application's key 0: --auth-key-file or \
        --auth-key-env, of the application's key type; the zero key by default), then the CC's \
        write access FFh; a lock cut short is finished by running it again. See desfire.md.
        """)
    @OptionGroup var readerOptions: ReaderOptions
    @Flag(help: "Confirm: locking is permanent and cannot be undone.") var yes = false
    @OptionGroup var auth: NTAG424AuthKeyOptions

    func validate() throws {
      guard yes else { throw ValidationError("locking is permanent: add --yes to confirm.") }
    }

    /// What the tag session found and did.
    enum Outcome { case alreadyReadOnly, locked, ntag424 }

    func run(in context: CommandContext) throws {
      let (authKeyFile, authKeyEnv) = (auth.authKeyFile, auth.authKeyEnv)
      let outcome = try TagSession(options: readerOptions, context: context).withTag { tag -> Outcome in
        // A MIFARE Classic's lock leaves the sectors read-only already and locks the others (a
        // lock cut short is finished): it was read-only already when it wrote nothing.
        if let before = try tag.mifareClassicWriteCommandsSent() {
          try tag.writeLock()
          return try tag.mifareClassicWriteCommandsSent() == before ? .alreadyReadOnly : .locked
        }
        if tag.platformType == .type4 {
          let chip = try tag.identification().chip
          // A 424 DNA's lock needs AES (nfctag-provision's): only GetVersion names one (`info`).
          if chip.hasPrefix("NTAG 424 DNA") { return .ntag424 }
          // A DESFire's needs ChangeFileSettings under its application's key (LockDESFire.swift).
          if chip.hasPrefix("MIFARE DESFire") {
            return try Self.lockDESFire(tag, authKeyFile: authKeyFile, authKeyEnv: authKeyEnv, in: context)
          }
        }
        if try tag.queryNDEFStatus().0 == .readOnly { return .alreadyReadOnly }
        try tag.writeLock()
        return .locked
      }
      switch outcome {
      case .alreadyReadOnly: context.console.notice("the tag is already read-only")
      case .locked: context.console.notice("the tag is now read-only")
      case .ntag424:
        let arguments = KeysCommand.LockNDEFFile.arguments(
          reader: readerOptions.reader, timeout: readerOptions.timeout, exchangeTimeout: readerOptions.exchangeTimeout,
          trace: readerOptions.trace, quiet: readerOptions.quiet, verbose: readerOptions.verbose, auth: auth)
        try context.dispatch(try KeysCommand.LockNDEFFile.parse(Array(arguments.dropFirst())))
      }
    }
  }

  /// `nfctag info`: chip, memory, capacity, lock state, CC and version.
  struct Info: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "info", abstract: "Show chip, memory size, capacity, lock state, CC and version.",
      discussion: """
        A tag whose reads are password-protected, read without its password, shows what it lets be \
        read (the chip, the pages before the protected ones) and exits 77 (scan does the same). \
        An NTAG 424 DNA is read without a key: the chip from GetVersion (424 DNA or 424 DNA TT), \
        the three files' settings (access rights, communication mode, SDM and its offsets), the \
        five key versions, and the originality signature, checked against NXP's public key (a \
        virtual 424 DNA's verifies with the test key only). See ntag-424-dna.md in the documentation folder.
        """)
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var output: FormatOption

    func run(in context: CommandContext) throws {
      let (target, read) = try TagSession(options: readerOptions, context: context).withTag { tag in (TargetSummary(tag), try tag.tagInfo()) }
      var info = read
      if let signature = info.originalitySignature { info.details.append(originalityFact(signature)) }
      let out = StandardOutput(context.output)
      if output.isJSON {
        var o = JSONObjectWriter()
        o.string("reader", target.readerName)
        o.string("uid", hexString(info.identifier))
        o.string("atr", hexString(target.atr))
        o.string("platform", info.platform.rawValue)
        o.string("chip", info.chip)
        o.number("memorySize", info.memorySize)
        o.ndefMembers(of: info)
        o.string("capabilityContainer", hexString(info.capabilityContainer))
        if !info.version.isEmpty { o.string("version", hexString(info.version)) }
        o.raw("locks", factsJSON(info.locks))
        o.raw("details", factsJSON(info.details))
        out.write(o.finish() + "\n")
      } else {
        var lines: [(String, String)] = [
          ("reader", target.readerName), ("uid", hexString(info.identifier, separator: ":")),
          ("atr", hexString(target.atr, separator: " ")),
          ("chip", "\(info.chip) (\(info.platform.displayName))"),
          ("memory", "\(info.memorySize) bytes"),
          ("ndef", info.readProtectedFrom.map { "read-protected from page \($0)" } ?? ndefStatusText(info.ndef)),
          ("cc", info.capabilityContainer.isEmpty ? "-" : hexString(info.capabilityContainer, separator: " ")),
          ("version", info.version.isEmpty ? "-" : hexString(info.version, separator: " ")),
          ("locks", info.lockState),
        ]
        lines += info.details.map { ($0.label, $0.text) }
        out.write(alignedLines(lines))
      }
      out.flush()
      if let page = info.readProtectedFrom {
        throw CLIFailure(.tagRefused(readProtectedReason(page)))
      }
    }
  }
}

/// The one line `dump --memory` prints when its image may not be the whole memory (the chip did
/// not name itself: docs/readers.md, "Memory size without GET_VERSION"); nil when it is whole.
func extentWarning(_ dump: MemoryDump) -> String? {
  let lead = "the reader did not identify the chip, so its memory size is unknown: "
  switch dump.extent {
  case .known: return nil
  case .probed(let refusedAt?):
    return lead + "read \(dump.bytes.count) bytes, to page \(refusedAt / 4), which was refused "
      + "(the end of the memory, or pages behind a password)"
  case .probed(nil):
    return lead + "read \(dump.bytes.count) bytes, to the last page READ addresses; more may follow"
  case .unknown:
    return lead + "read the \(dump.bytes.count) bytes the CC describes; more may follow"
  }
}

/// `dump --memory --format json`'s `size`: `{"known":true}`, or `{"known":false}` with
/// `refusedAt`, the byte address of the page the tag refused, when there was one.
func extentJSON(_ dump: MemoryDump) -> String {
  var o = JSONObjectWriter()
  o.bool("known", dump.isWhole)
  if case .probed(let refusedAt?) = dump.extent { o.number("refusedAt", refusedAt) }
  return o.finish()
}

/// Decodes a message read from a tag (zero bytes: the empty message); its errors are bad data (65).
func decodeTagMessage(_ bytes: [UInt8]) throws -> NDEFMessage {
  do { return try NDEFMessage.decodingAllowingEmpty(bytes) } catch { throw NFCReaderError(error) }
}

/// Why `info` and `scan` exit 77 on a tag whose reads are protected from `page`.
func readProtectedReason(_ page: Int) -> String {
  "the tag is read-protected from page \(page): give its password with --tag-password-file or --tag-password-env"
}

/// What the reader learnt about a tag, for output: reader, UID, ATR.
struct TargetSummary: Sendable {
  var readerName: String
  var identifier: [UInt8]
  var atr: [UInt8]
  init(_ tag: any NFCNDEFTag) {
    readerName = tag.connection.readerName
    identifier = tag.identifier
    atr = tag.connection.atr
  }
}

func ndefStatusText(_ report: NDEFStatusReport) -> String {
  let status: String
  switch report.status {
  case .notSupported: return "not NDEF formatted"
  case .readWrite: status = "read/write"
  case .readOnly: status = "read-only"
  }
  var text = "\(status), capacity \(report.capacity) bytes"
  if let length = report.messageLength { text += ", message \(length) bytes" }
  return text
}

extension JSONObjectWriter {
  /// The NDEF members of a tag's JSON (`scan`, `info`): `"readProtected":{"fromPage":N},"ndef":null`
  /// when the tag's reads are protected, else `"ndef":` its ``ndefStatusJSON(_:)``.
  mutating func ndefMembers(of info: TagInfo) {
    if let page = info.readProtectedFrom {
      var protected = JSONObjectWriter()
      protected.number("fromPage", page)
      raw("readProtected", protected.finish())
      raw("ndef", "null")
    } else {
      raw("ndef", ndefStatusJSON(info.ndef))
    }
  }
}

func ndefStatusJSON(_ report: NDEFStatusReport) -> String {
  var o = JSONObjectWriter()
  switch report.status {
  case .notSupported: o.string("status", "notSupported")
  case .readWrite: o.string("status", "readWrite")
  case .readOnly: o.string("status", "readOnly")
  }
  o.number("capacity", report.capacity)
  if let length = report.messageLength { o.number("length", length) }
  return o.finish()
}

func rowLength(for platform: TagPlatform) -> Int {
  switch platform {
  case .type1: return 8
  case .type2, .type5: return 4
  case .type3, .type4, .mifareClassic: return 16
  }
}

/// `0000: 04 a1 b2 93  ....` rows.
func hexDump(_ bytes: [UInt8], rowLength: Int) -> String {
  var out = ""
  var offset = 0
  while offset < bytes.count {
    let row = bytes[offset..<min(offset + rowLength, bytes.count)]
    var address = String(offset, radix: 16)
    address = String(repeating: "0", count: max(0, 4 - address.count)) + address
    let hex = hexString(row, separator: " ")
    let padding = String(repeating: " ", count: max(0, rowLength * 3 - 1 - hex.count))
    let ascii = String(String.UnicodeScalarView(row.map { (0x20..<0x7F).contains($0) ? Unicode.Scalar($0) : "." }))
    out += "\(address): \(hex)\(padding)  |\(ascii)|\n"
    offset += rowLength
  }
  return out
}

func alignedLines(_ lines: [(String, String)]) -> String {
  let width = lines.map(\.0.count).max() ?? 0
  return lines.map { key, value in
    key + ":" + String(repeating: " ", count: width - key.count + 1) + sanitizeLine(value)
  }.joined(separator: "\n") + "\n"
}
