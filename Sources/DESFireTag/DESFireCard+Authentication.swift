import DESFire
import Hex
import NFCTags

/// The host's side of MIFARE DESFire's three-pass mutual authentication over ``DESFireCard``
/// (NXP MF3ICDx21_41_81 data sheet §9.3, Authenticate 0Ah, AuthenticateISO 1Ah, AuthenticateAES
/// AAh), with the DESFire module's ciphers (libcrypto through COpenSSL): the card sends
/// `E(K, RndB)`, the host answers `RndA ‖ RndB'` (RndB rotated left by one byte), the card answers
/// `E(K, RndA')`, which the host checks.
///
/// EV1 (1Ah, AAh): CBC, each message's IV the last ciphertext block of the one before, and EV1
/// secure messaging after it (``DESFireEV1SecureMessaging``: every answer's CMAC checked). Legacy
/// (0Ah): each block from a zero IV, the host deciphering to send (D40 "send mode"), and the
/// legacy secure messaging after it (``DESFireLegacySecureMessaging``: plain answers carry no MAC;
/// ReadData and WriteData in MAC and full mode, DESFireCard+LegacyModes.swift).
extension DESFireCard {
  /// Authenticates with key `keyNumber` of the selected level and installs the secure messaging
  /// that follows (``secureMessaging``).
  /// - Parameters:
  ///   - rndA: the host's random (tests); nil for a fresh one from libcrypto.
  /// - Throws: ``DESFireCommandError/status(_:command:)`` with `91 AE` when the card refuses the
  ///   key, or when its answer does not prove it knows the key (RndA' wrong): both mean a wrong
  ///   key; ``DESFireCommandError/invalidArgument(_:)`` for a key the command does not take;
  ///   the link's failures. The key never appears in an error.
  public func authenticate(_ command: DESFireAuthenticationCommand, keyNumber: UInt8, key: DESFireKeyMaterial,
                           rndA: [UInt8]? = nil) throws(DESFireCommandError) {
    secureMessaging = nil
    let name = "Authenticate (\(hexString([command.rawValue]))h) key \(keyNumber)"
    guard command.takes(key.type) else {
      throw .invalidArgument("\(name): a \(key.type) key does not authenticate with \(hexString([command.rawValue]))h")
    }
    let n = key.randomLength
    let (challenge, first) = try exchangeFrame(command.rawValue, [keyNumber], name: name)
    guard first == .additionalFrame else { throw .status(first, command: name) }
    guard challenge.count == n else { throw .malformed("a challenge of \(challenge.count) bytes, not \(n)", command: name) }
    do {
      let cipher = try key.cipher()
      let zero = [UInt8](repeating: 0, count: cipher.blockLength)
      let random = try rndA ?? DESFireCipher.random(count: n)
      guard random.count == n else { throw DESFireCryptoError.invalidLength(field: "RndA", actual: random.count) }
      let rotatedA = Array(random.dropFirst()) + random.prefix(1)
      let rndB: [UInt8], token: [UInt8], answerIV: [UInt8]
      if command == .legacy {
        rndB = try cipher.decrypt(challenge, iv: zero)
        let firstBlock = try cipher.decrypt(random, iv: zero)
        let rotatedB = Array(rndB.dropFirst()) + rndB.prefix(1)
        token = firstBlock + (try cipher.decrypt(zip(rotatedB, firstBlock).map { $0 ^ $1 }, iv: zero))
        answerIV = zero
      } else {
        rndB = try cipher.decrypt(challenge, iv: zero)
        token = try cipher.encrypt(random + rndB.dropFirst() + rndB.prefix(1), iv: Array(challenge.suffix(cipher.blockLength)))
        answerIV = Array(token.suffix(cipher.blockLength))
      }
      let (answer, status) = try exchangeFrame(0xAF, token, name: name)
      guard status == .operationOK else { throw DESFireCommandError.status(status, command: name) }
      guard answer.count == n, try cipher.decrypt(answer, iv: answerIV) == rotatedA else {
        // The card does not know the key it took the token with: as good as a refusal.
        throw DESFireCommandError.status(.authenticationError, command: name)
      }
      let sessionKey = try DESFireCardAuthentication.sessionKey(rndA: random, rndB: rndB, key: key)
      if command == .legacy {
        secureMessaging = try DESFireLegacySecureMessaging(sessionKey: sessionKey, keyNumber: keyNumber)
      } else {
        secureMessaging = try DESFireEV1SecureMessaging(sessionKey: sessionKey, keyNumber: keyNumber, command: command)
      }
    } catch let error as DESFireCommandError {
      throw error
    } catch {
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
  }
}

/// EV1 secure messaging in plain and MAC communication as the host does it (MF3ICDx21_41_81 §2.5):
/// each command's CMAC (not sent in plain mode) moves the IV; each answer carries the first 8
/// bytes of `CMAC(data ‖ status)`, which is checked before the data is given back (a missing or
/// wrong one is `DESFireCommandError.integrity`). MAC and full modes for file data,
/// ChangeKey, ChangeKeySettings and GetCardUID: DESFireCard+DataModes.swift, DESFireCard+ChangeKey.swift.
public final class DESFireEV1SecureMessaging: DESFireSecureMessaging {
  /// The channel: the session key's cipher and the IV.
  public let channel: DESFireEV1Channel
  /// The key number the session authenticated (ChangeKey tells the same key from another by it).
  public let keyNumber: UInt8
  /// The command that authenticated (1Ah or AAh).
  public let command: DESFireAuthenticationCommand

  /// A session from the authentication's session key, IV zero.
  public init(sessionKey: DESFireKeyMaterial, keyNumber: UInt8 = 0, command: DESFireAuthenticationCommand = .iso) throws(DESFireCryptoError) {
    channel = try DESFireEV1Channel(sessionKey: sessionKey)
    self.keyNumber = keyNumber
    self.command = command
  }

  public func willSend(_ command: [UInt8], command name: String) throws(DESFireCommandError) {
    do { try channel.mac(command) } catch { throw .malformed("the host's CMAC failed: \(error)", command: name) }
  }

  public func received(_ answer: [UInt8], command name: String) throws(DESFireCommandError) -> [UInt8] {
    guard answer.count >= 8 else { throw .integrity("\(answer.count) bytes, no CMAC", command: name) }
    let data = Array(answer.dropLast(8))
    let expected: [UInt8]
    do { expected = try channel.mac(data + [0x00]) } catch { throw .malformed("the host's CMAC failed: \(error)", command: name) }
    guard expected == Array(answer.suffix(8)) else { throw .integrity("the answer's CMAC does not match", command: name) }
    return data
  }
}
