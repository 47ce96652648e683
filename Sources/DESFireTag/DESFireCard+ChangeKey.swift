import DESFire
import Hex
import NFCTags

/// The key ChangeKey (C4h) changes.
public enum DESFireKeySlot: Sendable, Hashable {
  /// The PICC master key (key 0 at the PICC level), whose type may change: KeyNo carries the new
  /// type in bits 7-6 (00h DES or 2K3DES, 40h 3K3DES, 80h AES; MF3ICDx21_41_81 §9.3, and
  /// https://github.com/waza-ari/python-desfire/issues/4 for AES needing 80h).
  case piccMaster
  /// Key `number` (0-13) of the selected application, whose type stays the application's.
  case application(UInt8)
}

/// The key commands that need a session (NXP MF3ICDx21_41_81 data sheet §9.3): ChangeKey,
/// ChangeKeySettings and GetCardUID. After the legacy Authenticate (0Ah) they take the legacy
/// form (DESFireCard+LegacyModes.swift, DESFireCard+LegacyFiles.swift); without a session the host
/// refuses before sending anything.
extension DESFireCard {
  /// ChangeKey (C4h): `slot` becomes `newKey` (an AES key with `version`; a DES-family key's
  /// version is the parity bits of its first 8 bytes, as given).
  ///
  /// The authenticated key itself: the cryptogram is `new [‖ version] ‖ CRC32(C4 ‖ KeyNo ‖ new
  /// [‖ version])`, and the card ends the session (its `00` carries no CMAC; `secureMessaging`
  /// is nil after it). Another key: `(new ⊕ old) [‖ version] ‖ CRC32(C4 ‖ KeyNo ‖ …) ‖
  /// CRC32(new)`, so `oldKey` (its current value) is needed; the session goes on and the answer's
  /// CMAC is checked. Both enciphered with the session key from the current IV, zeros to whole
  /// blocks (DESFireEV1Channel's `changeKeyCryptogram`).
  /// - Throws: `DESFireCommandError/invalidArgument(_:)` (nothing sent) without a session, for
  ///   a key number past 13, for another key without `oldKey`, or an `oldKey` of another length;
  ///   the card's refusals (`91 1E` when the old key given is not the card's). No key in any error.
  public func changeKey(_ slot: DESFireKeySlot, to newKey: DESFireKeyMaterial, version: UInt8 = 0,
                        oldKey: DESFireKeyMaterial? = nil) throws(DESFireCommandError) {
    let number: UInt8, keyByte: UInt8
    switch slot {
    case .piccMaster:
      number = 0
      switch newKey.type {
      case .des: keyByte = 0x00
      case .tripleDES3K: keyByte = 0x40
      case .aes: keyByte = 0x80
      }
    case .application(let n):
      guard n <= 13 else { throw .invalidArgument("an application has keys 0 to 13, not \(n)") }
      (number, keyByte) = (n, n)
    }
    let name = slot == .piccMaster ? "ChangeKey (PICC master key)" : "ChangeKey \(number)"
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {  // DESFireCard+EV2Commands.swift
      return try ev2ChangeKey(number: number, keyByte: keyByte, to: newKey, version: version, oldKey: oldKey, name: name, session: ev2)
    }
    if let legacy = secureMessaging as? DESFireLegacySecureMessaging {  // DESFireCard+LegacyModes.swift
      return try legacyChangeKey(number: number, keyByte: keyByte, to: newKey, version: version, oldKey: oldKey, name: name, session: legacy)
    }
    let session = try ev1Session(name, needs: "an enciphered cryptogram")
    let sameKey = number == session.keyNumber
    guard sameKey || oldKey != nil else {
      throw .invalidArgument("\(name): key \(number) is not the authenticated key \(session.keyNumber), so its current value is needed")
    }
    let cryptogram: [UInt8]
    do {
      cryptogram = try session.channel.changeKeyCryptogram(keyNumber: keyByte, newKey: newKey, version: version,
                                                           oldKey: sameKey ? nil : oldKey)
    } catch .invalidLength {
      throw .invalidArgument("\(name): the current key given is not of the new key's type")
    } catch {
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
    if sameKey {
      // The card ends the session: a bare `00`, no CMAC.
      secureMessaging = nil
      let answer = try send(0xC4, [keyByte] + cryptogram, name: name)
      guard answer.isEmpty else { throw .malformed("\(answer.count) bytes after changing the authenticated key", command: name) }
      return
    }
    let answer = try sendProtected(0xC4, [keyByte] + cryptogram, name: name, session: session) { session, answer throws(DESFireCommandError) in
      try session.received(answer, command: name)
    }
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }

  /// ChangeKeySettings (54h): the selected level's key settings become `settings` (KS1), sent as
  /// `KS1 ‖ CRC32(54 ‖ KS1) ‖ 00…` enciphered; needs the level's master key authenticated.
  /// - Throws: `DESFireCommandError/invalidArgument(_:)` without a session (nothing sent);
  ///   the card's refusals (`91 9D` when the settings are frozen); an answer whose CMAC fails.
  public func changeKeySettings(_ settings: UInt8) throws(DESFireCommandError) {
    let name = "ChangeKeySettings"
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {  // DESFireCard+EV2Commands.swift
      return try ev2ChangeKeySettings(settings, session: ev2)
    }
    if let legacy = secureMessaging as? DESFireLegacySecureMessaging {  // DESFireCard+LegacyModes.swift
      return try legacyChangeKeySettings(settings, session: legacy)
    }
    let session = try ev1Session(name, needs: "an enciphered command")
    let cryptogram: [UInt8]
    do { cryptogram = try session.channel.encipherCommand(prefix: [0x54], [settings]) } catch {
      secureMessaging = nil
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
    let answer = try sendProtected(0x54, cryptogram, name: name, session: session) { session, answer throws(DESFireCommandError) in
      try session.received(answer, command: name)
    }
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }

  /// GetCardUID (51h): the card's real UID (a card with random UIDs shows it only so), which
  /// comes as `UID ‖ CRC32(UID ‖ 00) ‖ 00…` enciphered, deciphered and its CRC32 checked (after
  /// the legacy Authenticate 0Ah: `UID ‖ CRC16(UID) ‖ 00…`, DESFireCard+LegacyFiles.swift).
  /// - Throws: `DESFireCommandError/invalidArgument(_:)` without a session (nothing sent);
  ///   `DESFireCommandError/integrity(_:command:)` when it does not decipher to a UID and its CRC32.
  public func cardUID() throws(DESFireCommandError) -> [UInt8] {
    let name = "GetCardUID"
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {  // DESFireCard+EV2Commands.swift
      return try ev2CardUID(session: ev2)
    }
    if let legacy = secureMessaging as? DESFireLegacySecureMessaging {  // DESFireCard+LegacyFiles.swift
      return try legacyCardUID(session: legacy)
    }
    let session = try ev1Session(name, needs: "an enciphered answer")
    try session.willSend([0x51], command: name)  // the command's CMAC (not sent) moves the IV
    let uid = try sendProtected(0x51, [], name: name, session: session) { session, answer throws(DESFireCommandError) in
      // A UID's lengths, 7 first: read from the end, a CRC32 that begins with 00 would make a
      // 7-byte UID 8 bytes long (1 UID in 256).
      try Self.decipher(answer, session: session, lengths: [7, 10, 4], name: name)
    }
    guard [4, 7, 10].contains(uid.count) else { throw .malformed("a UID of \(uid.count) bytes", command: name) }
    return uid
  }
}
