import NFCTagCLI
import NFCTransport
import NTAG424
import NTAG424Tag
import ProvisionCommands

extension KeysCommand.Versions: PerformedCommand {
  /// ISOSelectFile of the application, then GetKeyVersion of keys 0–4 in Plain (NT4H2421Gx
  /// datasheet §10.6.2: no authentication needed).
  func perform(in context: CommandContext) throws {
    context.console.configure(quiet: reader.quiet, verbose: reader.verbose)
    let outcome = try NTAG424TagSession(options: reader, context: context).run { tag, _ in
      try tag.selectApplication()
      return try (0...4).map { (n: UInt8) throws(NTAG424DNAError) -> UInt8 in try tag.keyVersion(keyNumber: n) }
    }
    context.console.info("exchanges: \(outcome.exchanges)")
    let output = StandardOutput(context.output)
    if json {
      let keys = outcome.value.enumerated().map { key in
        var o = JSONObjectWriter()
        o.number("key", key.offset)
        o.number("version", Int(key.element))
        return o.finish()
      }
      var o = JSONObjectWriter()
      o.string("uid", hexString(outcome.uid))
      o.array("keys", keys)
      output.write(o.finish() + "\n")
    } else {
      output.write(outcome.value.enumerated().map { "key \($0.offset): version \(hexString([$0.element]))" }
        .joined(separator: "\n") + "\n")
    }
    output.flush()
  }
}

extension KeysCommand.Change: PerformedCommand {
  /// ISOSelectFile, AuthenticateEV2First with key 0, ChangeKey (NT4H2421Gx datasheet §10.6.1;
  /// for keys 1–4 the new key XOR the old one with the new key's CRC32, for key 0 the new key,
  /// which ends the session), then GetKeyVersion in Plain to check the version the tag now holds.
  /// Three steps: the keys read (``oneKeyChange(in:)``), the change on the tag, the version
  /// checked and printed (``report(_:key:version:in:)``). `--all`: ``performAll(in:)``.
  func perform(in context: CommandContext) throws {
    context.console.configure(quiet: reader.quiet, verbose: reader.verbose)
    if all { return try performAll(in: context) }
    let change = try oneKeyChange(in: context)
    let outcome = try NTAG424TagSession(options: reader, context: context).run { tag, _ in
      try tag.selectApplication()
      try tag.authenticate(keyNumber: 0, key: change.authKey)
      try tag.changeKey(keyNumber: change.number, to: change.newKey, version: change.version, oldKey: change.oldKey)
      return try tag.keyVersion(keyNumber: change.number)
    }
    try report(outcome, key: change.number, version: change.version, in: context)
  }

  /// One key's change, its keys read before the tag is looked for: the new key, and the key it
  /// replaces (key 0's is the authentication key; keys 1–4 the factory key when not given, with a
  /// warning).
  struct OneKeyChange: Sendable {
    let number: UInt8, version: UInt8
    let newKey: AESKey, oldKey: AESKey, authKey: AESKey
  }

  /// `--key`'s change: the new key, the old key and key 0 from their files or variables.
  private func oneKeyChange(in context: CommandContext) throws -> OneKeyChange {
    guard let key else { throw CLIFailure(.invalidCommandLine("give the key to change with --key N, or --all")) }
    let number = UInt8(key), newVersion = UInt8(version)
    guard let newKey = try SDMKeys.key(file: newKeyFile, env: newKeyEnv, role: "the new key",
                                       options: ("--new-key-file", "--new-key-env"), in: context) else {
      throw CLIFailure(.invalidCommandLine("give the new key with --new-key-file or --new-key-env"))
    }
    let oldKey = try SDMKeys.key(file: oldKeyFile, env: oldKeyEnv, role: "the old key",
                                 options: ("--old-key-file", "--old-key-env"), in: context)
    let authKey: AESKey
    if number == 0, let oldKey {
      authKey = oldKey
    } else {
      authKey = try NTAG424Keys.authKey(auth, in: context)
    }
    if number != 0, oldKey == nil {
      context.console.warning("no current value of key \(number) given (--old-key-file or --old-key-env): using the factory key 00…00")
    }
    let previous = number == 0 ? authKey : (oldKey ?? .factory)
    return OneKeyChange(number: number, version: newVersion, newKey: newKey, oldKey: previous, authKey: authKey)
  }

  /// The version the tag reports after the change, checked (74 when it is not the new one), then
  /// the change printed.
  private func report(_ outcome: NTAG424TagSession.Outcome<UInt8>, key number: UInt8, version newVersion: UInt8,
                      in context: CommandContext) throws {
    context.console.info("exchanges: \(outcome.exchanges)")
    guard outcome.value == newVersion else {
      throw CLIFailure(.readBackMismatch("key \(number) was changed, but the tag reports version \(hexString([outcome.value])), not \(hexString([newVersion])): check it with `nfctag keys versions`"))
    }
    let output = StandardOutput(context.output)
    if json {
      var o = JSONObjectWriter()
      o.number("key", Int(number))
      o.number("version", Int(newVersion))
      o.number("exchanges", outcome.exchanges)
      output.write(o.finish() + "\n")
    } else {
      output.write("key \(number) changed: version \(hexString([newVersion]))\n")
    }
    output.flush()
  }
}

