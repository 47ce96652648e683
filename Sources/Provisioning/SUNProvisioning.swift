// `provision --sdm-url`: an NTAG 424 DNA per row, keyed from one master key, its SUN URL written
// and verified before the row is done.
import Hex
import NDEF
import NFCSession
import NTAG424
import NTAG424Tag
import ProvisioningLedger

/// The job-wide settings of `provision --sdm-url`: the master key every tag's keys are derived
/// from (``SDMKeyDiversification``, version 1), and whether the NDEF file is locked.
///
/// The master key stays in memory: it is never written to the ledger, an event or an error, and
/// ``AESKey`` never shows its bytes.
public struct SUNProvisioning: Sendable {
  /// The batch's master key.
  public var masterKey: AESKey
  /// `--lock`: the NDEF file readable by anyone and writable by no one (Write and Read&Write
  /// access Fh); only key 0 can change its settings back (Change access 0h).
  public var lock: Bool

  /// The settings of a job: its master key and `--lock`.
  public init(masterKey: AESKey, lock: Bool) {
    self.masterKey = masterKey
    self.lock = lock
  }

  /// The NDEF file's access rights after the set-up (NT4H2421Gx datasheet §8.2.3.3): read free
  /// (phones read the URL without a key); write and read&write with key 0, or never with `--lock`;
  /// change with key 0.
  public var accessRights: AccessRights {
    AccessRights(read: .free, write: lock ? .never : .key(0), readWrite: lock ? .never : .key(0), change: .key(0))
  }

  /// The plan for a rendered URL template (`{picc}`, `{cmac}`… left by ``SUNTemplate``): the NDEF
  /// file and its settings with this job's access rights.
  /// - Throws: ``NTAG424Error`` when the planner refuses the template (``SUNTemplateRule``: only
  ///   what a verifier can check is planned).
  public func plan(url: String) throws -> SDMPlan {
    let (template, fileData) = try SUNTemplate.fileData(in: url)
    return try SDMPlan.plan(template: template, accessRights: accessRights, fileData: fileData)
  }

  /// The URL template of a message rendered from an escaped template (``SUNTemplate/escaping(_:)``):
  /// its one URI record, the SDM placeholders restored.
  public static func urlTemplate(of message: RenderedMessage) throws(SUNTemplateError) -> String {
    guard message.message.records.count == 1, let record = message.message.records.first, let uri = URIRecord(record) else {
      throw SUNTemplateError("the message is not one URI record")
    }
    return SUNTemplate.restoring(uri.uri)
  }
}

/// Why a `--sdm-url` template cannot be used (one line).
public struct SUNTemplateError: Error, Sendable, Equatable, CustomStringConvertible {
  /// What is wrong, one line.
  public let description: String
  /// A failure that says `description`.
  public init(_ description: String) { self.description = description }
}

/// The SDM placeholders of a `--sdm-url` template (`{picc}`, `{cmac}`, `{ctr}`, `{enc:N:COLUMN}`:
/// the ones ``SDMPlan`` fills, and `{ctr}` for the planner to refuse by name) kept through the row
/// template's rendering, which fills `{COLUMN}`, `{uid}` and `{n}` and percent-encodes row values.
///
/// `{enc:N:COLUMN}` is `{enc:N}` whose N/2 characters, encrypted by the tag, are the row's
/// `COLUMN`: escaped as `%7benc:N=` `{COLUMN}` `%7d`, so the rendering fills in the value
/// (percent-encoded), and ``fileData(in:)`` takes it out again for the planner.
///
/// Before parsing, each SDM placeholder becomes its braces percent-encoded in lowercase hex
/// (`%7bpicc%7d`): literal text for ``Template``, valid in a URI, and never what the rendering
/// makes of a row's value, which it encodes in uppercase hex (`{` as `%7B`, `%` as `%25`). After
/// rendering they are restored for the planner. `{uid}` stays the row template's (the tag's UID,
/// written once); the chip's plain UID mirror is not offered here, `{picc}` carries the UID.
public enum SUNTemplate {
  /// The SDM placeholders' names; `enc:` takes digits after it.
  static let names = ["picc", "cmac", "ctr"]

