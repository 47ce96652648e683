// `provision` onto a MIFARE DESFire: the card's real UID first (the row is claimed by it), then
// AN11004's NDEF application, the row's message, and the two keys, each step in the ledger.
import DESFire
import DESFireTag
import Hex
import NFCSession
import NFCTags
import ProvisioningLedger

/// What the steps learnt of a DESFire before a row was claimed for it.
struct DESFireIdentity: Sendable {
  /// GetCardUID's UID: the card's identity (a random ID is not).
  var uid: [UInt8]
  /// GetVersion's answer.
  var version: DESFireVersionInfo
  /// The PICC master key's version as GetKeyVersion read it.
  var piccVersion: UInt8
}

/// The steps on one MIFARE DESFire (docs/provisioning.md, "MIFARE DESFire"), on the tag's ISO 7816
/// link through ``NFCNDEFTag/withDESFireCard(_:)`` and the Type 4 platform's NDEF operations:
///
/// 1. Before the claim (``identify()``): ISO SELECT of the PICC level, GetVersion, GetKeyVersion of
///    the PICC master key (no key needed): `00`-like (the factory key's version) or
///    ``DESFireProvisioning/targetVersion``, else the card is refused (the run never guesses a key);
///    AuthenticateISO/AES with the key that version names, then GetCardUID (MF3ICDx21_41_81 §9.3):
///    the real UID, which the row is claimed by and every key is diversified from.
/// 2. The NDEF application as `nfctag format` makes it (AN11004, with the job's key type), when
///    the card has none whole (none at all: made natively with what step 1 learnt,
///    ``formatIfMissing(_:job:version:keyType:)``); the row's message written tear-safely and read
///    back; the ledger records `written`.
/// 3. ChangeKey of the NDEF application's key 0 (after authenticating with it), `keys 1/2`; then
///    of the PICC master key, `keys 2/2`. ChangeKey changes a key and its version together, so a
///    removal leaves each key factory or target, which step 1 (and this one) read on the next tap.
/// 4. The message read back again (natively on a card formatted in this run: SelectApplication
///    first, so no READ BINARY meets the ISO file selection the native commands ended).
/// 5. With `--lock` (``lock``): the NDEF file made read-only for good (``lockNDEFFile(application:refused:onRefusal:)``),
///    `locked`; whether the card can be finished so is checked before the first write
///    (``checkLockable()``).
///
/// A key that failed to authenticate on the card is recorded in the ledger with the row
/// (`failedAuthentications`) and never tried on it again: a real card counts each failure.
struct DESFireTagSteps {
  let tag: any NFCNDEFTag
  let job: DESFireProvisioning
  let identity: DESFireIdentity
  /// What the ledger recorded of this card before (a resumed row), nil for none.
  let previous: LedgerTagProgress?
  /// `--lock`: the NDEF file made read-only once the keys are changed (``lockNDEFFile(application:refused:onRefusal:)``).
  var lock = false
  /// Records a step in the ledger (the row bound to this card).
  let record: (LedgerTagProgress) throws -> Void

  /// Whether the card was changed, or refused a key (which it counts).
  struct Progress { var touched = false }

  static let target = DESFireProvisioning.targetVersion

