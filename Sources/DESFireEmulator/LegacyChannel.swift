import DESFire
import NFCEmulator

/// The card's side of the legacy (D40) secure messaging after Authenticate (0Ah), over the
/// DESFire module's ``DESFireLegacyChannel`` (libcrypto through COpenSSL). Its plain commands and
/// answers carry no MAC; `decipher(prefix:_:length:)` (ChangeKeySettings) and
/// `decipherChangeKey` are the legacy forms (CRC16 over the data alone, send mode); the MAC
/// methods are never used for it (the virtual card asks them only of a channel that is not
/// legacy) and fail their checks. A failure of libcrypto mid-session reads as a failed check (1Eh).
final class LegacyChannel: DESFireSecureChannel, DESFireLegacySecureChannel {
  let legacy: DESFireLegacyChannel
  init(_ legacy: DESFireLegacyChannel) { self.legacy = legacy }

  var isLegacy: Bool { true }
  var blockLength: Int { 8 }
  func received(_ command: [UInt8]) {}
  func macAnswer(_ data: [UInt8]) -> [UInt8] { data }
  func encipherAnswer(_ data: [UInt8]) -> [UInt8] { legacyEncipherAnswer(data) }
  func checkMAC(_ message: [UInt8], mac: [UInt8]) -> Bool { false }
  func decipher(prefix: [UInt8], _ ciphertext: [UInt8], length: Int) -> [UInt8]? { legacyDecipher(ciphertext, length: length) }
  func decipherChangeKey(keyNumber: UInt8, _ ciphertext: [UInt8], keyLength: Int, withVersion: Bool,
                         oldKey: [UInt8]?) -> (key: [UInt8], version: UInt8?)? {
    (try? legacy.decipherChangeKey(ciphertext, keyLength: keyLength, withVersion: withVersion, oldKey: oldKey)) ?? nil
  }

  func legacyMACAnswer(_ data: [UInt8]) -> [UInt8] {
    guard let mac = try? legacy.mac(data) else { return data }
    return data + mac
  }
  func legacyCheckMAC(_ data: [UInt8], mac: [UInt8]) -> Bool { (try? legacy.checkMAC(data, mac: mac)) ?? false }
  func legacyEncipherAnswer(_ data: [UInt8]) -> [UInt8] { (try? legacy.encipherAnswer(data)) ?? [] }
  func legacyDecipher(_ ciphertext: [UInt8], length: Int) -> [UInt8]? {
    (try? legacy.decipherCommand(ciphertext, length: length)) ?? nil
  }
}
