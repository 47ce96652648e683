// `provision --sdm-url` onto a MIFARE DESFire EV3: AN11004's NDEF application with AES keys, the
// row's SUN URL with SDM on, the application's five keys the 424 DNA's, the PICC master key the
// DESFire job's; each step in the ledger.
import DESFire
import DESFireTag
import NFCSession
import NFCTags
import NTAG424
import ProvisioningLedger

/// The steps on one MIFARE DESFire EV3 of a `--sdm-url` job (docs/provisioning.md, "SUN URLs on
/// DESFire EV3"), after ``DESFireTagSteps/identify(_:job:sdm:boundRow:record:)`` (the real UID; an
/// EV1, EV2 or Light refused before anything else):
///
/// 1. When the PICC master key is the factory one: AN11004's NDEF application when the card has
///    none whole (`nfctag format --key-type aes`: on an EV3 five AES keys and the NDEF file created
///    with SDM pre-enabled, FileOption bit 6; on a card with none, made natively:
///    ``DESFireTagSteps/formatIfMissing(_:job:version:keyType:)``); GetKeySettings (AES keys, five or
///    more, else 65) and GetKeyVersion of keys 0–4 (00 factory, 01 derived, else 77: no key is
///    guessed), not asked of an application made here (five AES keys at 00).
/// 2. AuthenticateEV2First with key 0 as its version says; ChangeFileSettings with the 424 DNA's
///    SDM plan (``SUNProvisioning/plan(url:)``: read free, write, read&write and change key 0,
///    PICCData with key 2, the MAC with key 1) and the file written tear-safely
///    (``DESFireCard/writeSDMFile(_:contents:settings:)``, what `sdm setup` sends); `written`.
/// 3. ChangeKey of keys 1–4 still at 00 (the old value the zero key), `keys 4/6`; of key 0 (which
///    ends the session), `keys 5/6`; then, authenticated with the factory PICC master key, of the
///    PICC master key to the DESFire job's (``DESFireProvisioning/targetKeys(uid:)``), `keys 6/6`.
///    The application keys are ``SDMKeyDiversification``'s from the SDM master key and the real
///    UID, exactly a 424 DNA's, so `sdm verify` and `sdm serve` with that master key verify the
///    card's URLs. Each ChangeKey changes a key and its version together, and the PICC master key
///    changes last: a card whose PICC master key is the job's has every application key derived.
/// 4. SelectApplication (the session ends) and one unauthenticated ReadData: the URL the card
///    mirrors verified with the master key alone (``SUNTagSteps/verify(_:of:master:uid:)``), its
///    counter the row's baseline.
struct DESFireSUNSteps {
  let tag: any NFCNDEFTag
  let job: DESFireProvisioning
  let sun: SUNProvisioning
  let identity: DESFireIdentity
  /// What the ledger recorded of this card before (a resumed row), nil for none.
  let previous: LedgerTagProgress?
  /// Records a step in the ledger (the row bound to this card).
  let record: (LedgerTagProgress) throws -> Void

  /// The keys changed per card: the NDEF application's five, then the PICC master key.
  static let keyCount = 6
  /// The NDEF file (AN11004).
  static let file: UInt8 = 2
  static let derived = SDMKeyDiversification.keyVersion