  /// Runs steps 2–4 for `message`. Returns the progress of a card done.
  func run(message: [UInt8], progress: inout Progress) throws -> LedgerTagProgress {
    let keys = try job.targetKeys(uid: identity.uid)
    let factoryPICC = DESFireProvisioning.version(of: job.factoryPICCKey)
    var versions = [Int(previous?.keyVersions.first ?? 0), Int(identity.piccVersion)]
    let refused = RefusedKeys(previous?.failedAuthentications ?? [])
    func state(_ step: String) -> LedgerTagProgress {
      LedgerTagProgress(step: step, keyVersions: versions, diversificationVersion: diversificationVersion,
                        failedAuthentications: refused.labels)
    }
    /// Authenticates unless `label` failed on this card before; a refusal is recorded.
    /// (`progress.touched` is set before any authentication of these steps.)
    func authenticate(_ card: DESFireCard, _ key: DESFireSecretKey, keyNumber: UInt8, label: String) throws {
      try refused.authenticate(card, key, keyNumber: keyNumber, label: label, version: identity.version) {
        try record(state(previous?.step ?? "claimed"))
      }
    }
    if identity.piccVersion == factoryPICC {
      progress.touched = true
      // A card without the NDEF application (a factory one) gets it, and the message, natively.
      let created = try formatAndWriteIfMissing(message: message)
      if !created {
        if lock {
          // The application was there: nothing changed yet, so a card refused gives its row back.
          progress.touched = false
          try checkLockable()
          progress.touched = true
        }
        if try Self.needsFormat(tag) {
          try tag.useDESFirePICCAuthentication(job.factoryPICCKey.authentication)
          try tag.useDESFireFormatOptions(DESFireNDEFFormatOptions(applicationKeyType: job.applicationKeyAlgorithm))
          try tag.format()
        }
        if (try? tag.readNDEFBytes()) != message {
          try tag.writeNDEFBytes(message, verify: true)
        }
      }
      try record(state("written"))
      // An application made on this connection has its key 0 as made (version 00).
      let applicationVersion: UInt8 = created ? 0 : try desfire { card throws(DESFireCommandError) in
        try card.selectApplication(.ndefApplication)
        return try card.keyVersion(0)
      }
      versions[0] = Int(applicationVersion)
      if applicationVersion == 0 {
        try desfire { card in
          try card.selectApplication(.ndefApplication)
          try authenticate(card, job.factoryApplicationKey, keyNumber: 0, label: Self.label(application: true, version: 0))
          try card.changeKey(.application(0), to: keys.application.material, version: Self.target)
        }
        versions[0] = Int(Self.target)
      } else if applicationVersion != Self.target {
        throw Self.unknownVersion("the NDEF application's key 0", applicationVersion)
      }
      try record(state("keys 1/\(DESFireProvisioning.keyCount)"))
      try desfire { card in
        try card.selectApplication(.picc)
        try authenticate(card, job.factoryPICCKey, keyNumber: 0, label: Self.label(application: false, version: factoryPICC))
        try card.changeKey(.piccMaster, to: keys.picc.material, version: Self.target)
      }
      versions[1] = Int(Self.target)
      try record(state("keys 2/\(DESFireProvisioning.keyCount)"))
      if created {
        guard try readBackNatively(count: message.count) == Self.nlen(message.count) + message else {
          throw ProvisioningFailure(.verification, "the message read back from the DESFire's NDEF file differs from the row's")
        }
        return try locked(keys.application, refused: refused, state: state)
      }
    } else {
      // The PICC master key is the target one: the application's key was changed before it.
      let applicationVersion = try desfire { card throws(DESFireCommandError) in
        try card.selectApplication(.ndefApplication)
        return try card.keyVersion(0)
      }
      guard applicationVersion == Self.target else { throw Self.unknownVersion("the NDEF application's key 0", applicationVersion) }
      versions[0] = Int(applicationVersion)
      if lock { try checkLockable() }
      // Written before the keys changed; the file's write right is free (AN11004), so a message
      // changed since is written again, not left for the read-back to refuse.
      if (try? tag.readNDEFBytes()) != message {
        progress.touched = true
        try tag.writeNDEFBytes(message, verify: true)
      }
    }
    guard try tag.readNDEFBytes() == message else {
      throw ProvisioningFailure(.verification, "the message read back from the DESFire's NDEF file differs from the row's")
    }
    return try locked(keys.application, refused: refused, state: state)
  }

  /// The progress of a card done: with `--lock`, the NDEF file made read-only first
  /// (``lockNDEFFile(application:refused:onRefusal:)``), the ledger's step `locked`.
  private func locked(_ application: DESFireSecretKey, refused: RefusedKeys, state: (String) -> LedgerTagProgress) throws -> LedgerTagProgress {
    guard lock else { return state("done") }
    try lockNDEFFile(application: application, refused: refused) { try record(state(previous?.step ?? "keys 2/2")) }
    try record(state("locked"))
    return state("done")
  }

  /// On a card that lacks AN11004's NDEF application (its SelectApplication of 000001h refused
  /// `91 A0`, sent at the PICC level step 1 left selected, with no ISO SELECT since): the
  /// application made as `nfctag format` makes it, less what step 1 already learnt
  /// (``Type4Tag/formatDESFireKnownMissing(_:version:options:authenticate:)``: no GetVersion, no
  /// first PICC authentication, no empty message written and read back on top), then the message
  /// written tear-safely in the NDEF file the format left with NLEN 0000 (the data at offset 2,
  /// then NLEN: a standard data file has no tearing protection, MF3ICDx21_41_81 §9) and read
  /// back with ReadData. A card cut anywhere is finished by a rerun: the application then exists
  /// and the Type 4 path (`format` finishing a cut format, the message written and read back) runs.
  /// - Returns: whether the application was made here (false: it exists; nothing was written).
  private func formatAndWriteIfMissing(message: [UInt8]) throws -> Bool {
    try desfire { card in
      guard let size = try Self.formatIfMissing(card, job: job, version: identity.version, keyType: job.applicationKeyAlgorithm) else {
        return false
      }
      guard message.count + 2 <= size else {
        throw NFCReaderError(TagError.insufficientCapacity(needed: message.count, capacity: size - 2))
      }
      let file = Type4Tag.desfireNDEFFile.number
      if !message.isEmpty {
        try card.writeData(file: file, offset: 2, message)
        try card.writeData(file: file, offset: 0, Self.nlen(message.count))
      }
      guard try card.readData(file: file, offset: 0, length: 2 + message.count) == Self.nlen(message.count) + message else {
        throw ProvisioningFailure(.verification, "the message read back from the DESFire's NDEF file differs from the row's")
      }
      return true
    }
  }

