import NFCTransport

/// The MIFARE DESFire Light's levels: it has no SelectApplication (5Ah), so its MF (3F00h) and its
/// one application are selected by ISO SELECT (Proxmark3 doc/desfire.md, "DESFire Light": the
/// application "can only be selected by ISO SELECT"; flipperdevices/flipperzero-firmware issue
/// 4026: ISO and wrapped APDUs only), by the application's DF name as shipped,
/// `A0 00 00 03 96 56 43 41 03 F0 15 40 00 00 00 0B`, or, on a Light set up for NDEF, by the NDEF
/// application's name `D2 76 00 00 85 01 01` its DF was renamed to (SetConfiguration 06h, as
/// m5stack/M5Unit-NFC's `prepare_desfire_light` does; docs/desfire.md, "DESFire Light").
extension DESFireCard {
  /// The Light application's DF name as shipped.
  public static let lightDFName: [UInt8] = [0xA0, 0x00, 0x00, 0x03, 0x96, 0x56, 0x43, 0x41,
                                            0x03, 0xF0, 0x15, 0x40, 0x00, 0x00, 0x00, 0x0B]
  /// The NDEF application's DF name (NFC Forum Type 4 Tag, mapping 2.0).
  public static let ndefDFName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]

  /// What ``selectApplication(_:)`` does on a Light: the MF (3F00h) for ``DESFireApplicationID/picc``,
  /// its one application for any other AID (``selectLightApplication()``).
  func selectLightLevel(_ aid: DESFireApplicationID) throws(DESFireCommandError) {
    if aid == .picc {
      let status = try isoSelect([0x00, 0xA4, 0x00, 0x0C, 0x02, 0x3F, 0x00], name: "SELECT MF 3F00")
      guard status == .success else { throw .isoStatus(status, command: "SELECT MF 3F00") }
      return
    }
    _ = try selectLightApplication()
  }

  /// Selects a Light's application (ends any authentication): by its shipped DF name, else by the
  /// NDEF application's; returns the name that answered `90 00`.
  /// - Throws: ``DESFireCommandError/isoStatus(_:command:)`` when neither is selected.
  @discardableResult
  public func selectLightApplication() throws(DESFireCommandError) -> [UInt8] {
    secureMessaging = nil
    var last = StatusWord.fileNotFound
    for name in [Self.lightDFName, Self.ndefDFName] {
      last = try isoSelect([0x00, 0xA4, 0x04, 0x0C, UInt8(name.count)] + name, name: "SELECT of the DESFire Light's application")
      if last == .success { return name }
      guard last == .fileNotFound else { break }
    }
    throw .isoStatus(last, command: "SELECT of the DESFire Light's application")
  }

  /// One ISO SELECT (no answer data asked): its status word.
  private func isoSelect(_ apdu: [UInt8], name: String) throws(DESFireCommandError) -> StatusWord {
    let reply: [UInt8]
    do { reply = try link.transceive(apdu) } catch { throw .link(error, command: name) }
    guard let response = ResponseAPDU(reply) else { throw .malformed("\(reply.count) bytes, no status word", command: name) }
    return response.statusWord
  }
}