  /// Runs the steps for the URL template `template` (row placeholders filled, SDM ones left).
  /// Returns the plan written and the progress of a card done.
  func run(template: String, progress: inout DESFireTagSteps.Progress) throws -> (plan: SDMPlan, done: LedgerTagProgress) {
    let plan = try sun.plan(url: template)
    let settings = try plan.settings.changeData()
    let application = try SDMKeyDiversification.applicationKeys(master: sun.masterKey, uid: identity.uid).map(Self.key)
    let picc = try job.targetKeys(uid: identity.uid).picc
    let factoryPICC = DESFireProvisioning.version(of: job.factoryPICCKey)
    var versions = [0, 0, 0, 0, 0, Int(identity.piccVersion)]
    let refused = RefusedKeys(previous?.failedAuthentications ?? [])
    func state(_ step: String) -> LedgerTagProgress {
      LedgerTagProgress(step: step, keyVersions: versions, diversificationVersion: SDMKeyDiversification.version,
                        failedAuthentications: refused.labels)
    }
    /// Authenticates unless `label` failed on this card before; a refusal is recorded.
    func authenticate(_ card: DESFireCard, _ key: DESFireSecretKey, keyNumber: UInt8, label: String, scheme: DESFireAuthenticationScheme) throws {
      try refused.authenticate(card, key, keyNumber: keyNumber, label: label, version: identity.version, scheme: scheme) {
        try record(state(previous?.step ?? "claimed"))
      }
    }
    if identity.piccVersion == factoryPICC {
      progress.touched = true
      // A card without the NDEF application gets it natively, as `format --key-type aes` makes it
      // on an EV3: five AES keys at version 00 and the SDM-ready NDEF file, known without asking.
      let created = try desfire { card in
        try DESFireTagSteps.formatIfMissing(card, job: job, version: identity.version, keyType: .aes) != nil
      }
      if !created {
        if try DESFireTagSteps.needsFormat(tag) {
          try tag.useDESFirePICCAuthentication(job.factoryPICCKey.authentication)
          try tag.useDESFireFormatOptions(DESFireNDEFFormatOptions(applicationKeyType: .aes))
          try tag.format()
        }
        let read = try applicationKeyVersions()
        for (n, version) in read.enumerated() { versions[n] = Int(version) }
      }
      let zero = DESFireSecretKey.zero(.aes)
      for n in 1...4 where versions[n] == 0 && refused.contains(Self.notFactory(UInt8(n))) {
        throw ProvisioningFailure(.security, "the NDEF application's key \(n) has version 00 but was not the factory key on this card before: "
                                  + "not tried again (the run does not guess a key); check the card, then release its row with `ledger release`")
      }
      try desfire { card in
        try card.selectApplication(.ndefApplication)
        let key0 = versions[0] == 0 ? zero : application[0]
        try authenticate(card, key0, keyNumber: 0, label: DESFireTagSteps.label(application: true, version: UInt8(versions[0])), scheme: .ev2)
        try card.writeSDMFile(Self.file, contents: plan.ndefFile, settings: settings)
        try record(state("written"))
        for n in 1...4 where versions[n] == 0 {
          do throws(DESFireCommandError) {
            try card.changeKey(.application(UInt8(n)), to: application[n].material, version: Self.derived, oldKey: zero.material)
          } catch {
            // Not the factory key (`91 1E`): recorded, and that value never sent again.
            if error.status == .integrityError { refused.insert(Self.notFactory(UInt8(n))); try record(state("written")) }
            throw error
          }
          versions[n] = Int(Self.derived)
        }
        try record(state("keys 4/\(Self.keyCount)"))
        if versions[0] == 0 {
          try card.changeKey(.application(0), to: application[0].material, version: Self.derived)
          versions[0] = Int(Self.derived)
        }
        try record(state("keys 5/\(Self.keyCount)"))
      }
      try desfire { card in
        try card.selectApplication(.picc)
        try authenticate(card, job.factoryPICCKey, keyNumber: 0, label: DESFireTagSteps.label(application: false, version: factoryPICC), scheme: .ev1)
        try card.changeKey(.piccMaster, to: picc.material, version: DESFireProvisioning.targetVersion)
      }
      versions[5] = Int(DESFireProvisioning.targetVersion)
      try record(state("keys \(Self.keyCount)/\(Self.keyCount)"))
    } else {
      // The PICC master key is the job's: it changed last, so every application key is derived.
      for (n, version) in try applicationKeyVersions().enumerated() {
        guard version == Self.derived else { throw DESFireTagSteps.unknownVersion("the NDEF application's key \(n)", version) }
        versions[n] = Int(version)
      }
    }
    let back = try desfire { card in try card.readSDMFile(Self.file, in: .ndefApplication, length: plan.ndefFile.count) }
    let message = try SUNTagSteps.verify(back, of: plan, master: sun.masterKey, uid: identity.uid)
    var done = state("done")
    done.counterBaseline = message.readCounter.map(Int.init)
    return (plan, done)
  }

  /// GetKeySettings and GetKeyVersion of keys 0–4 of the NDEF application: AES keys, five or more,
  /// each version 00 or the scheme's.
  private func applicationKeyVersions() throws -> [UInt8] {
    let read: [UInt8] = try desfire { card in
      try card.selectApplication(.ndefApplication)
      let settings = try card.keySettings()
      guard settings.keyType == .aes, settings.keyCount >= 5 else {
        let type = settings.keyType.map { "\($0)" } ?? "unknown"
        throw ProvisioningFailure(.unsupported, "the DESFire EV3's NDEF application has \(settings.keyCount) \(type) keys and SDM needs five AES "
                                  + "keys: format it with `nfctag format --key-type aes` (format erases the card's data)")
      }
      var read: [UInt8] = []
      for n in UInt8(0)...4 { read.append(try card.keyVersion(n)) }
      return read
    }
    for (n, version) in read.enumerated() where version != 0 && version != Self.derived {
      throw DESFireTagSteps.unknownVersion("the NDEF application's key \(n)", version)
    }
    return read
  }

  /// The ledger's note of an application key at version 00 that is not the factory key
  /// (ChangeKey of it with the zero key answered `91 1E`): that value is never sent again.
  static func notFactory(_ number: UInt8) -> String { "NDEF application key \(number) version 00 (not the factory key)" }

  /// A derived AES key as the DESFire host takes it.
  static func key(_ key: AESKey) throws -> DESFireSecretKey {
    switch DESFireSecretKey.make(key.packageBytes, kind: .aes, what: "the card's key") {
    case .success(let made): return made
    case .failure(let error): throw ProvisioningFailure(.unsupported, error.description)
    }
  }

  private func desfire<T: Sendable>(_ body: (DESFireCard) throws -> T) throws -> T { try DESFireTagSteps.onCard(tag, body) }
}