  /// AN11004's NDEF application made on `card` when its SelectApplication of 000001h, sent first,
  /// is refused `91 A0` (application not found): ``Type4Tag/formatDESFireKnownMissing(_:version:options:authenticate:)``
  /// with the job's factory PICC master key (step 1 authenticated with it) and `keyType`. Sent at
  /// the PICC level step 1 left selected: no ISO SELECT since, so an EV2's random-FCI fault is not
  /// pending (docs/desfire.md, "EV2 and EV3").
  /// A DESFire Light (fixed files, set up for NDEF otherwise) is left to the Type 4 path, as before.
  /// - Returns: the NDEF file's size, nil when the application exists (then 000001h is selected
  ///   and nothing was written) or the card is a Light (nothing sent).
  static func formatIfMissing(_ card: DESFireCard, job: DESFireProvisioning, version: DESFireVersionInfo,
                              keyType: DESFireKeyAlgorithm) throws -> Int? {
    guard !version.isLight else { return nil }
    do {
      try card.selectApplication(.ndefApplication)
      return nil
    } catch where error.status == .applicationNotFound {}
    return try Type4Tag.formatDESFireKnownMissing(card, version: version, options: DESFireNDEFFormatOptions(applicationKeyType: keyType),
                                                  authenticate: job.factoryPICCKey.authentication)
  }

  /// The NDEF file's NLEN, then `count` bytes of it (what ``formatAndWriteIfMissing(message:)`` wrote), read by
  /// SelectApplication of 000001h and ReadData.
  private func readBackNatively(count: Int) throws -> [UInt8] {
    try desfire { card throws(DESFireCommandError) in
      try card.selectApplication(.ndefApplication)
      return try card.readData(file: Type4Tag.desfireNDEFFile.number, offset: 0, length: 2 + count)
    }
  }

  /// NLEN: a message's length, big-endian in two bytes (NFC Forum T4T, mapping version 2.0).
  static func nlen(_ count: Int) -> [UInt8] { [UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] }

  /// Why a card cannot take `--sdm-url` (SDM is the EV3's: GetVersion's hardware major 3xh, as
  /// `sdm setup` tells it; the DESFire Light's is not set up yet), nil for an EV3. A chip that
  /// answers GetVersion but is no DESFire (an NTAG 424 DNA) is not one this job provisions (65).
  static func sdmRefusal(_ version: DESFireVersionInfo) -> ProvisioningFailure? {
    guard version.isDESFire else {
      return ProvisioningFailure(.unsupported, "not a MIFARE DESFire: GetVersion names hardware type \(hexString([version.hardware.type])) "
                                 + "(a job with DESFire keys provisions DESFire EV3 cards only; nothing written)")
    }
    if !version.isLight, case .ev3 = version.generation { return nil }
    let name = version.isLight ? "MIFARE DESFire Light" : version.generation.description.isEmpty ? "MIFARE DESFire" : "MIFARE DESFire \(version.generation)"
    return ProvisioningFailure(.notForThisCard, "--sdm-url: SDM needs a MIFARE DESFire EV3 (or an NTAG 424 DNA); this is a \(name) (nothing written)")
  }

  /// The ledger's diversification field: 1 for AN10922 from a master key, 0 for fixed keys.
  var diversificationVersion: Int {
    if case .diversified = job.keys { return 1 }
    return 0
  }

  /// Whether the card lacks a whole NDEF application (AN11004): its NDEF read fails as not
  /// formatted or malformed.
  static func needsFormat(_ tag: any NFCNDEFTag) throws -> Bool {
    do {
      _ = try tag.readNDEFBytes()
      return false
    } catch {
      switch error.underlyingError as? TagError {
      case .notFormatted?, .malformed?: return true
      default: throw error
      }
    }
  }

  /// Runs `body` on the card (``onCard(_:_:)``).
  private func desfire<T: Sendable>(_ body: (DESFireCard) throws -> T) throws -> T { try Self.onCard(tag, body) }