  /// Checks a `--sdm-url` template before any row or tag: NTAG424's ``SUNTemplateRule`` (the
  /// rule `sdm setup` applies) on the template with each row placeholder (`{COLUMN}`, `{uid}`,
  /// `{n}`) standing for a value, which the rendering percent-encodes so it never changes where a
  /// SUN field sits; and `{enc:N}`, whose data would be the same on every tag, refused.
  /// - Throws: ``SUNTemplateError`` saying what is wrong.
  public static func check(_ source: String) throws(SUNTemplateError) -> SUNTemplateParameters {
    var standIn = ""
    var rest = Substring(escaping(source))
    while let open = rest.firstIndex(of: "{") {
      standIn += rest[..<open]
      let after = rest[rest.index(after: open)...]
      if after.hasPrefix("{") { standIn += "{"; rest = after.dropFirst(); continue }
      guard let close = after.firstIndex(of: "}") else { standIn += rest[open...]; rest = ""; break }
      standIn += "x"
      rest = after[after.index(after: close)...]
    }
    let (template, fileData) = try fileData(in: restoring(standIn + rest))
    let parameters: SUNTemplateParameters
    do { parameters = try SUNTemplateRule.check(template) } catch { throw SUNTemplateError(error.description) }
    if parameters.fileData != nil, fileData == nil {
      throw SUNTemplateError("{enc:N} takes its characters from a column of the rows: {enc:N:COLUMN}")
    }
    return parameters
  }

  /// A rendered URL template's `{enc:N=VALUE}` (from `{enc:N:COLUMN}`) as `{enc:N}` and VALUE
  /// percent-decoded, the characters the tag encrypts; the URL unchanged and nil without one.
  public static func fileData(in url: String) throws(SUNTemplateError) -> (template: String, fileData: String?) {
    guard let start = url.range(of: "{enc:"), let equals = url[start.upperBound...].firstIndex(of: "="),
          url[start.upperBound..<equals].allSatisfy({ $0.isASCII && $0.isNumber }),
          let close = url[equals...].firstIndex(of: "}") else {
      return (url, nil)
    }
    guard let value = percentDecoded(url[url.index(after: equals)..<close].utf8).flatMap({ String(validating: $0, as: UTF8.self) }) else {
      throw SUNTemplateError("the data of {enc:N} is not valid percent-encoded UTF-8")
    }
    return (String(url[..<equals]) + url[close...], value)
  }

  /// `source` with each SDM placeholder escaped (`{{…}}` is left alone: a literal brace).
  public static func escaping(_ source: String) -> String {
    var out = ""
    var rest = Substring(source)
    while let open = rest.firstIndex(of: "{") {
      out += rest[..<open]
      let after = rest[rest.index(after: open)...]
      if after.hasPrefix("{") {
        out += "{{"
        rest = after.dropFirst()
        continue
      }
      guard let close = after.firstIndex(of: "}") else { out += rest[open...]; return out }
      let name = after[..<close]
      if names.contains(String(name)) || isEncrypted(name) {
        out += "%7b" + name + "%7d"
      } else if let colon = name.lastIndex(of: ":"), isEncrypted(name[..<colon]), name.index(after: colon) < name.endIndex {
        out += "%7b" + name[..<colon] + "=" + "{" + name[name.index(after: colon)...] + "}" + "%7d"
      } else {
        out += rest[open...close]
      }
      rest = after[after.index(after: close)...]
    }
    return out + rest
  }

  /// A rendered URL with the escaped SDM placeholders back in braces.
  public static func restoring(_ url: String) -> String {
    var out = ""
    var rest = Substring(url)
    while let start = rest.range(of: "%7b") {
      out += rest[..<start.lowerBound]
      let after = rest[start.upperBound...]
      if let end = after.range(of: "%7d"), names.contains(String(after[..<end.lowerBound])) || isEncrypted(after[..<end.lowerBound])
          || isEncryptedWithData(after[..<end.lowerBound]) {
        out += "{" + after[..<end.lowerBound] + "}"
        rest = after[end.upperBound...]
      } else {
        out += rest[start]
        rest = after
      }
    }
    return out + rest
  }

  /// `enc:N=VALUE`: `{enc:N:COLUMN}` rendered.
  private static func isEncryptedWithData(_ name: Substring) -> Bool {
    guard let equals = name.firstIndex(of: "=") else { return false }
    return isEncrypted(name[..<equals])
  }

  private static func isEncrypted(_ name: Substring) -> Bool {
    guard name.hasPrefix("enc:") else { return false }
    let digits = name.dropFirst(4)
    return !digits.isEmpty && digits.allSatisfy { $0.isASCII && $0.isNumber }
  }
}

