import EV2SecureMessaging

/// The Transaction MAC of the MIFARE DESFire Light and EV2/EV3 with an AES AppTransactionMACKey
/// (NXP MF2DL(H)x0 data sheet rev. 3.3, §10.3 "Transaction MAC"), without I/O: the session keys,
/// the Transaction MAC Value (TMV) over a Transaction MAC Input (``DESFireTransactionMACInput``) and
/// the Transaction MAC file's contents (``DESFireTransactionMACRecord``). AES and CMAC are
/// ``DESFireEV2Cipher``'s (libcrypto); nothing here implements them.
///
/// - SV1 = `5A 00 01 00 80 ‖ TMC+1 ‖ UID`, SV2 = `A5 00 01 00 80 ‖ TMC+1 ‖ UID` (TMC 4 bytes least
///   significant first, the 7-byte UID), SesTMMACKey = CMAC(AppTransactionMACKey, SV1), SesTMENCKey
///   = CMAC(AppTransactionMACKey, SV2): the data sheet's p. 42, as Proxmark3's
///   `client/src/mifare/desfirecrypto.c` (`DesfireGenTransSessionKeyEV2`) builds them.
/// - TMV = MACt(SesTMMACKey, TMI): the bytes at odd indices of the CMAC, as EV2 secure messaging's
///   MACt (``EV2Frames/truncate(_:)``).
///
/// TMC+1 is the counter the transaction commits: the TMC of the file before the transaction plus
/// one, which is the TMC that CommitTransaction reports and the file holds afterwards. The functions
/// here take that committed counter (`committedCounter`) as the card reports it.
///
/// Independent vectors: the session keys against Proxmark3's `TestTransSessionKeys`
/// (`client/src/mifare/desfiretest.c`). The TMV and the TMI layouts have none: NXP publishes no
/// worked example, and ObsidianPay/libnxpsc (`docs/md/Development/Porting_Notes.md`) says the same;
/// the layouts follow the data sheet's §10.3.4.2 as NXP's own reader library collects them
/// (NxpNfcRdLib `phTMIUtils_CollectTMI` and the `phalMfdfLight` commands).
public enum DESFireTransactionMAC {
  /// SV1 (`label` 5Ah, for SesTMMACKey) or SV2 (A5h, SesTMENCKey): `label 00 01 00 80 ‖ TMC+1 ‖ UID`.
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` unless the UID is 7 bytes.
  public static func sessionVector(label: UInt8, committedCounter: UInt32, uid: [UInt8]) throws(EV2Error) -> [UInt8] {
    guard uid.count == 7 else { throw .invalidLength(field: "UID", expected: 7, actual: uid.count) }
    return [label, 0x00, 0x01, 0x00, 0x80] + counterBytes(committedCounter) + uid
  }

  /// SesTMMACKey = CMAC(AppTransactionMACKey, SV1).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` for a key not of 16 bytes or a
  ///   UID not of 7; ``EV2Error/cryptoFailure(operation:)`` when libcrypto fails.
  public static func sessionMACKey(key: [UInt8], committedCounter: UInt32, uid: [UInt8]) throws(EV2Error) -> [UInt8] {
    try derive(label: 0x5A, key: key, committedCounter: committedCounter, uid: uid)
  }

  /// SesTMENCKey = CMAC(AppTransactionMACKey, SV2) (it enciphers the reader ID of CommitReaderID,
  /// which is not modelled here).
  ///
  /// - Throws: as ``sessionMACKey(key:committedCounter:uid:)``.
  public static func sessionEncryptionKey(key: [UInt8], committedCounter: UInt32, uid: [UInt8]) throws(EV2Error) -> [UInt8] {
    try derive(label: 0xA5, key: key, committedCounter: committedCounter, uid: uid)
  }

  /// TMV = MACt(SesTMMACKey, TMI), 8 bytes.
  ///
  /// - Throws: as ``sessionMACKey(key:committedCounter:uid:)``.
  public static func value(key: [UInt8], committedCounter: UInt32, uid: [UInt8],
                           input: DESFireTransactionMACInput) throws(EV2Error) -> [UInt8] {
    let sessionKey = try sessionMACKey(key: key, committedCounter: committedCounter, uid: uid)
    return EV2Frames.truncate(try DESFireEV2Cipher.cmac(input.bytes, key: sessionKey))
  }

  /// Whether `record` (what the card reported) carries the TMV of `input` under `key` and `uid`,
  /// compared in constant time. A wrong key, UID, counter or any changed byte of the transaction
  /// gives false.
  ///
  /// - Throws: as ``sessionMACKey(key:committedCounter:uid:)``.
  public static func verify(_ record: DESFireTransactionMACRecord, key: [UInt8], uid: [UInt8],
                            input: DESFireTransactionMACInput) throws(EV2Error) -> Bool {
    let expected = try value(key: key, committedCounter: record.counter, uid: uid, input: input)
    return EV2Frames.macsMatch(expected, record.value[...])
  }

  /// A counter least significant byte first.
  static func counterBytes(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) } }

  private static func derive(label: UInt8, key: [UInt8], committedCounter: UInt32, uid: [UInt8]) throws(EV2Error) -> [UInt8] {
    guard key.count == 16 else { throw .invalidLength(field: "AppTransactionMACKey", expected: 16, actual: key.count) }
    return try DESFireEV2Cipher.cmac(sessionVector(label: label, committedCounter: committedCounter, uid: uid), key: key)
  }
}

/// The Transaction MAC file's 12 bytes, `TMC ‖ TMV` (TMC 4 bytes least significant first, TMV 8),
/// as ReadData of the file and CommitTransaction with option 01h return them (MF2DL(H)x0 §10.3).
public struct DESFireTransactionMACRecord: Hashable, Sendable {
  /// TMC: the number of transactions committed with a TMV.
  public let counter: UInt32
  /// TMV: the MACt of the last committed transaction.
  public let value: [UInt8]

  /// A record from its fields.
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` unless `value` is 8 bytes.
  public init(counter: UInt32, value: [UInt8]) throws(EV2Error) {
    guard value.count == 8 else { throw .invalidLength(field: "TMV", expected: 8, actual: value.count) }
    self.counter = counter
    self.value = value
  }

  /// The card's 12 bytes (tag data: checked, never indexed past its length).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` unless `bytes` is 12 bytes.
  public init(bytes: [UInt8]) throws(EV2Error) {
    guard bytes.count == 12 else { throw .invalidLength(field: "TMC ‖ TMV", expected: 12, actual: bytes.count) }
    let counter = bytes[0..<4].enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
    try self.init(counter: counter, value: Array(bytes[4..<12]))
  }

  /// `TMC ‖ TMV`, the file's bytes.
  public var bytes: [UInt8] { DESFireTransactionMAC.counterBytes(counter) + value }
}
