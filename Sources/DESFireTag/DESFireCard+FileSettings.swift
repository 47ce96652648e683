import DESFire
import Hex
import NFCTags

/// ChangeFileSettings (5Fh) as the host sends it (NXP MF3ICDx21_41_81 data sheet §9, ChangeFileSettings;
/// §2.5 for the CRC32 and the enciphering of EV1 secure messaging).
extension DESFireCard {
  /// ChangeFileSettings (5Fh): file `number` (0-31) of the selected application gets the
  /// communication mode `communication` and the access rights `access`.
  ///
  /// How the settings go depends on the file's change right as it is now (`changeRight`, from
  /// GetFileSettings): free (Eh) sends `5F ‖ FileNo ‖ CommSett ‖ AR` plain (in an EV1 session its
  /// CMAC moves the IV and the answer's CMAC is checked); a key number needs that key
  /// authenticated: in an EV1 session (AuthenticateISO 1Ah or AuthenticateAES AAh) it sends
  /// `5F ‖ FileNo ‖ E(CommSett ‖ AR ‖ CRC32(5F ‖ FileNo ‖ CommSett ‖ AR) ‖ 00…)`, enciphered from the
  /// current IV as ChangeKeySettings' (DESFireEV1Channel's `encipherCommand`); after the legacy
  /// Authenticate (0Ah) `5F ‖ FileNo ‖` `CommSett ‖ AR ‖ CRC16(CommSett ‖ AR) ‖ 00…` in send mode
  /// (DESFireCard+LegacyFiles.swift); never (Fh) cannot change.
  /// - Throws: ``DESFireCommandError/invalidArgument(_:)`` (nothing sent) for a file number past
  ///   31, a change right that is never, or a key's right without a session; the card's
  ///   refusals (`91 9D` when another key is authenticated, `91 AE` without one); an answer whose
  ///   CMAC fails.
  public func changeFileSettings(_ number: UInt8, communication: DESFireFileCommunication, access: DESFireFileAccess,
                                 changeRight: UInt8) throws(DESFireCommandError) {
    guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
    let name = "ChangeFileSettings \(hexString([number]))"
    let settings = [communication.rawValue] + access.wireBytes
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging, changeRight & 0x0F != 0x0F {  // DESFireCard+EV2Commands.swift
      return try ev2ChangeFileSettings(number, settings: settings, free: changeRight & 0x0F == 0x0E, session: ev2)
    }
    let answer: [UInt8]
    switch changeRight & 0x0F {
    case 0x0E:
      answer = try send(0x5F, [number] + settings, name: name)
    case 0x0F:
      throw .invalidArgument("\(name): the file's change right is never (Fh): its settings cannot change")
    default:
      if let legacy = secureMessaging as? DESFireLegacySecureMessaging {  // DESFireCard+LegacyFiles.swift
        return try legacyChangeFileSettings(number, settings: settings, session: legacy)
      }
      let session = try ev1Session(name, needs: "an enciphered command")
      let cryptogram: [UInt8]
      do { cryptogram = try session.channel.encipherCommand(prefix: [0x5F, number], settings) } catch {
        secureMessaging = nil
        throw .malformed("the host's cipher failed: \(error)", command: name)
      }
      answer = try sendProtected(0x5F, [number] + cryptogram, name: name, session: session) { session, answer throws(DESFireCommandError) in
        try session.received(answer, command: name)
      }
    }
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }
}
