// `provision --lock` onto a MIFARE DESFire: the NDEF file made read-only for good once the message
// is written and read back and the keys changed (NXP AN11004's read-only state).
import DESFire
import DESFireTag
import NFCTags

extension DESFireTagSteps {
  /// `--lock`, before anything is written: whether the run can finish the card. The NDEF file
  /// (02h, E104h) must be read-only already (write and read&write never), or its change right a
  /// key the job holds (key 0, which the job changes to its own) or free (Eh); and the CC file
  /// (01h, E103h) must take ISO UPDATE BINARY without a key (write or read&write free, as
  /// `nfctag format` and AN11004 make it). A file not there yet is made by the format, as above.
  /// Sends SelectApplication 000001h and GetFileSettings of the two files (MF3ICDx21_41_81 §9).
  /// - Throws: ``ProvisioningFailure`` (``ProvisioningFailure/Kind/notForThisCard``) naming the
  ///   right that stops it; the card's refusals.
  func checkLockable() throws {
    guard !identity.version.isLight else {
      throw Self.notLockable("`provision --lock` does not change a MIFARE DESFire Light's file rights")
    }
    try Self.onCard(tag) { card in
      try card.selectApplication(.ndefApplication)
      let ndef: DESFireFileAccess
      do throws(DESFireCommandError) { ndef = try card.fileSettings(Type4Tag.desfireNDEFFile.number).access } catch {
        if error.status == .fileNotFound { return }
        throw error
      }
      if ndef.write == 0x0F && ndef.readWrite == 0x0F { return }
      guard ndef.change == 0 || ndef.change == 0x0E else {
        throw Self.notLockable("its change right is \(ndef.change == 0x0F ? "never" : "key \(ndef.change)"), not key 0 or free")
      }
      let cc: DESFireFileAccess
      do throws(DESFireCommandError) { cc = try card.fileSettings(0x01).access } catch {
        if error.status == .fileNotFound { return }
        throw error
      }
      guard cc.write == 0x0E || cc.readWrite == 0x0E else {
        throw Self.notLockable("the CC file (E103) takes no write without a key, so its write access byte cannot say read-only")
      }
    }
  }

  /// `--lock`, after the message is read back and both keys are the job's: the NDEF file's write,
  /// read&write and change rights never (Fh), its read right kept (free, Eh, as AN11004 makes
  /// it), then the CC's write access byte FFh (NFC Forum Type 4 Tag specification, the NDEF File
  /// Control TLV: FFh "no write access granted at all"; AN11004's read-only state), each read
  /// back: ``DESFireCard/lockNDEF(key:)``, what `nfctag lock` sends. The key of the file's
  /// change right is the NDEF application's key 0, the job's now (`application`), tried unless
  /// it failed on this card before (`refused`; a refusal is recorded by `onRefusal`).
  ///
  /// A card taken away between the two changes is finished by a rerun: ``checkLockable()`` and
  /// `lockNDEF` recognise the write-never file by its settings (no key needed again) and write
  /// the CC byte alone; a card whose two changes are done answers "already read-only".
  func lockNDEFFile(application: DESFireSecretKey, refused: RefusedKeys, onRefusal: () throws -> Void) throws {
    let label = Self.label(application: true, version: Self.target)
    _ = try Self.onCard(tag) { card in
      try refused.attempt(label: label, onRefusal: onRefusal) { () throws(DESFireCommandError) in
        try card.lockNDEF { _ throws(DESFireCommandError) in application }
      }
    }
  }

  /// The refusal of a card that `--lock` could not finish: nothing written.
  static func notLockable(_ why: String) -> ProvisioningFailure {
    ProvisioningFailure(.notForThisCard, "--lock: the DESFire's NDEF file cannot be made read-only: \(why) (nothing written)")
  }
}
