import DESFire
import NFCSession
import NFCTagCLI
import NFCTransport
import NTAG424
import NTAG424Tag
import ProvisionCommands

extension SDMCommand.Setup: PerformedCommand {
  /// Checks the template (NTAG424's `SUNTemplateRule`: only what `sdm verify` and `sdm serve`
  /// can check) and plans the NDEF file and its settings before anything else (64: the tag
  /// untouched), identifies the chip (GetVersion: a MIFARE DESFire EV3 takes
  /// ``writeDESFire(template:fileData:on:key:console:)``, another DESFire is refused, 64), writes
  /// them with key 0, reads the file back as a phone does and verifies the SUN it holds; prints done (0). The steps: the plan, the keys, ``write(_:on:authKey:console:)``
  /// on the tag, ``check(_:of:keys:uid:)`` of what it produced, ``report(_:plan:exchanges:in:)``.
  func perform(in context: CommandContext) throws {
    context.console.configure(quiet: reader.quiet, verbose: reader.verbose)
    let plan: SDMPlan
    let data: String?
    do {
      let parameters = try SUNTemplateRule.check(url)
      data = try fileData(for: parameters, in: context)
      plan = try SDMPlan.plan(template: url, fileData: data)
    } catch let error as NTAG424Error {
      throw CLIFailure(.invalidValue(sanitizeLine("--url: \(error)")))
    }
    let keys = try NTAG424Keys.sdmRoles(keys, in: context)
    // Key 0 read once: the 424 DNA's (AESKey) or a DESFire EV3 NDEF application's (SDMCommand+SetupDESFire.swift).
    let keyBytes = try Self.authKeyBytes(auth, in: context)
    guard let authKey = try? AESKey(bytes: keyBytes), let desfireKey = try? DESFireKeyMaterial(.aes, keyBytes) else {
      throw CLIFailure(.internalError("key 0 is not 16 bytes"))
    }
    let console = context.console
    let template = url
    let outcome = try NTAG424TagSession(options: reader, context: context).run { tag, shownUID -> ([UInt8], [UInt8]?) in
      // GetVersion names the chip: a DESFire takes the DESFire path (an EV3, a Light) or is
      // refused before anything is written; any other tag the 424 DNA's.
      if case .desfire(let version) = try Self.identify(on: tag.link) {
        if let refusal = Self.refusal(of: version) { throw refusal }
        console.info(version.isLight ? "a MIFARE DESFire Light: its NDEF file E104h" : "a MIFARE DESFire EV3: its NDEF application")
        let written = try Self.writeDESFire(template: template, fileData: data, on: tag.link, light: version.isLight,
                                            shownUID: shownUID, key: desfireKey, console: console)  // SDMCommand+SetupDESFire.swift
        return (written.readBack, written.realUID)
      }
      return (try Self.write(plan, on: tag, authKey: authKey, console: console), nil)
    }
    let readBack = outcome.value.0
    console.info("exchanges: \(outcome.exchanges)")
    // A DESFire showing a random ID: the real UID (GetCardUID), the one the SUN mirrors.
    let result = try Self.check(readBack, of: plan, keys: keys, uid: outcome.value.1 ?? outcome.uid)
    report(result, plan: plan, exchanges: outcome.exchanges, in: context)
  }

  /// Prints what the tag produced: done, its URL, UID and counter, and the `sdm verify` options
  /// its parameters need (one JSON object with `--json`).
  private func report(_ result: (url: String, message: SUNMessage?), plan: SDMPlan, exchanges: Int, in context: CommandContext) {
    let output = StandardOutput(context.output)
    if json {
      var o = JSONObjectWriter()
      o.bool("done", true)
      o.string("url", result.url)
      if let uid = result.message?.uid { o.string("uid", hexString(uid)) }
      if let counter = result.message?.readCounter { o.number("counter", Int(counter)) }
      o.bool("verified", result.message != nil)
      o.number("exchanges", exchanges)
      output.write(o.finish() + "\n")
    } else {
      var lines = ["done: the tag produced an authentic SUN URL", "url:       \(result.url)"]
      if let uid = result.message?.uid { lines.append("uid:       \(hexString(uid))") }
      if let counter = result.message?.readCounter { lines.append("counter:   \(counter)") }
      if let options = Self.parameterOptions(plan.parameters) { lines.append("verify:    nfctag sdm verify URL \(options)") }
      output.write(lines.joined(separator: "\n") + "\n")
    }
    output.flush()
  }