/// The steps on one NTAG 424 DNA (NT4H2421Gx datasheet §10; the set-up of NXP AN12196 §5.9),
/// 13 exchanges for a factory-fresh tag:
///
/// 1. ISOSelectFile of the NDEF application (1); GetKeyVersion of key 0, which needs no key
///    (§10.6.2, 1): `00` is the factory key, the scheme's version the derived one. A tag that
///    comes back (a resumed row) or whose key 0 is not the factory one has keys 1–4's versions
///    read too (4 more), so each key is changed from the value it holds and a key already
///    changed is left as it is.
/// 2. AuthenticateEV2First with key 0 as its version says (2): never a guess, and never a key
///    that failed on this tag before (the ledger records it, ``LedgerTagProgress``).
/// 3. WriteData of the NDEF file (1, or 3 for a file longer than one frame: tear-safe,
///    ``NTAG424DNA/writeNDEFFile(_:)``); ChangeFileSettings (1), SDM on; the ledger records
///    `written`. With `--lock` on a tag
///    whose file may already be locked (not a fresh one), the settings are first set without the
///    lock so the write is allowed (1 more).
/// 4. ChangeKey of keys 1–4 (4), then of key 0 (1), which ends the session (§10.6.1). ChangeKey
///    changes a key and its version together, so a removal part-way leaves each key either old
///    with version 00 or new with the scheme's version: what step 1 reads on the next tap. The
///    ledger records `keys 4/5` before key 0 changes.
/// 5. ISOSelectFile again (1) and one ReadData without a key (1): the tag fills the mirrors (§9.3);
///    the URL is verified with ``SUNVerification`` and the master key alone, as a verifier does.
struct SUNTagSteps {
  let job: SUNProvisioning
  let tag: NTAG424DNA
  let uid: [UInt8]
  /// What the ledger recorded of this tag before (a resumed row), nil for none.
  let previous: LedgerTagProgress?
  /// Records a step in the ledger (the row bound to this tag): written, keys 4/5, a failed key.
  let record: (LedgerTagProgress) throws -> Void

  /// What the steps did, for the ledger and the failure's class.
  struct Progress {
    /// The tag was authenticated or refused a key (which it counts): from here on the row stays
    /// bound to it on a failure, never given back.
    var touched = false
  }

