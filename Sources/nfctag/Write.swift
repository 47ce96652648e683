import ArgumentParser
import NDEF
import NFCSession

extension NFCTool {
  /// `nfctag write <kind> …`: the kinds of `ndef encode`, plus `ndef FILE|-`.
  struct Write: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "write",
      abstract: "Write an NDEF message to a tag (tear-safe, verified by reading it back).",
      subcommands: [
        WriteKindCommand<TextKind>.self, WriteKindCommand<URLKind>.self, WriteKindCommand<MIMEKind>.self,
        WriteKindCommand<ExternalKind>.self, WriteKindCommand<AARKind>.self, WriteKindCommand<SmartPosterKind>.self,
        WriteKindCommand<WiFiKind>.self, WriteKindCommand<JSONKind>.self, WriteKindCommand<NDEFBytesKind>.self,
      ])
  }
}

/// `nfctag write KIND …`: builds the message with the shared ``MessageKind`` grammar and writes it.
struct WriteKindCommand<Kind: MessageKind>: ParsableCommand {
  static var configuration: CommandConfiguration {
    CommandConfiguration(commandName: Kind.kindName, abstract: Kind.abstract, aliases: Kind.aliases)
  }
  @OptionGroup var kind: Kind
  @OptionGroup var readerOptions: ReaderOptions
  @Flag(help: "Add the records after the ones already on the tag.") var append = false
  @Flag(help: "Do not read the message back after writing.") var noVerify = false
  @Flag(help: "Make the tag read-only after writing (permanent: needs --yes).") var lock = false
  @Flag(help: "Confirm a permanent operation (--lock).") var yes = false

  func validate() throws {
    if lock && !yes { throw ValidationError("--lock is permanent: add --yes to confirm.") }
  }

  func run() throws {
    do {
      let message = try kind.makeMessage()
      let (append, verify, lock) = (append, !noVerify, lock)
      let written = try TagSession(options: readerOptions).withTag { tag -> Int in
        var records = message.records
        if append {
          let existing = try tag.readNDEFBytes()
          if !existing.isEmpty { records = try decodeTagMessage(existing).records + records }
        }
        let bytes = try NDEFMessage(records: records).encoded()
        // writeNDEF checks format, read-only state and capacity before its first command (every
        // platform's contract), so no separate status query costs round trips here.
        // A Wi-Fi credential's key travels in the written pages: the trace masks that write.
        if records.contains(where: { WiFiCredential($0) != nil }) {
          try SecretExchange.run { () throws(NFCReaderError) in try tag.writeNDEFBytes(bytes, verify: verify) }
        } else {
          try tag.writeNDEFBytes(bytes, verify: verify)
        }
        if lock { try tag.writeLock() }
        return bytes.count
      }
      writeStderr("nfctag: wrote \(written) bytes\(noVerify ? "" : ", verified")\(lock ? "; the tag is now read-only" : "")\n")
    } catch {
      throw fail(cliFailure(for: error))
    }
  }
}
