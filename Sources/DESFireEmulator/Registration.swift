import DESFire
import NFCEmulator

/// Installs the DESFire module's cryptography (libcrypto through COpenSSL) as the security of
/// every virtual MIFARE DESFire (NFCEmulator's ``DESFireSecurityRegistry``), so that the
/// `desfire-…` kinds authenticate (0Ah, 1Ah, AAh), speak EV1 secure messaging and change keys.
/// Call it once at the start of a program; idempotent.
///
/// NFCEmulator builds the cards itself and has no cipher, so that its programs and library users
/// build it without OpenSSL's headers; this module joins the two, as NTAG424Emulator does for
/// the NTAG 424 DNA.
public func register() {
  DESFireSecurityRegistry.install(OpenSSLDESFireSecurity())
}

/// The security over the DESFire module; `random` gives the card's RndB and, for EV2, its TI (tests fix them).
public struct OpenSSLDESFireSecurity: DESFireSecurity {
  let random: (@Sendable (Int) -> [UInt8])?

  /// Card randoms from OpenSSL's generator, or from `random` (tests).
  public init(random: (@Sendable (Int) -> [UInt8])? = nil) {
    self.random = random
  }

  /// The card's side of the authentication `command` with `key`; nil when the command does not
  /// take the key's type or libcrypto is missing.
  public func authenticate(command: UInt8, key: DESFireKey) -> (any DESFireAuthenticating)? {
    guard let command = DESFireAuthenticationCommand(rawValue: command),
          let material = try? DESFireKeyMaterial(Self.type(key.type), key.value) else { return nil }
    let rndB = random?(material.randomLength)
    guard let card = try? DESFireCardAuthentication(command: command, key: material, rndB: rndB) else { return nil }
    return Authenticating(card: card)
  }

  private static func type(_ type: DESFireKeyType) -> DESFireKeyMaterial.KeyType {
    switch type {
    case .des: return .des
    case .tripleDES3K: return .tripleDES3K
    case .aes: return .aes
    }
  }
}

private final class Authenticating: DESFireAuthenticating {
  let card: DESFireCardAuthentication
  init(card: DESFireCardAuthentication) { self.card = card }

  var challenge: [UInt8] { card.challenge }

  func finish(_ token: [UInt8]) -> (answer: [UInt8], channel: any DESFireSecureChannel)? {
    guard let done = try? card.finish(token) else { return nil }
    if card.command == .legacy {  // LegacyChannel.swift
      guard let legacy = try? DESFireLegacyChannel(sessionKey: done.sessionKey) else { return nil }
      return (done.answer, LegacyChannel(legacy))
    }
    guard let ev1 = try? DESFireEV1Channel(sessionKey: done.sessionKey) else { return nil }
    return (done.answer, Channel(ev1, legacy: false))
  }
}

/// EV1 secure messaging; a failure of libcrypto mid-session reads as a failed check (1Eh).
private final class Channel: DESFireSecureChannel {
  let ev1: DESFireEV1Channel
  let isLegacy: Bool
  init(_ ev1: DESFireEV1Channel, legacy: Bool) {
    self.ev1 = ev1
    isLegacy = legacy
  }

  var blockLength: Int { ev1.cipher.blockLength }
  func received(_ command: [UInt8]) { _ = try? ev1.mac(command) }
  func macAnswer(_ data: [UInt8]) -> [UInt8] { (try? ev1.macAnswer(data, status: 0x00)) ?? data }
  func encipherAnswer(_ data: [UInt8]) -> [UInt8] { (try? ev1.encipherAnswer(data, status: 0x00)) ?? [] }
  func checkMAC(_ message: [UInt8], mac: [UInt8]) -> Bool { (try? ev1.checkMAC(message, mac: mac)) ?? false }
  func decipher(prefix: [UInt8], _ ciphertext: [UInt8], length: Int) -> [UInt8]? {
    (try? ev1.decipherCommand(prefix: prefix, ciphertext, length: length)) ?? nil
  }
  func decipherChangeKey(keyNumber: UInt8, _ ciphertext: [UInt8], keyLength: Int, withVersion: Bool,
                         oldKey: [UInt8]?) -> (key: [UInt8], version: UInt8?)? {
    (try? ev1.decipherChangeKey(keyNumber: keyNumber, ciphertext, keyLength: keyLength, withVersion: withVersion, oldKey: oldKey)) ?? nil
  }
}
