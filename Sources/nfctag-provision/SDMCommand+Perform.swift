import NFCTagCLI
import NFCTransport
import NTAG424
import ProvisionCommands

extension SDMCommand.Verify: PerformedCommand {
  /// Verifies the URL; prints what it holds (0), or why it is not authentic (65).
  func perform(in context: CommandContext) throws {
    context.console.configure(quiet: quiet, verbose: false)
    let keys = try SDMKeys(self.keys, in: context)
    let sun: SUNURL
    do {
      sun = try SUNURL(parsing: url, piccDataParameter: piccParam, macParameter: macParam, fileDataParameter: encParam)
    } catch {
      throw rejection("not a SUN URL: \(error)", in: context)
    }
    let message: SUNMessage
    do {
      message = try SUNVerification.verify(sun, keys: keys.source)
    } catch {
      throw rejection("not authentic: \(SUNVerification.reason(for: error, sun: sun, keys: keys.source))", in: context)
    }
    if let counterStore {
      guard let uid = message.uid, let counter = message.readCounter else {
        throw rejection("the URL carries no UID and counter, so --counter-store cannot tell a replay", in: context)
      }
      if let last = try CounterStore(path: counterStore).accept(uid: hexString(uid), counter: counter) {
        throw rejection("replayed: counter \(counter) is not above \(last), the last one accepted for UID \(hexString(uid))",
                        in: context)
      }
    }
    let output = StandardOutput(context.output)
    output.write(json ? Self.json(message) + "\n" : Self.text(message))
    output.flush()
  }

  /// 65 with `reason`; with --json, the same reason as an object on standard output first.
  private func rejection(_ reason: String, in context: CommandContext) -> CLIFailure {
    if json {
      var o = JSONObjectWriter()
      o.bool("authentic", false)
      o.string("reason", reason)
      let output = StandardOutput(context.output)
      output.write(o.finish() + "\n")
      output.flush()
    }
    return CLIFailure(ExitStatus.dataError, sanitizeLine(reason))
  }

  static func text(_ message: SUNMessage) -> String {
    var lines = ["authentic"]
    if let uid = message.uid { lines.append("uid:       \(hexString(uid))") }
    if let counter = message.readCounter { lines.append("counter:   \(counter)") }
    if let data = message.fileData {
      let printable = data.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
      lines.append("file data: \(hexString(data))" + (printable ? " (\"\(String(decoding: data, as: UTF8.self))\")" : ""))
    }
    return lines.joined(separator: "\n") + "\n"
  }

  static func json(_ message: SUNMessage) -> String {
    var o = JSONObjectWriter()
    o.bool("authentic", true)
    if let uid = message.uid { o.string("uid", hexString(uid)) }
    if let counter = message.readCounter { o.number("counter", Int(counter)) }
    if let data = message.fileData { o.string("fileData", hexString(data)) }
    return o.finish()
  }
}

/// A SUN URL checked with keys from a ``SDMKeys/Source``, and the reason a failure gets.
enum SUNVerification {
  /// Verifies `sun`: with a master key, PICCData first (the meta-read key does not depend on the
  /// UID), then the file-read key of that UID (docs/ntag424.md).
  static func verify(_ sun: SUNURL, keys: SDMKeys.Source) throws(NTAG424Error) -> SUNMessage {
    let (meta, file) = try roleKeys(for: sun, keys: keys)
    return try SecureDynamicMessaging.verify(
      encryptedPICCData: sun.encryptedPICCData, sdmMAC: sun.sdmMAC, macInput: sun.macInput,
      encryptedFileData: sun.encryptedFileData, metaReadKey: meta, fileReadKey: file)
  }

  private static func roleKeys(for sun: SUNURL, keys: SDMKeys.Source) throws(NTAG424Error) -> (AESKey, AESKey) {
    switch keys {
    case .byRole(let meta, let file):
      return (meta, file)
    case .master(let master):
      let meta = try SDMKeyDiversification.metaReadKey(master: master)
      let picc = try PICCData(decrypting: sun.encryptedPICCData, metaReadKey: meta)
      guard let uid = picc.uid else { throw .invalidPICCData }
      return (meta, try SDMKeyDiversification.fileReadKey(master: master, uid: uid))
    }
  }

  /// Why verification failed, in a few words: bad PICCData, bad CMAC, or the keys given in each
  /// other's roles when the URL verifies with them swapped (or with one key in both roles).
  static func reason(for error: NTAG424Error, sun: SUNURL, keys: SDMKeys.Source) -> String {
    if case .byRole(let meta, let file) = keys {
      let swapped = [(file, meta, "the meta-read and file-read keys are swapped"),
                     (meta, meta, "the CMAC verifies with the meta-read key, so the tag's file-read key is the one given as meta-read key"),
                     (file, file, "PICCData decrypts with the file-read key, so the tag's meta-read key is the one given as file-read key")]
      for (metaKey, fileKey, what) in swapped {
        if (try? verify(sun, keys: .byRole(metaRead: metaKey, fileRead: fileKey))) != nil { return "wrong key role: \(what)" }
      }
    }
    switch error {
    case .invalidPICCData:
      return "bad PICCData: it does not decrypt with the meta-read key (another key, or the parameter was altered)"
    case .sdmMACMismatch:
      return "bad CMAC: the message was altered, or the file-read key is not the tag's"
    default:
      return "\(error)"
    }
  }
}
