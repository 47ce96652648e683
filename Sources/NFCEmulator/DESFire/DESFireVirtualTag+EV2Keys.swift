/// ChangeKey (C4h), ChangeKeySettings (54h) and ChangeFileSettings (5Fh) in an EV2 session, their
/// data already deciphered (DESFireVirtualTag+EV2.swift): the EV2 cryptograms (NT4H2421Gx data
/// sheet §10.6.1; Proxmark3 `client/src/mifare/desfirecore.c`'s ChangeKey for EV2) with the
/// rights of their EV1 forms (DESFireVirtualTag+Keys.swift, +FileKinds.swift).
extension DESFireVirtualTag {
  /// ChangeKey: `KeyNo ‖ NewKey ‖ KeyVer` for the session's own key, `KeyNo ‖ (NewKey ⊕ OldKey) ‖
  /// KeyVer ‖ CRC32(NewKey)` for another. AES keys only (EV2 authentication needs them, so an
  /// application's keys are AES; at the PICC level KeyNo's bits 7-6 must name AES, else 9Eh).
  /// The own key: `91 00` without a MAC and the session ends; another: a MACed answer.
  func ev2ChangeKey(_ data: [UInt8], session: any DESFireEV2Session) -> (DESFireStatus, [UInt8]) {
    guard let sent = data.first, data.count > 1 else { return secured((.lengthError, [])) }
    guard let authenticated = authenticatedKey else { return secured((.authenticationError, [])) }
    let atPICC = selectedAID == 0
    let number = atPICC ? sent & 0x3F : sent
    let keys = (currentApplication ?? picc).keys
    guard Int(number) < keys.count else { return secured((.noSuchKey, [])) }
    let old = keys[Int(number)]
    guard old.type == .aes, !atPICC || sent & 0xC0 == DESFireKeyType.aes.rawValue else { return secured((.parameterError, [])) }
    if let refused = changeKeyRefusal(number, authenticated: authenticated) { return secured((refused, [])) }
    let sameKey = number == authenticated
    let opened: (key: [UInt8], version: UInt8)
    switch session.openChangeKey(Array(data.dropFirst()), oldKey: sameKey ? nil : old.value) {
    case .failure(let status): return secured((status, []))
    case .success(let found): opened = found
    }
    let changed = DESFireKey(type: .aes, value: opened.key, version: opened.version)
    if atPICC {
      picc.keys[Int(number)] = changed
      memoryGeneration += 1
    } else {
      updateCurrent { $0.keys[Int(number)] = changed }
    }
    guard !sameKey else {
      session.countUnMACedResponse()
      endAuthentication()
      answerProtected = true
      return (.operationOK, [])
    }
    return ev2Answer((.operationOK, []), mode: .full, session: session)
  }

  /// ChangeKeySettings: the new KS1 (one byte, deciphered); the level's master key, while KS1 bit 3
  /// (configuration changeable) is set.
  func ev2ChangeKeySettings(_ data: [UInt8]) -> (DESFireStatus, [UInt8]) {
    guard data.count == 1, let settings = data.first else { return (.lengthError, []) }
    guard masterKeyAuthenticated else { return (needsMasterKey, []) }
    guard (currentApplication ?? picc).keySettings & 0x08 != 0 else { return (.permissionDenied, []) }
    if selectedAID == 0 {
      picc.keySettings = settings
      memoryGeneration += 1
    } else {
      updateCurrent { $0.keySettings = settings }
    }
    return (.operationOK, [])
  }

  /// ChangeFileSettings: FileNo, then option and access rights (3 bytes; deciphered when the
  /// change right is a key, which must be the authenticated one; plain when it is free; F: 9Dh).
  func ev2ChangeFileSettings(_ data: [UInt8]) -> (DESFireStatus, [UInt8]) {
    guard let number = data.first else { return (.lengthError, []) }
    guard let application = currentApplication else { return (.permissionDenied, []) }
    guard number <= 0x1F else { return (.parameterError, []) }
    guard let file = application.files[number] else { return (.fileNotFound, []) }
    switch file.access.change {
    case DESFireAccessRights.free: break
    case DESFireAccessRights.never: return (.permissionDenied, [])
    case let key: guard authenticatedKey == key else { return (.permissionDenied, []) }
    }
    let settings = Array(data.dropFirst())
    if settings.first.map({ $0 & 0x40 != 0 }) ?? false { return ev2ChangeSDMSettings(file: file, settings: settings) }  // DESFireVirtualTag+SDM.swift
    guard settings.count == 3 else { return (.lengthError, []) }
    guard let mode = DESFireCommunicationMode(optionByte: settings[0]) else { return (.parameterError, []) }
    updateCurrent {
      $0.files[number]?.communication = mode
      $0.files[number]?.access = DESFireAccessRights(bytes: settings[1], settings[2])
    }
    return (.operationOK, [])
  }
}
