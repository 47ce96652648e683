import DESFire
import Hex
import NFCTags

/// What a command that may be run again after a cut did: its work, or found it done.
public enum DESFireRerunOutcome: Sendable, Equatable {
  /// The command ran.
  case done
  /// A run cut short had already done it (the new key authenticates; the application exists with
  /// the settings asked): nothing was changed.
  case alreadyDone
}

/// `nfctag desfire keys change` and `create-app` as they survive a removal at any command: a run
/// cut before its one changing command (ChangeKey C4h, CreateApplication CAh) changed nothing and
/// runs again; a run cut after it ran, its answer lost, left the change made, which a rerun finds
/// by the card's refusal (MF3ICDx21_41_81 §9.3: `91 AE` for the key that was changed, `91 1E` for
/// an old key that is no longer the card's, `91 DE` for an application that exists) and then tells
/// by the card itself (the new key authenticates, GetKeySettings answers the settings asked).
extension DESFireCard {
  /// Selects `level`, authenticates with key `keyNumber` (`current`), and changes `slot` to
  /// `newKey` (`version` for an AES key); `oldKey` is the slot's current value when it is not the
  /// authenticated key. A rerun after a cut: the current key refused (the authenticated key was
  /// changed) or the old key refused (`91 1E`, another key was changed), and then the new key
  /// authenticating with its version (GetKeyVersion) is ``DESFireRerunOutcome/alreadyDone``.
  /// `scheme` is how both keys authenticate (EV1 by default).
  /// - Throws: the card's refusal when the new key is not in place either; the link's failures.
  ///   No key in any error.
  public func changeKey(at level: DESFireApplicationID, _ slot: DESFireKeySlot, to newKey: DESFireSecretKey, version: UInt8 = 0,
                        authenticatingWith current: DESFireSecretKey, keyNumber: UInt8, oldKey: DESFireSecretKey?,
                        cardVersion: DESFireVersionInfo,
                        scheme: DESFireAuthenticationScheme = .ev1) throws(DESFireCommandError) -> DESFireRerunOutcome {
    let target: UInt8
    switch slot {
    case .piccMaster: target = 0
    case .application(let n): target = n
    }
    try selectApplication(level)
    do {
      try current.authenticate(self, keyNumber: keyNumber, version: cardVersion, scheme: scheme)
    } catch where error.status == .authenticationError && keyNumber == target {
      if try newKeyInPlace(level, target, newKey, version, cardVersion, scheme) { return .alreadyDone }
      throw error
    }
    do {
      try changeKey(slot, to: newKey.material, version: version, oldKey: keyNumber == target ? nil : oldKey?.material)
    } catch where error.status == .integrityError && keyNumber != target {
      if try newKeyInPlace(level, target, newKey, version, cardVersion, scheme) { return .alreadyDone }
      throw error
    }
    return .done
  }

  /// Whether key `number` of `level` is `key` (it authenticates) with `version` when AES (a DES
  /// key's version is its parity bits, as given). A refusal is "no"; the link's failures are thrown.
  private func newKeyInPlace(_ level: DESFireApplicationID, _ number: UInt8, _ key: DESFireSecretKey, _ version: UInt8,
                             _ cardVersion: DESFireVersionInfo, _ scheme: DESFireAuthenticationScheme) throws(DESFireCommandError) -> Bool {
    do {
      try selectApplication(level)
      try key.authenticate(self, keyNumber: number, version: cardVersion, scheme: scheme)
      if key.kind == .aes { return try keyVersion(number) == version }
      return true
    } catch {
      if case .link = error { throw error }
      return false
    }
  }

  /// CreateApplication, or, when `aid` exists (`91 DE`: a run cut after it ran), GetDFNames (at
  /// the PICC level, after `reauthenticate` when given: the refusal ended the session) and
  /// GetKeySettings of it compared with the ISO file ID and DF name, settings, key count and key
  /// type asked: the same is ``DESFireRerunOutcome/alreadyDone``. GetDFNames lists only an
  /// application with a DF name, so an ISO file ID asked without one is not compared.
  /// - Throws: `DESFireCommandError/invalidArgument(_:)` naming each difference when it exists with
  ///   others, or when its DF names or key settings are hidden; the card's other refusals; the
  ///   link's failures.
  public func createApplicationOnce(_ aid: DESFireApplicationID, settings: UInt8, keyCount: Int, keyType: DESFireKeyAlgorithm,
                                    isoFileID: UInt16? = nil, dfName: [UInt8]? = nil,
                                    reauthenticate: ((DESFireCard) throws(DESFireCommandError) -> Void)? = nil)
    throws(DESFireCommandError) -> DESFireRerunOutcome {
    do {
      try createApplication(aid, settings: settings, keyCount: keyCount, keyType: keyType, isoFileID: isoFileID, dfName: dfName)
      return .done
    } catch where error.status == .duplicateError {
      try reauthenticate?(self)
      let names: DESFireDFNameEntry?
      do { names = try dfNames().first { $0.aid == aid } } catch {
        if case .status = error {
          throw .invalidArgument("CreateApplication \(aid) answered 91 de: application \(aid) exists and the card hides its DF names "
                                 + "(\(error)), so whether it has the settings asked is unknown")
        }
        throw error
      }
      var differences = Self.isoNameDifferences(names, isoFileID: isoFileID, dfName: dfName)
      try selectApplication(aid)
      let info: DESFireKeySettingsInfo
      do { info = try keySettings() } catch {
        if case .link = error { throw error }
        throw .invalidArgument("CreateApplication \(aid) answered 91 de: application \(aid) exists and hides its key settings "
                               + "(\(error)), so whether it has the settings asked is unknown")
      }
      if info.settings != settings {
        differences.append("key settings \(hexString([info.settings])), not \(hexString([settings]))")
      }
      if info.keyCount != keyCount { differences.append("\(info.keyCount) keys, not \(keyCount)") }
      if info.keyType != keyType {
        differences.append("\(info.keyType.map { "\($0)" } ?? "reserved") keys, not \(keyType)")
      }
      guard differences.isEmpty else {
        throw .invalidArgument("application \(aid) exists with other settings: \(differences.joined(separator: ", "))")
      }
      return .alreadyDone
    }
  }
}

extension DESFireCard {
  /// How GetDFNames' entry of an application differs from the ISO file ID and DF name asked.
  static func isoNameDifferences(_ entry: DESFireDFNameEntry?, isoFileID: UInt16?, dfName: [UInt8]?) -> [String] {
    func fid(_ value: UInt16) -> String { hexString([UInt8(value >> 8), UInt8(value & 0xFF)]) }
    switch (entry, dfName) {
    case (nil, nil): return []
    case (nil, let name?): return ["no DF name, not \(hexString(name))"]
    case (let entry?, nil):
      return ["ISO file ID \(fid(entry.isoFileID)) and DF name \(hexString(entry.dfName)), not none"]
    case (let entry?, let name?):
      var differences: [String] = []
      if let isoFileID, entry.isoFileID != isoFileID { differences.append("ISO file ID \(fid(entry.isoFileID)), not \(fid(isoFileID))") }
      if entry.dfName != name { differences.append("DF name \(hexString(entry.dfName)), not \(hexString(name))") }
      return differences
    }
  }
}
