/// An EV2/EV3 Transaction MAC file's key: the AppTransactionMACKey (AES, 16 bytes) and its version
/// as CreateTransactionMACFile set them.
package struct DESFireTransactionMACKey: Hashable, Sendable {
  /// The AES AppTransactionMACKey.
  package var key: [UInt8]
  /// TMKeyVer.
  package var version: UInt8
}

/// CreateTransactionMACFile (CEh) on the virtual DESFire EV2/EV3 (docs/desfire.md, "Transaction
/// MAC"). The frame as Proxmark3 sends it (`client/src/cmdhfmfdes.c`, `CmdHF14ADesCreateTrMACFile`;
/// `client/src/mifare/desfiresecurechan.c`: CEh in Full mode with a plain header of 5 bytes):
/// `FileNo ‖ FileOption (communication mode) ‖ AccessRights(2) ‖ TMKeyOption` plain, then
/// `TMKey(16) ‖ TMKeyVer` enciphered in the EV2 session; TMKeyOption 02h is AES, the one key type
/// the Transaction MAC takes (NXP MF2DL(H)x0 data sheet rev. 3.3, §10.3 "Transaction MAC", the
/// Light's equivalent command). The file is read like a 12-byte standard data file (`TMC ‖ TMV`,
/// zeros until the first commit); DeleteFile removes it; the TMC/TMV behaviour is the Light's
/// (DESFireVirtualTag+TransactionMAC.swift).
///
/// This model's choices (**unconfirmed**, the EV2/EV3 data sheets being NDA): the application
/// master key must be authenticated by EV2 (AEh without authentication, 9Dh with another key or an
/// EV1 session: the key cannot be deciphered here without EV2 secure messaging); at most one
/// Transaction MAC file per application (DEh for a second, whatever its number); GetFileSettings
/// shows it as a standard file; CommitReaderID and TMCLimit are not modelled; the key is not kept
/// in the image file (a reloaded card has a plain 12-byte file).
extension DESFireVirtualTag {
  /// CEh on the chips that have it: nil elsewhere (the EV1 and the Light answer `91 1C`).
  func createTransactionMACFile(_ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8])? {
    guard speaksEV2, !chip.isLight else { return nil }
    guard let application = currentApplication else { return (.permissionDenied, []) }
    guard authenticatedKey != nil else { return (.authenticationError, []) }
    guard masterKeyAuthenticated, ev2Session != nil else { return (.permissionDenied, []) }
    let bytes = Array(data)
    guard bytes.count == 5 + 16 + 1 else { return (.lengthError, []) }
    let number = bytes[0]
    guard number <= 0x1F, let mode = DESFireCommunicationMode(optionByte: bytes[1]), bytes[4] == 0x02 else {
      return (.parameterError, [])
    }
    guard application.files[number] == nil,
          !application.files.values.contains(where: { $0.transactionMACKey != nil }) else { return (.duplicateError, []) }
    let allocated = DESFireFile.allocation(kind: .standard, size: 12)
    guard allocated <= freeMemory else { return (.outOfEEPROM, []) }
    freeMemory -= allocated
    var file = DESFireFile(number: number, isoFileID: nil, communication: mode, access: DESFireAccessRights(bytes: bytes[2], bytes[3]),
                           data: [UInt8](repeating: 0, count: 12))
    file.transactionMACKey = DESFireTransactionMACKey(key: Array(bytes[5..<21]), version: bytes[21])
    updateCurrent { $0.files[number] = file }
    transaction.transactionMACInput = []
    return (.operationOK, [])
  }
}