  /// Runs the steps for the URL template `template` (row placeholders filled, SDM ones left);
  /// `resuming` when the ledger bound this row to the tag before. Returns the plan written and the
  /// SUN the read-back produced.
  func run(template: String, resuming: Bool, progress: inout Progress) throws -> (plan: SDMPlan, message: SUNMessage, done: LedgerTagProgress) {
    let plan = try job.plan(url: template)
    let keys = try SDMKeyDiversification.applicationKeys(master: job.masterKey, uid: uid)
    let derived = SDMKeyDiversification.keyVersion
    let file = NativeCommand.ndefFile
    try tag.selectApplication()
    let version0 = try tag.keyVersion(keyNumber: 0)
    var versions: [UInt8] = [version0, 0, 0, 0, 0]
    if resuming || version0 != 0 {
      for number in UInt8(1)...4 { versions[Int(number)] = try tag.keyVersion(keyNumber: number) }
    }
    for (number, version) in versions.enumerated() where version != 0 && version != derived {
      throw ProvisioningFailure(.security, "key \(number) has version \(Self.hex(version)): neither the factory key (00) nor one of this job's (\(Self.hex(derived))); the run does not guess a key")
    }
    func state(_ step: String, failed: [String] = []) -> LedgerTagProgress {
      LedgerTagProgress(step: step, keyVersions: versions.map(Int.init), diversificationVersion: SDMKeyDiversification.version,
                        failedAuthentications: (previous?.failedAuthentications ?? []) + failed)
    }
    // A key that failed on this tag is not tried again: each failure counts towards the tag's
    // limit (TotFailCtr, datasheet §10.5.1), and the same key would fail the same way.
    let key0 = "key 0 version \(Self.hex(version0))"
    if previous?.failedAuthentications.contains(key0) == true {
      throw ProvisioningFailure(.security, "\(key0) failed to authenticate on this tag before: not tried again (each failure counts towards the tag's limit); check the tag, then release its row with `ledger release`")
    }
    for number in UInt8(1)...4 where versions[Int(number)] == 0 && previous?.failedAuthentications.contains(Self.notFactory(number)) == true {
      throw ProvisioningFailure(.security, "key \(number) has version 00 but was not the factory key on this tag before: not tried again (the run does not guess a key); check the tag, then release its row with `ledger release`")
    }
    do {
      try tag.authenticate(keyNumber: 0, key: version0 == 0 ? .factory : keys[0])
    } catch {
      guard Self.isRefusedKey(error) else { throw error }
      // The tag counted a failure: the row stays bound to it, with the key that failed.
      progress.touched = true
      try record(state(previous?.step ?? "claimed", failed: [key0]))
      throw error
    }
    progress.touched = true
    if job.lock, resuming || version0 != 0 {
      let open = SUNProvisioning(masterKey: job.masterKey, lock: false)
      let unlocked = try open.plan(url: template)
      try tag.changeFileSettings(file: file, to: unlocked.settings)
    }
    try tag.writeNDEFFile(plan.ndefFile)
    try tag.changeFileSettings(file: file, to: plan.settings)
    try record(state("written"))
    for number in UInt8(1)...4 where versions[Int(number)] == 0 {
      // A key at version 00 that is not the factory key (ChangeKey answered 91 1E, §10.6.1) is
      // recorded and never sent the factory value again: it would fail the same way.
      do {
        try tag.changeKey(keyNumber: number, to: keys[Int(number)], version: derived, oldKey: .factory)
      } catch {
        if case .oldKeyMismatch = error { try record(state("written", failed: [Self.notFactory(number)])) }
        throw error
      }
      versions[Int(number)] = derived
    }
    try record(state("keys \(versions.filter { $0 == derived }.count)/5"))
    if version0 == 0 {
      try tag.changeKey(keyNumber: 0, to: keys[0], version: derived)
      versions[0] = derived
    }
    try tag.selectApplication()
    let back = try tag.readData(file: file, offset: 0, length: plan.ndefFile.count, mode: .plain)
    let message = try Self.verify(back, of: plan, master: job.masterKey, uid: uid)
    var done = state("done")
    done.counterBaseline = message.readCounter.map(Int.init)
    return (plan, message, done)
  }

  /// The ledger's note of a key at version 00 that is not the factory key (ChangeKey of it with
  /// the factory value answered `91 1E`): that value is never sent to the tag again.
  static func notFactory(_ number: UInt8) -> String { "key \(number) version 00 (not the factory key)" }

  /// A key version as two hex digits (`01`).
  static func hex(_ version: UInt8) -> String {
    let digits = String(version, radix: 16)
    return digits.count == 1 ? "0" + digits : digits
  }

  /// True when the tag refused the key of an AuthenticateEV2First (`91 AE`, or an answer that
  /// does not prove the key): the tag counted a failed authentication.
  static func isRefusedKey(_ error: any Error) -> Bool {
    guard case .tag(let cause, _)? = error as? NTAG424DNAError else { return false }
    switch cause {
    case .authenticationFailed, .status(_, 0x91, 0xAE): return true
    default: return false
    }
  }

  /// The read-back's URL verified with the master key by the verifier's own code; its UID must
  /// be the tag's.
  static func verify(_ back: [UInt8], of plan: SDMPlan, master: AESKey, uid: [UInt8]) throws -> SUNMessage {
    func failure(_ why: String) -> ProvisioningFailure {
      ProvisioningFailure(.verification, "the URL read back does not verify with the keys derived from the master key: \(why)")
    }
    let url: String
    do { url = try plan.url(inReadBack: back) } catch { throw failure(error.description) }
    guard let layout = plan.urlLayout else { throw failure("the plan has no SUN") }
    let message: SUNMessage
    do {
      let sun = try SUNURL(parsing: url, layout: layout)
      let keys = SUNKeys.master(try SUNMasterKey(master))
      do { message = try SUNVerification.verify(sun, keys: keys) } catch {
        throw failure(SUNVerification.reason(for: error, sun: sun, keys: keys))
      }
    } catch let failure as ProvisioningFailure {
      throw failure
    } catch {
      throw failure("\(error)")
    }
    guard message.uid == uid else {
      throw failure("it holds UID \(message.uid.map { hexString($0) } ?? "none"), not the tag's \(hexString(uid))")
    }
    return message
  }
}
