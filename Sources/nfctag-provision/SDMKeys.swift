import NFCTagCLI
import NFCTransport
import NTAG424
import ProvisionCommands

/// The SDM keys a verification uses, by role, read from where the options say.
///
/// Keys come from a file's first line or an environment variable, as 32 hex digits; errors name
/// the option and the source, never a digit of the key (nor the source's name when it looks like
/// a key: ``secretSourceName(_:option:)``).
struct SDMKeys {
  /// Where the keys come from: by role, or a master key (NTAG424's ``SUNKeys``).
  typealias Source = SUNKeys

  let source: Source

  /// Reads the keys.
  /// - Throws: 66 for an unreadable key file, 64 for a variable not set, a value that is not
  ///   32 hex digits, or a key given in place of the file or variable name.
  init(_ options: SDMKeyOptions, in context: CommandContext) throws(CLIFailure) {
    if let master = try Self.key(file: options.masterKeyFile, env: options.masterKeyEnv, role: "the master key",
                                 options: ("--master-key-file", "--master-key-env"), in: context) {
      do { source = .master(try SUNMasterKey(master)) } catch {
        throw CLIFailure(.internalError("the meta-read key could not be derived from the master key: \(error)"))
      }
      return
    }
    let meta = try Self.key(file: options.metaKeyFile, env: options.metaKeyEnv, role: "the meta-read key",
                            options: ("--meta-key-file", "--meta-key-env"), in: context)
    let file = try Self.key(file: options.fileKeyFile, env: options.fileKeyEnv, role: "the file-read key",
                            options: ("--file-key-file", "--file-key-env"), in: context)
    if meta == nil { context.console.warning("no SDMMetaRead key given (--meta-key-file or --meta-key-env): using the factory key 00…00") }
    if file == nil { context.console.warning("no SDMFileRead key given (--file-key-file or --file-key-env): using the factory key 00…00") }
    source = .byRole(metaRead: meta ?? .factory, fileRead: file ?? .factory)
  }

  static func key(file: String?, env: String?, role: String, options: (file: String, env: String),
                          in context: CommandContext) throws(CLIFailure) -> AESKey? {
    let text: [UInt8], origin: String
    if let file {
      text = try readSecretInputOrFail(file, option: options.file, alternative: options.env, in: context)
      origin = "\(options.file) \(secretSourceName(file, option: options.file))"
    } else if let env {
      text = Array(try secretVariableOrFail(env, option: options.env, alternative: options.file, what: role, in: context).utf8)
      origin = "\(options.env) \(secretSourceName(env, option: options.env))"
    } else {
      return nil
    }
    var line = Array(text.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? [])
    while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line.removeLast() }
    guard line.count == 32, let bytes = parseHex(String(decoding: line, as: UTF8.self)), let key = try? AESKey(bytes: bytes) else {
      throw CLIFailure(.invalidValue("\(role) (\(origin)) must be 32 hex digits on the first line"))
    }
    return key
  }
}
