// The keys that failed to authenticate on one DESFire card: never tried on it again, and each
// refusal remembered (the ledger keeps them with the card's row).
import DESFire
import DESFireTag
import NFCTags

/// The keys that failed to authenticate on one MIFARE DESFire, by the ledger's label
/// (``DESFireTagSteps/label(application:version:)``), shared by the steps of one card
/// (``DESFireTagSteps``, ``DESFireSUNSteps``).
///
/// A card counts each failed authentication (MF3ICDx21_41_81 §9, the authentication commands'
/// `91 AE`; libfreefare's `mifare_desfire_authenticate` reports the same status): so a key that
/// failed on a card is never sent to it again, and the refusal is recorded before the error goes
/// on, so that a rerun knows it too.
final class RefusedKeys {
  /// The labels of the keys refused on the card so far (the ledger's `failedAuthentications`).
  private(set) var labels: [String]

  /// The refusals known before (a resumed row's), none by default.
  init(_ labels: [String] = []) { self.labels = labels }

  /// Whether `label` was refused on this card.
  func contains(_ label: String) -> Bool { labels.contains(label) }

  /// Remembers `label` as refused (a key the card turned down some other way, such as a
  /// ChangeKey's old value).
  func insert(_ label: String) {
    if !labels.contains(label) { labels.append(label) }
  }

  /// Authenticates with `key` as `keyNumber` unless `label` was refused on this card before
  /// (then ``DESFireTagSteps/notAgain(_:)``); a refusal (`91 AE`) is remembered, `onRefusal`
  /// called (to record it), and the card's error thrown.
  func authenticate(_ card: DESFireCard, _ key: DESFireSecretKey, keyNumber: UInt8, label: String, version: DESFireVersionInfo,
                    scheme: DESFireAuthenticationScheme = .ev1, onRefusal: () throws -> Void) throws {
    try attempt(label: label, onRefusal: onRefusal) { () throws(DESFireCommandError) in
      try key.authenticate(card, keyNumber: keyNumber, version: version, scheme: scheme)
    }
  }

  /// Runs `body`, which authenticates with the key `label` names (and may do more), unless that
  /// key was refused on this card before; a refusal (`91 AE`) it meets is remembered, `onRefusal`
  /// called, and the card's error thrown.
  func attempt<T>(label: String, onRefusal: () throws -> Void, _ body: () throws(DESFireCommandError) -> T) throws -> T {
    guard !contains(label) else { throw DESFireTagSteps.notAgain(label) }
    do throws(DESFireCommandError) {
      return try body()
    } catch {
      guard error.status == .authenticationError else { throw error }
      insert(label)
      try onRefusal()
      throw error
    }
  }
}
