import NFCTagCLI
import ArgumentParser
import NDEF
import NFCSession
import NFCTransport
import NFCTags

extension NFCTool {
  /// `nfctag write <kind> …`: the kinds of `ndef encode`, plus `ndef FILE|-`.
  struct Write: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "write",
      abstract: "Write an NDEF message to a tag (tear-safe, verified by reading it back), or a memory image.",
      subcommands: (messageKindTypes + [NDEFBytesKind.self]).map { writeKindCommand($0) } + [WriteImageCommand.self])
  }
}

/// The `write` subcommand of `kind`.
private func writeKindCommand<Kind: MessageKind>(_ kind: Kind.Type) -> any ParsableCommand.Type {
  WriteKindCommand<Kind>.self
}

/// `nfctag write KIND …`: builds the message with the shared ``MessageKind`` grammar and writes it.
struct WriteKindCommand<Kind: MessageKind>: MessageKindCommand {
  @OptionGroup var kind: Kind
  @OptionGroup var readerOptions: ReaderOptions
  @Flag(help: "Add the records after the ones already on the tag.") var append = false
  @Flag(help: "Do not read the message back after writing.") var noVerify = false
  @Flag(help: "Make the tag read-only after writing (permanent: needs --yes).") var lock = false
  @Flag(help: "Confirm a permanent operation (--lock).") var yes = false

  func validate() throws {
    if lock && !yes { throw ValidationError("--lock is permanent: add --yes to confirm.") }
  }

  func run(in context: CommandContext) throws {
    readerOptions.configureConsole(in: context)
    let message = try kind.makeMessage(in: context)
    let (append, verify, lock) = (append, !noVerify, lock)
    let written = try TagSession(options: readerOptions, context: context).withTag { tag -> Int in
      var records = message.records
      if append { records = try decodeTagMessage(try tag.readNDEFBytes()).records + records }
      // No records (`write json` of {"records":[]}): the empty message, as `erase --fast` writes it.
      let bytes = try NDEFMessage(records: records).encodedAllowingEmpty()
      if context.console.isVerbose, let platform = tag.platformType {
        context.console.info("plan: " + writePlanDescription(bytes: bytes.count, platform: platform,
                                                     status: try? tag.queryNDEFStatusReport(), verify: verify))
      }
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
    context.console.notice("wrote \(written) bytes\(noVerify ? "" : ", verified")\(lock ? "; the tag is now read-only" : "")")
  }
}

/// The plan of an NDEF write in words, for --verbose: the bytes, where they go, the tear-safe order.
func writePlanDescription(bytes: Int, platform: TagPlatform, status: NDEFStatusReport?, verify: Bool) -> String {
  var text = "\(bytes)-byte NDEF message onto a \(platform.displayName) tag"
  if let status { text += " (capacity \(status.capacity) bytes)" }
  switch platform {
  case .type1, .type2, .type5:
    let unit = platform == .type1 ? "byte or block" : platform == .type2 ? "page" : "block"
    if let tlv = status?.tlvAddress, platform == .type2 {
      let header = bytes < 255 ? 2 : 4
      text += "; NDEF TLV at byte \(tlv): pages \(tlv / 4)–\((tlv + header + max(bytes, 1) - 1) / 4)"
    }
    text += "; tear-safe: NDEF length 00 first, the changed \(unit)s, then the length"
  case .type3:
    text += "; tear-safe: attribute block with WriteF 0F first, the changed blocks, then WriteF 00 and Ln"
  case .type4:
    // Only a chip whose GetVersion (`-v`'s identification) named it protects a single-frame write (Type4Tag.swift).
    text += "; tear-safe: NLEN 0000 first, the data in chunks, then NLEN (one UPDATE BINARY within one frame on an NTAG 424 DNA named by GetVersion)"
  case .mifareClassic:
    text += "; tear-safe: NDEF TLV length 00 first, the changed blocks (one authentication per sector), then the length"
  }
  return text + (verify ? "; read back after" : "")
}
