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
  func perform(in context: CommandContext) throws {
    context.console.configure(quiet: reader.quiet, verbose: reader.verbose)
    let number = UInt8(key), newVersion = UInt8(version)
    guard let newKey = try SDMKeys.key(file: newKeyFile, env: newKeyEnv, role: "the new key",
                                       options: ("--new-key-file", "--new-key-env"), in: context) else {
      throw CLIFailure(ExitStatus.usage, "give the new key with --new-key-file or --new-key-env")
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
    let outcome = try NTAG424TagSession(options: reader, context: context).run { tag, _ in
      try tag.selectApplication()
      try tag.authenticate(keyNumber: 0, key: authKey)
      try tag.changeKey(keyNumber: number, to: newKey, version: newVersion, oldKey: previous)
      return try tag.keyVersion(keyNumber: number)
    }
    context.console.info("exchanges: \(outcome.exchanges)")
    guard outcome.value == newVersion else {
      throw CLIFailure(ExitStatus.ioError, "key \(number) was changed, but the tag reports version \(hexString([outcome.value])), not \(hexString([newVersion])): check it with `nfctag keys versions`")
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
