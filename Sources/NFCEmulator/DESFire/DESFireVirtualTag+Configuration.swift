/// The PICC configuration SetConfiguration (5Ch) option 00h sets: one byte whose bits can only
/// be set, never cleared.
///
/// Sources: the EV1 data sheet's command is not public; its bytes are libfreefare's
/// `mifare_desfire_set_configuration` (libfreefare/mifare_desfire.c: `5C 00`, then
/// `(enable_random_uid ? 02 : 00) | (disable_format ? 01 : 00)` enciphered from the third byte on)
/// and Proxmark3's `DesfireSetConfiguration` (client/src/mifare/desfirecore.c), which name the two
/// bits so. The random ID's form is ISO/IEC 14443-3's RID (a single-size UID whose first byte is
/// 08h, the rest random), what real cards with it show
/// (https://github.com/flipperdevices/flipperzero-firmware/issues/1447: "4-byte, starting with
/// 0x08"; https://github.com/emsec/ChameleonMini/issues/249: "every time I read the card, the UID
/// is changing").
public struct DESFireConfiguration: OptionSet, Hashable, Sendable {
  /// The byte as SetConfiguration sends it and the image keeps it.
  public let rawValue: UInt8
  /// From the byte.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Bit 0: FormatPICC is refused (`91 9D`) for good.
  public static let formatDisabled = DESFireConfiguration(rawValue: 0x01)
  /// Bit 1: the card shows a random ID at anticollision, a new one at each activation; only
  /// GetCardUID (after an authentication) gives the real UID.
  public static let randomID = DESFireConfiguration(rawValue: 0x02)
  /// Every bit the card knows.
  public static let known: DESFireConfiguration = [.formatDisabled, .randomID]
}

extension DESFireVirtualTag {
  /// The UID the card shows at anticollision (what a reader reports, what `scan` shows): the
  /// real ``uid``, or with ``DESFireConfiguration/randomID`` on, `08` and 3 random bytes.
  public var identifier: [UInt8] { activationUID ?? uid }

  /// GetVersion's UID field: the real UID, or zeros while a random ID is shown (the card does
  /// not give its UID away there, as the NTAG 424 DNA's GetVersion does not with its random ID:
  /// NT4H2421Gx data sheet, GetVersion).
  var versionUID: [UInt8] {
    configuration.contains(.randomID) ? [UInt8](repeating: 0, count: uid.count) : uid
  }

  /// A new activation: with a random ID, a new one, when the host talked to the card since the
  /// last one (a reader that resets the card between its poll and its first command, as the
  /// ACR122U face does, still sees the UID it polled).
  func activate() {
    defer { exchangedSinceActivation = false }
    guard configuration.contains(.randomID) else {
      activationUID = nil
      return
    }
    guard activationUID == nil || exchangedSinceActivation else { return }
    activationUID = Self.randomID()
  }

  /// Turns the random ID on as SetConfiguration would, showing one now: a feed's random-UID card
  /// (``FeedSettings/randomUID``).
  func turnOnRandomID() {
    configuration.insert(.randomID)
    activationUID = Self.randomID()
    exchangedSinceActivation = false
  }

  /// `08` and 3 random bytes (ISO/IEC 14443-3 RID).
  static func randomID() -> [UInt8] {
    var generator = SystemRandomNumberGenerator()
    return [0x08] + (0..<3).map { _ in UInt8.random(in: 0...255, using: &generator) }
  }

  /// SetConfiguration (5Ch): option 00h at the PICC level after the PICC master key's
  /// authentication, `flags ‖ CRC32(5C ‖ 00 ‖ flags) ‖ 00…` enciphered (after 0Ah the legacy
  /// form, as ChangeKeySettings). A bit once set stays; the random ID shows from the next
  /// activation. Other options (default keys, ATS) answer 9Eh: not modelled.
  func setConfiguration(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard let option = data.first, data.count > 1 else { return (.lengthError, []) }
    guard selectedAID == 0, masterKeyAuthenticated, let channel else { return (.authenticationError, []) }
    guard option == 0x00 else { return (.parameterError, []) }
    guard let flags = channel.decipher(prefix: [0x5C, option], Array(data.dropFirst()), length: 1)?.first else {
      return (.integrityError, [])
    }
    return addConfiguration(flags)
  }

  /// SetConfiguration in an EV2 session: `option ‖ flags`, opened from Full mode (its MAC checked,
  /// option the one-byte header, as Proxmark3's desfiresecurechan.c frames it).
  func ev2SetConfiguration(_ plain: [UInt8]) -> (DESFireStatus, [UInt8]) {
    guard plain.count == 2 else { return (.lengthError, []) }
    guard selectedAID == 0, masterKeyAuthenticated else { return (.authenticationError, []) }
    guard plain[0] == 0x00 else { return (.parameterError, []) }
    return addConfiguration(plain[1])
  }

  /// Sets the bits of option 00h's flags; a bit once set stays.
  private func addConfiguration(_ flags: UInt8) -> (DESFireStatus, [UInt8]) {
    let added = DESFireConfiguration(rawValue: flags)
    guard DESFireConfiguration.known.isSuperset(of: added) else { return (.parameterError, []) }
    if !configuration.isSuperset(of: added) {
      configuration.formUnion(added)
      memoryGeneration += 1
    }
    return (.operationOK, [])
  }
}
