import NFCTags

extension DESFireCard {
  /// ChangeFileSettings (5Fh) that turns Secure Dynamic Messaging on for a MIFARE DESFire EV3
  /// standard data file created with SDM pre-enabled (FileOption bit 6): `settings` is the NTAG 424
  /// DNA's ChangeFileSettings data (`FileOption ‖ AR ‖ SDMOptions ‖ SDMAccessRights ‖ offsets…`,
  /// NT4H2421Gx §10.7.1, as NTAG424Commands' `FileSettings.changeData()` builds it), sent in the
  /// running EV2 session in CommMode.Full with `FileNo` plain (the layout
  /// MichaelsPlayground/MifareDesfireEv3Sun_Reference's `DesfireEv3Light.java` sends; docs/desfire.md,
  /// "SDM on the virtual EV3").
  /// - Throws: ``DESFireCommandError/invalidArgument(_:)`` (nothing sent) for a file number past 31,
  ///   settings without FileOption bit 6 or shorter than 3 bytes, or no EV2 session (authenticate
  ///   with ``authenticateEV2First(keyNumber:key:rndA:)`` and the file's Change key first); the
  ///   card's refusals (`91 9E` on a file not created with bit 6, or on an EV1/EV2).
  public func enableSDM(file number: UInt8, settings: [UInt8]) throws(DESFireCommandError) {
    guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
    guard settings.count >= 3, let option = settings.first, option & DESFireCard.sdmPreEnabledOption != 0 else {
      throw .invalidArgument("SDM file settings start with a FileOption with bit 6 (SDM) set and the access rights")
    }
    guard let session = secureMessaging as? DESFireEV2SecureMessaging else {
      throw .invalidArgument("ChangeFileSettings with SDM needs an EV2 session with the file's Change key (AuthenticateEV2First)")
    }
    try ev2ChangeFileSettings(number, settings: settings, free: false, session: session)
  }
}