  /// `--enc-data-file`'s first line, the characters `{enc:N}` encrypts: required with `{enc:N}`
  /// (64 without), refused without it (64); 66 when the file cannot be read. Never printed.
  func fileData(for parameters: SUNTemplateParameters, in context: CommandContext) throws(CLIFailure) -> String? {
    guard let digits = parameters.fileDataDigits else {
      if encDataFile != nil { throw CLIFailure(.invalidCommandLine("--enc-data-file goes with an {enc:N} placeholder in --url")) }
      return nil
    }
    guard let encDataFile else {
      throw CLIFailure(.invalidCommandLine("--url has {enc:\(digits)}: give the \(digits / 2) characters it encrypts with --enc-data-file (its first line)"))
    }
    let bytes = try readInputOrFail(encDataFile, in: context)
    var line = Array(bytes.split(separator: 0x0A, maxSplits: 1, omittingEmptySubsequences: false).first ?? [])
    if line.last == 0x0D { line.removeLast() }
    return String(decoding: line, as: UTF8.self)
  }

  /// The `sdm verify` / `sdm serve` options that name the template's parameters, nil when they
  /// are the defaults (`p`, `c`, `enc`).
  static func parameterOptions(_ parameters: SUNTemplateParameters) -> String? {
    var options: [String] = []
    if parameters.piccData != "p" { options.append("--picc-param \(parameters.piccData)") }
    if parameters.mac != "c" { options.append("--mac-param \(parameters.mac)") }
    if let enc = parameters.fileData, enc != "enc" { options.append("--enc-param \(enc)") }
    return options.isEmpty ? nil : options.joined(separator: " ")
  }

  /// The steps on the tag (NT4H2421Gx datasheet §10; the sequence of NXP AN12196 §5.9):
  /// 1. ISOSelectFile of the NDEF application; AuthenticateEV2First with key 0 (2 exchanges).
  /// 2. WriteData of the NDEF file. The tag protects a WriteData sent in one frame against
  ///    tearing (datasheet §8.2.3.1, StandardData file, and §10.8.2, WriteData: "tearing protection
  ///    for data that is sent within one communication frame"; only a chained write can leave a
  ///    mix). So a file whose WriteData fits one ISO/IEC 14443-4 frame (``singleFrameWrite``) goes
  ///    in one command, NLEN and message together: a removal leaves the old file or the new one,
  ///    never a mix. A longer file, chained by the link, keeps the architecture's tear-safe
  ///    order: NLEN zeroed, the message, then NLEN, so that a removal in between leaves an empty
  ///    file, never a length over bytes of another message. The file's CommMode is Plain (as
  ///    shipped, and as the plan sets it); the session's CmdCtr still counts the writes.
  /// 3. ChangeFileSettings in CommMode.Full (§10.7.1).
  /// 4. ISOSelectFile of the application again, which ends the authentication (§10.9.1), then
  ///    ReadData in Plain: an unauthenticated read, on which SDM fills in the mirrors and the
  ///    counter rises (§9.3), as a phone's ISOReadBinary does.
  /// Returns the file as read.
  static func write(_ plan: SDMPlan, on tag: NTAG424DNA, authKey: AESKey, console: Console) throws -> [UInt8] {
    let file = NativeCommand.ndefFile
    try tag.selectApplication()
    try tag.authenticate(keyNumber: 0, key: authKey)
    console.info("authenticated with key 0")
    if try tag.writeNDEFFile(plan.ndefFile) == 1 {
      console.info("wrote the NDEF file (\(plan.ndefFile.count) bytes) in one frame")
    } else {
      console.info("wrote the NDEF file (\(plan.ndefFile.count) bytes): NLEN zeroed, the message, NLEN")
    }
    try tag.changeFileSettings(file: file, to: plan.settings)
    console.info("changed the NDEF file's settings: SDM on")
    try tag.selectApplication()
    return try tag.readData(file: file, offset: 0, length: plan.ndefFile.count, mode: .plain)
  }

