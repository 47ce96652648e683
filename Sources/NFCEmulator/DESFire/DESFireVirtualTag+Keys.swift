/// Authentication and ChangeKey (NXP MF3ICDx21_41_81 data sheet §9.3 "Security related
/// commands"), with the cryptography of the installed ``DESFireSecurity``.
extension DESFireVirtualTag {
  /// The keys of the selected level: the PICC's or the application's.
  private var levelKeys: [DESFireKey] { (currentApplication ?? picc).keys }

  /// Authenticate (0Ah), AuthenticateISO (1Ah), AuthenticateAES (AAh): KeyNo → `AF ek(RndB)`.
  /// Any earlier authentication ends first.
  func authenticate(_ command: UInt8, _ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard let security else { return (.illegalCommand, []) }
    guard data.count == 1, let keyNumber = data.first else { return (.lengthError, []) }
    endAuthentication()
    let keys = levelKeys
    guard Int(keyNumber) < keys.count else { return (.noSuchKey, []) }
    guard let authentication = security.authenticate(command: command, key: keys[Int(keyNumber)]) else {
      return (.authenticationError, [])
    }
    pending = .authentication(keyNumber: keyNumber, authentication)
    return (.additionalFrame, authentication.challenge)
  }

  /// The host's token: `00 ek(RndA')` and the session, or AEh.
  func finishAuthentication(keyNumber: UInt8, _ authentication: any DESFireAuthenticating,
                            token: [UInt8]) -> (DESFireStatus, [UInt8]) {
    guard let (answer, channel) = authentication.finish(token) else { return (.authenticationError, []) }
    authenticatedKey = keyNumber
    self.channel = channel
    answerProtected = true
    return (.operationOK, answer)
  }

  /// ChangeKey (C4h): KeyNo, then the cryptogram (EV1's, or after 0Ah the legacy one with CRC16s:
  /// DESFireSecureChannel's `decipherChangeKey`, the channel's scheme). At the PICC level
  /// KeyNo's bits 7-6 give the PICC master key's new type (00 DES/2K3DES, 40 3K3DES, 80 AES).
  /// Changing the authenticated key ends the session and answers a bare `00`.
  func changeKey(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard let sent = data.first, data.count > 1 else { return (.lengthError, []) }
    guard let authenticated = authenticatedKey else { return (.authenticationError, []) }
    guard let channel else { return (.permissionDenied, []) }  // EV1's or the legacy scheme's cryptogram
    let atPICC = selectedAID == 0
    let number = atPICC ? sent & 0x3F : sent
    let keys = levelKeys
    guard Int(number) < keys.count else { return (.noSuchKey, []) }
    let newType: DESFireKeyType
    if atPICC {
      guard let type = DESFireKeyType(rawValue: sent & 0xC0) else { return (.parameterError, []) }
      newType = type
    } else {
      newType = keys[Int(number)].type
    }
    if let refused = changeKeyRefusal(number, authenticated: authenticated) { return (refused, []) }
    let sameKey = number == authenticated
    guard let (key, version) = channel.decipherChangeKey(keyNumber: sent, Array(data.dropFirst()), keyLength: newType.keyLength,
                                                         withVersion: newType == .aes,
                                                         oldKey: sameKey ? nil : keys[Int(number)].value) else {
      return (.integrityError, [])
    }
    let changed = DESFireKey(type: newType, value: key, version: version ?? Self.parityVersion(key))
    if atPICC {
      picc.keys[Int(number)] = changed
      memoryGeneration += 1
    } else {
      updateCurrent { $0.keys[Int(number)] = changed }
    }
    guard !sameKey else {
      endAuthentication()
      answerProtected = true
      return (.operationOK, [])
    }
    return (.operationOK, [])
  }

  /// ChangeKeySettings (54h): the new KS1, enciphered with its CRC32 (after 0Ah: its CRC16, send
  /// mode); the master key of the level, while KS1 bit 3 (configuration changeable) is set.
  func changeKeySettings(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard !data.isEmpty else { return (.lengthError, []) }
    guard masterKeyAuthenticated else { return (needsMasterKey, []) }
    guard let channel else { return (.permissionDenied, []) }  // EV1's or the legacy scheme's cryptogram
    guard (currentApplication ?? picc).keySettings & 0x08 != 0 else { return (.permissionDenied, []) }
    guard let settings = channel.decipher(prefix: [0x54], Array(data), length: 1)?.first else { return (.integrityError, []) }
    if selectedAID == 0 {
      picc.keySettings = settings
      memoryGeneration += 1
    } else {
      updateCurrent { $0.keySettings = settings }
    }
    return (.operationOK, [])
  }

  /// GetCardUID (51h): the UID, enciphered, to any authenticated key (EV1's `UID ‖ CRC32`, or after
  /// 0Ah the legacy `UID ‖ CRC16`, DESFireVirtualTag+Legacy.swift).
  func getCardUID(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard data.isEmpty else { return (.lengthError, []) }
    guard authenticatedKey != nil else { return (.authenticationError, []) }
    guard let channel else { return (.permissionDenied, []) }  // EV1's or the legacy scheme's
    answerProtected = true
    return (.operationOK, channel.encipherAnswer(uid))
  }

  /// Whether the key settings let the authenticated key change key `number`: the master key only
  /// with itself and while KS1 bit 0 is set; another key with the key KS1 bits 7-4 name (0 the
  /// master key, E the key itself, F none).
  func changeKeyRefusal(_ number: UInt8, authenticated: UInt8) -> DESFireStatus? {
    let settings = (currentApplication ?? picc).keySettings
    if number == 0 || currentApplication == nil {
      guard settings & 0x01 != 0 else { return .permissionDenied }
      return authenticated == 0 ? nil : .authenticationError
    }
    switch settings >> 4 {
    case 0x0F: return .permissionDenied
    case 0x0E: return authenticated == number ? nil : .authenticationError
    case let changer: return authenticated == changer ? nil : .authenticationError
    }
  }

  /// A DES-family key's version: the parity bits (bit 0) of its first 8 bytes, byte i giving
  /// version bit 7 - i.
  static func parityVersion(_ key: [UInt8]) -> UInt8 {
    key.prefix(8).enumerated().reduce(0) { $0 | ($1.element & 1) << (7 - $1.offset) }
  }
}
