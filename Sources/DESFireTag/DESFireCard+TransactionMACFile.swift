import DESFire
import EV2SecureMessaging
import Hex
import NFCTags

/// The host's CreateTransactionMACFile (CEh) on a DESFire EV2/EV3 (docs/desfire.md, "Transaction
/// MAC"): the frame as Proxmark3 sends it (`client/src/cmdhfmfdes.c`, `CmdHF14ADesCreateTrMACFile`;
/// `client/src/mifare/desfiresecurechan.c`: Full mode, 5 plain header bytes), TMKeyOption 02h
/// for AES (the only key type of the Transaction MAC, NXP MF2DL(H)x0 data sheet rev. 3.3, §10.3).
extension DESFireCard {
  /// CreateTransactionMACFile (CEh) in the selected application: `number ‖ communication ‖
  /// access ‖ 02h` plain, then the AES AppTransactionMACKey `key` and `keyVersion` enciphered in
  /// the running EV2 session (CommMode.Full, EV2SecureMessaging's encipherment, as ChangeKey's
  /// data travels). The file then holds `TMC ‖ TMV` (``transactionMACFile(_:communication:)``),
  /// and each commit of the application's transactions its TMV under `key`
  /// (``commitTransactionWithTransactionMAC()``, ``verifyTransactionMAC(_:key:uid:input:)``).
  /// `access`'s write right is CommitReaderID's key.
  ///
  /// - Throws: ``DESFireCommandError/invalidArgument(_:)`` before anything is sent for a number
  ///   past 1Fh, a key that is not AES, or no EV2 session (the key never travels in plain; the
  ///   key is never shown); else the card's refusal (`91 DE` when the application has a
  ///   Transaction MAC file already, `91 9D` without its master key).
  public func createTransactionMACFile(_ number: UInt8, communication: DESFireFileCommunication = .plain, access: DESFireFileAccess,
                                       key: DESFireKeyMaterial, keyVersion: UInt8 = 0) throws(DESFireCommandError) {
    guard number <= 0x1F else { throw .invalidArgument("a file number is 0 to 31, not \(number)") }
    guard let bytes = key.aesKeyBytes else { throw .invalidArgument("the Transaction MAC key is an AES key, not a \(key.type) key") }
    guard let session = secureMessaging as? DESFireEV2SecureMessaging else {
      throw .invalidArgument("CreateTransactionMACFile needs an EV2 session (AuthenticateEV2First with the application's master key)")
    }
    let header = [number, communication.rawValue] + access.wireBytes + [0x02]
    try ev2ExchangeExpectingNothing(0xCE, header: header, data: bytes + [keyVersion], mode: .full,
                                    name: "CreateTransactionMACFile \(hexString([number]))", session: session)
  }
}
