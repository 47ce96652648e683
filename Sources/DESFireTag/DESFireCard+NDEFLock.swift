import DESFire
import Hex
import NFCTags
import NFCTransport

/// What ``DESFireCard/lockNDEF(key:)`` found and did.
public enum DESFireNDEFLockOutcome: Sendable, Hashable {
  /// The NDEF file's write access was never and the CC said so already: nothing was changed.
  case alreadyReadOnly
  /// The card is read-only now: what was left of the two steps was done and read back.
  case locked
}

/// `lock` of a MIFARE DESFire holding the NDEF application of NXP AN11004 ("MIFARE DESFire as
/// Type 4 Tag", mapping version 2.0, the read-only state): the NDEF file's write access never,
/// and the write access byte of the CC's NDEF File Control TLV FFh (NFC Forum Type 4 Tag
/// specification, the NDEF File Control TLV: FFh is "no write access granted at all").
///
/// The NDEF file (02h, ISO E104h) gets write, read&write and change never (Fh), its read right
/// and communication mode kept, by ChangeFileSettings (5Fh; MF3ICDx21_41_81 §9), after
/// authenticating with the key of its change right (key 0 as `format` and libfreefare make it);
/// then the CC (E103h) gets FFh at byte 14 by ISO UPDATE BINARY (its write right is free as
/// `format` makes it). Each is read back. The order makes a cut anywhere safe: a card whose
/// file is write-never but whose CC still says writable refuses writes already, and running
/// the lock again finishes the CC (no key needed for it); both done is "already read-only".
extension DESFireCard {
  /// AN11004's DF name of the NDEF application, D2760000850101.
  static let ndefApplicationDFName: [UInt8] = [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01]
  /// AN11004's NDEF file: DESFire file 02h.
  static let ndefFileNumber: UInt8 = 0x02
  /// The byte of the CC that holds the NDEF file's write access (the last of the NDEF File
  /// Control TLV, which starts at byte 7).
  static let ccWriteAccessOffset = 14

  /// Locks AN11004's NDEF application: see the extension's discussion.
  /// - Parameter key: the key that authenticates the NDEF file's change right, given the type
  ///   GetKeySettings names for the application's keys (called only when that right is a key
  ///   and the file is not write-never yet).
  /// - Throws: ``DESFireCommandError/invalidArgument(_:)`` for a card whose CC is not AN11004's
  ///   (no NDEF File Control TLV for E104h), whose NDEF file's change right is never, or whose
  ///   CC file takes no ISO UPDATE BINARY; the card's refusals (`91 AE` for a wrong key),
  ///   the link's failures, an answer whose CMAC fails; ``DESFireCommandError/malformed(_:command:)``
  ///   when what is read back is not what was written.
  public func lockNDEF(key: (DESFireSecretKey.Kind) throws(DESFireCommandError) -> DESFireSecretKey) throws(DESFireCommandError) -> DESFireNDEFLockOutcome {
    let ccLocked = try readNDEFCapabilityContainer()[Self.ccWriteAccessOffset] == 0xFF
    let version = try getVersion()
    try selectApplication(.ndefApplication)
    let settings = try fileSettings(Self.ndefFileNumber)
    let fileLocked = settings.access.write == 0x0F && settings.access.readWrite == 0x0F
    if fileLocked && ccLocked { return .alreadyReadOnly }
    if !fileLocked {
      let change = settings.access.change
      if change <= 0x0D {
        let kind: DESFireSecretKey.Kind
        switch try keySettings().keyType {
        case .des?: kind = .des
        case .tripleDES3K?: kind = .threeKeyTripleDES
        case .aes?: kind = .aes
        case nil: throw .malformed("the application's key type is the reserved 11b", command: "GetKeySettings")
        }
        try key(kind).authenticate(self, keyNumber: change, version: version)
      }
      let readOnly = DESFireFileAccess(read: settings.access.read, write: 0x0F, readWrite: 0x0F, change: 0x0F)
      do {
        try changeFileSettings(Self.ndefFileNumber, communication: settings.communication ?? .plain, access: readOnly,
                               changeRight: change)
      } catch .invalidArgument(let why) {
        throw .invalidArgument("\(why); the NDEF file cannot be made read-only")
      }
      let after = try fileSettings(Self.ndefFileNumber).access
      guard after.write == 0x0F, after.readWrite == 0x0F else {
        throw .malformed("the NDEF file's write rights read back as \(hexString([after.write << 4 | after.readWrite])), not FF",
                         command: "GetFileSettings 02")
      }
    }
    if !ccLocked {
      try selectCCFile()  // the native commands above left the ISO file selection
      try iso([0x00, 0xD6, 0x00, UInt8(Self.ccWriteAccessOffset), 0x01, 0xFF], name: "UPDATE BINARY (CC byte 14)") { sw in
        sw == StatusWord(0x69, 0x82)
          ? "the CC file (E103) takes no UPDATE BINARY without a key (its write right is not free): `lock` does not "
            + "change it; the NDEF file is write-never already" : nil
      }
      guard try readNDEFCapabilityContainer()[Self.ccWriteAccessOffset] == 0xFF else {
        throw .malformed("the CC's write access byte read back is not FF", command: "READ BINARY (CC)")
      }
    }
    return .locked
  }

  /// Selects AN11004's NDEF application and its CC file by ISO SELECT, and reads the CC (15
  /// bytes: CCLEN, version, MLe, MLc, the NDEF File Control TLV). Ends any authentication.
  /// - Throws: ``DESFireCommandError/invalidArgument(_:)`` when the CC does not name the NDEF
  ///   file E104h in its first TLV.
  func readNDEFCapabilityContainer() throws(DESFireCommandError) -> [UInt8] {
    try selectCCFile()
    let cc = try iso([0x00, 0xB0, 0x00, 0x00, 0x0F], name: "READ BINARY (CC)")
    guard cc.count >= 15, cc[7] == 0x04, cc[9] == 0xE1, cc[10] == 0x04 else {
      throw .invalidArgument("the CC is not AN11004's (no NDEF File Control TLV for the file E104 at byte 7): "
                             + "`lock` knows only the layout `nfctag format` makes")
    }
    return cc
  }

  /// ISO SELECT of AN11004's NDEF application by its DF name, then of the CC file E103h. Ends
  /// any authentication.
  private func selectCCFile() throws(DESFireCommandError) {
    secureMessaging = nil
    try iso([0x00, 0xA4, 0x04, 0x00, 0x07] + Self.ndefApplicationDFName + [0x00], name: "SELECT (NDEF application)")
    try iso([0x00, 0xA4, 0x00, 0x0C, 0x02, 0xE1, 0x03], name: "SELECT (CC file E103)")
  }

  /// One ISO 7816-4 command outside the native wrapping; its data when it answers `90 00`.
  /// `refusal` may turn another status into a reason (``DESFireCommandError/invalidArgument(_:)``).
  @discardableResult
  private func iso(_ apdu: [UInt8], name: String,
                   refusal: (StatusWord) -> String? = { _ in nil }) throws(DESFireCommandError) -> [UInt8] {
    let reply: [UInt8]
    do { reply = try link.transceive(apdu) } catch { throw .link(error, command: name) }
    guard let response = ResponseAPDU(reply) else { throw .malformed("\(reply.count) bytes, no status word", command: name) }
    guard response.statusWord == .success else {
      if let why = refusal(response.statusWord) { throw .invalidArgument(why) }
      throw .isoStatus(response.statusWord, command: name)
    }
    return response.data
  }
}
