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
    do throws(SUNURLError) {
      sun = try SUNURL(parsing: url, piccDataParameter: parameters.piccParam, macParameter: parameters.macParam,
                       fileDataParameter: parameters.encParam)
    } catch .lrpMode(let parameter) {
      throw rejection(SUNURLError.lrpMode(parameter: parameter).description, in: context)
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
    return CLIFailure(.notAuthentic(sanitizeLine(reason)))
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