extension KeysCommand.Change {
  /// `--all`: the five keys in one session (NT4H2421Gx datasheet §10.6.1): ISOSelectFile,
  /// AuthenticateEV2First with key 0, ChangeKey of keys 1–4 (each answer's MAC checked: the tag
  /// took the key), then ChangeKey of key 0, whose plain `91 00` ends the session. 8 exchanges:
  /// no version is read back, since each ChangeKey's answer already says the tag took it (a
  /// read-back would add five). Keys 1–4 first: a removal before key 0 leaves key 0 as it was, so
  /// the tag can always be authenticated with one of the two key 0 values; `keys versions` tells
  /// which keys changed (each holds the old version or the new one, with its key).
  func performAll(in context: CommandContext) throws {
    let newVersion = UInt8(version)
    let (newKeys, current) = try allKeys(in: context)
    let console = context.console
    let outcome = try NTAG424TagSession(options: reader, context: context).run { tag, _ in
      try tag.selectApplication()
      try tag.authenticate(keyNumber: 0, key: current[0])
      for n in 1...4 {
        try tag.changeKey(keyNumber: UInt8(n), to: newKeys[n], version: newVersion, oldKey: current[n])
        console.info("key \(n) changed")
      }
      try tag.changeKey(keyNumber: 0, to: newKeys[0], version: newVersion, oldKey: current[0])
      console.info("key 0 changed")
    }
    context.console.info("exchanges: \(outcome.exchanges)")
    let output = StandardOutput(context.output)
    if json {
      var o = JSONObjectWriter()
      o.array("keys", (0...4).map { n in
        var k = JSONObjectWriter()
        k.number("key", n)
        k.number("version", Int(newVersion))
        return k.finish()
      })
      o.number("exchanges", outcome.exchanges)
      output.write(o.finish() + "\n")
    } else {
      output.write("keys 0-4 changed: version \(hexString([newVersion]))\n")
    }
    output.flush()
  }

  /// `--all`'s keys, read before the tag is looked for: the five new ones, and the five current
  /// ones (`--old-keys-*`, or key 0 from `--auth-key-*` and the factory key for keys 1–4, with a
  /// warning).
  private func allKeys(in context: CommandContext) throws(CLIFailure) -> (new: [AESKey], current: [AESKey]) {
    guard let newKeys = try NTAG424Keys.five(file: newKeysFile, env: newKeysEnv, role: "the new keys",
                                             options: ("--new-keys-file", "--new-keys-env"), in: context) else {
      throw CLIFailure(.invalidCommandLine("--all needs the new keys: --new-keys-file or --new-keys-env"))
    }
    let current: [AESKey]
    if let old = try NTAG424Keys.five(file: oldKeysFile, env: oldKeysEnv, role: "the current keys",
                                      options: ("--old-keys-file", "--old-keys-env"), in: context) {
      current = old
    } else {
      let authKey = try NTAG424Keys.authKey(auth, in: context)
      context.console.warning("no current values of keys 1-4 given (--old-keys-file or --old-keys-env): using the factory key 00…00")
      current = [authKey, .factory, .factory, .factory, .factory]
    }
    return (newKeys, current)
  }
}

extension NTAG424Keys {
  /// Keys 0–4 from one place: the first five lines of a file (key 0 first), or the variables
  /// PREFIX0 to PREFIX4; nil when neither is given. A line or variable that is not 32 hex digits
  /// is refused (64) with where it is, never what it holds.
  static func five(file: String?, env prefix: String?, role: String, options: (file: String, env: String),
                   in context: CommandContext) throws(CLIFailure) -> [AESKey]? {
    if let prefix {
      return try (0...4).map { (n: Int) throws(CLIFailure) -> AESKey in
        guard let key = try SDMKeys.key(file: nil, env: "\(prefix)\(n)", role: "key \(n) of \(role)",
                                        options: (options.file, options.env), in: context) else {
          throw CLIFailure(.internalError("no key read"))
        }
        return key
      }
    }
    guard let file else { return nil }
    let text = try readSecretInputOrFail(file, option: options.file, alternative: options.env, in: context)
    let lines = text.split(separator: 0x0A, omittingEmptySubsequences: false)
    return try (0...4).map { (n: Int) throws(CLIFailure) -> AESKey in
      var line = lines.indices.contains(n) ? Array(lines[n]) : []
      while let last = line.last, last == 0x0D || last == 0x20 || last == 0x09 { line.removeLast() }
      guard line.count == 32, let bytes = parseHex(String(decoding: line, as: UTF8.self)), let key = try? AESKey(bytes: bytes) else {
        throw CLIFailure(.invalidValue("\(role) (\(options.file) \(secretSourceName(file, option: options.file))): line \(n + 1), key \(n), must be 32 hex digits"))
      }
      return key
    }
  }
}

extension KeysCommand.LockNDEFFile: PerformedCommand {
  /// `NTAG424DNA.lockNDEFFile(changeKey:)`: GetFileSettings, AuthenticateEV2First with the key
  /// the Change right names (key 0 as shipped: `--auth-key-file`/`--auth-key-env`, else the factory
  /// key with a warning) before anything is written, ChangeFileSettings with Write, Read&Write and
  /// Change never (NT4H2421Gx datasheet §10.7.1, §8.2.3.3), then the settings read back.
  func perform(in context: CommandContext) throws {
    context.console.configure(quiet: reader.quiet, verbose: reader.verbose)
    let key = try NTAG424Keys.authKey(auth, in: context)
    let outcome = try NTAG424TagSession(options: reader, context: context).run { tag, _ in
      try tag.lockNDEFFile(changeKey: key)
    }
    context.console.info("exchanges: \(outcome.exchanges)")
    switch outcome.value {
    case .alreadyLocked: context.console.notice("the tag is already read-only")
    case .locked: context.console.notice("the tag is now read-only")
    case .notVerified(let readBack):
      throw CLIFailure(.readBackMismatch("the NDEF file's settings were changed, but they read back with access rights "
                                         + "\(hexString(readBack.bytes)), not Write, Read&Write and Change never: check them with `nfctag info`"))
    }
  }
}