  /// Runs `body` on `tag`'s card; the card's refusals come out as ``NFCReaderError``s.
  static func onCard<T: Sendable>(_ tag: any NFCNDEFTag, _ body: (DESFireCard) throws -> T) throws -> T {
    var thrown: (any Error)?
    let result = try tag.withDESFireCard { card throws(DESFireCommandError) -> T? in
      do { return try body(card) } catch let error as DESFireCommandError { throw error } catch { thrown = error; return nil }
    }
    if let thrown { throw thrown }
    switch result {
    case .success(let value?): return value
    case .success(nil): throw ProvisioningFailure(.unsupported, "the DESFire step ended without an answer")
    case .failure(let error):
      // In the NDEF platforms' vocabulary, as every tag failure: 91 AE a refused key (77), a
      // removal a removal (74), another refusal what the card cannot do.
      throw NFCReaderError(error.tagError)
    }
  }

  /// The ledger's name for a key tried on the card: `PICC master key version 00`.
  static func label(application: Bool, version: UInt8) -> String {
    (application ? "NDEF application key 0" : "PICC master key") + " version " + hexString([version])
  }

  static func notAgain(_ label: String) -> ProvisioningFailure {
    ProvisioningFailure(.security, "\(label) failed to authenticate on this card before: not tried again (a card counts each failure); "
                        + "check the card, then release its row with `ledger release`")
  }

  static func unknownVersion(_ what: String, _ version: UInt8) -> ProvisioningFailure {
    ProvisioningFailure(.security, "\(what) has version \(hexString([version])): neither the factory key nor this job's "
                        + "(\(hexString([target]))); the run does not guess a key")
  }

  /// Step 1, before any row is claimed: the card's real UID and its PICC master key's version.
  /// `boundRow` is the row the ledger binds to the UID the card shows (nil for a random ID or
  /// none): its failed keys are not tried, and a refusal is recorded with it. With `sdm` (a
  /// `--sdm-url` job) a card other than an EV3 is refused right after GetVersion, before any
  /// authentication or write (``ProvisioningFailure/Kind/notForThisCard``).
  static func identify(_ tag: any NFCNDEFTag, job: DESFireProvisioning, sdm: Bool = false, boundRow: LedgerRecord?,
                       record: (LedgerRecord, LedgerTagProgress) throws -> Void) throws -> DESFireIdentity {
    let shown = tag.identifier
    let random = shown.count == 4 && shown.first == 0x08
    return try onCard(tag) { card in
      // ISO SELECT of the PICC level first: an EV2 that answered a SELECT of a missing NDEF
      // application refuses SelectApplication until then (docs/desfire.md, "EV2 and EV3").
      _ = try? card.link.transceive([0x00, 0xA4, 0x04, 0x00, 0x07, 0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x00, 0x00])
      let version: DESFireVersionInfo
      do throws(DESFireCommandError) { version = try card.getVersion() } catch {
        if case .link = error { throw error }
        throw ProvisioningFailure(.unsupported, "not a MIFARE DESFire: GetVersion answered \(error)")
      }
      if sdm, let refusal = sdmRefusal(version) { throw refusal }
      try card.selectApplication(.picc)
      let piccVersion = try card.keyVersion(0)
      let key: DESFireSecretKey
      if piccVersion == DESFireProvisioning.version(of: job.factoryPICCKey) {
        key = job.factoryPICCKey
      } else if piccVersion == target {
        if case .diversified = job.keys, random {
          throw ProvisioningFailure(.unsupported, "the card shows a random ID and its PICC master key is this job's: its real UID "
                                    + "cannot be read without guessing which card it is")
        }
        key = try job.targetKeys(uid: shown).picc
      } else {
        throw unknownVersion("the PICC master key", piccVersion)
      }
      let before = boundRow?.progress.flatMap(LedgerTagProgress.init(decoding:))
      let refused = RefusedKeys(before?.failedAuthentications ?? [])
      try refused.authenticate(card, key, keyNumber: 0, label: Self.label(application: false, version: piccVersion), version: version) {
        guard let boundRow else { return }
        var progress = before ?? LedgerTagProgress(step: "claimed", keyVersions: [0, Int(piccVersion)], diversificationVersion: 0)
        progress.failedAuthentications = refused.labels
        try record(boundRow, progress)
      }
      let uid: [UInt8]
      do throws(DESFireCommandError) { uid = try card.cardUID() } catch {
        if case .link = error { throw error }
        throw ProvisioningFailure(.unsupported, "the card's real UID cannot be read (GetCardUID: \(error))")
      }
      return DESFireIdentity(uid: uid, version: version, piccVersion: piccVersion)
    }
  }
}