  /// The most bytes one Plain WriteData carries in a single frame (``NTAG424DNA/singleFrameWrite``).
  static let singleFrameWrite = NTAG424DNA.singleFrameWrite

  /// The read-back's URL and the SUN it holds, verified with the verifier's own code
  /// (``SUNVerification``).
  static func check(_ bytes: [UInt8], of plan: SDMPlan, keys: SDMKeys.Source,
                    uid: [UInt8]) throws(CLIFailure) -> (url: String, message: SUNMessage?) {
    func fail(_ why: String) -> CLIFailure {
      CLIFailure(.readBackMismatch(sanitizeLine("the read-back does not hold the SUN URL: \(why); the tag is set up, check it with `nfctag read` and `nfctag sdm verify`")))
    }
    let url: String
    do { url = try plan.url(inReadBack: bytes) } catch { throw fail(error.description) }
    guard let layout = plan.urlLayout else { throw fail("the plan has no SUN fields") }
    let message: SUNMessage
    do {
      let sun = try SUNURL(parsing: url, layout: layout)
      message = try SUNVerification.verify(sun, keys: keys)
    } catch {
      let reason: String
      if let error = error as? NTAG424Error, let sun = try? SUNURL(parsing: url, layout: layout) {
        reason = SUNVerification.reason(for: error, sun: sun, keys: keys)
      } else {
        reason = "\(error)"
      }
      throw CLIFailure(.notAuthentic(sanitizeLine(
        "the tag is set up, but the URL it produced does not verify with the keys given: \(reason) (--meta-key-* is key 2's value, --file-key-* key 1's)")))
    }
    if let mirrored = message.uid, mirrored != uid {
      throw CLIFailure(.notAuthentic("the URL the tag produced holds UID \(hexString(mirrored)), not the tag's \(hexString(uid))"))
    }
    return (url, message)
  }
}

/// The keys of the 424 DNA commands, from files or environment variables (``SDMKeys/key(file:env:role:options:in:)``).
enum NTAG424Keys {
  /// The SDM keys `sdm setup` verifies with; the factory key for a role not given, with a warning.
  static func sdmRoles(_ options: SDMRoleKeyOptions, in context: CommandContext) throws(CLIFailure) -> SDMKeys.Source {
    let meta = try SDMKeys.key(file: options.metaKeyFile, env: options.metaKeyEnv, role: "the meta-read key",
                               options: ("--meta-key-file", "--meta-key-env"), in: context)
    let file = try SDMKeys.key(file: options.fileKeyFile, env: options.fileKeyEnv, role: "the file-read key",
                               options: ("--file-key-file", "--file-key-env"), in: context)
    if meta == nil { context.console.warning("no SDMMetaRead key given (--meta-key-file or --meta-key-env): using the factory key 00…00") }
    if file == nil { context.console.warning("no SDMFileRead key given (--file-key-file or --file-key-env): using the factory key 00…00") }
    return .byRole(metaRead: meta ?? .factory, fileRead: file ?? .factory)
  }

  /// Key 0, the key that authorises the change; the factory key when not given, with a warning.
  static func authKey(_ options: NTAG424AuthKeyOptions, in context: CommandContext) throws(CLIFailure) -> AESKey {
    if let key = try SDMKeys.key(file: options.authKeyFile, env: options.authKeyEnv, role: "key 0",
                                 options: ("--auth-key-file", "--auth-key-env"), in: context) {
      return key
    }
    context.console.warning("no key 0 given (--auth-key-file or --auth-key-env): authenticating with the factory key 00…00")
    return .factory
  }
}
