/// nfctag's scheme for SDM keys from one master key, version 1, on NXP AN10922 §2.2.1's AES-128
/// diversification (``KeyDiversification``).
///
/// A verifier meets the roles in order: it must decrypt PICCData before it knows the UID, so the
/// SDMMetaRead key cannot depend on the UID; it depends on the master key and a fixed input only,
/// and is the same for every tag of that master. The SDMFileRead key (SDMMAC, SDMENCFileData) is
/// diversified by the UID PICCData gave, so that one tag's key says nothing of another's.
///
/// | key | diversification input M (AN10922 §2.2.1) |
/// |---|---|
/// | SDMMetaRead | the 23 ASCII bytes `nfctag/sdm-meta-read/v1` |
/// | SDMFileRead | the 7-byte UID, then the 23 ASCII bytes `nfctag/sdm-file-read/v1` (30 bytes) |
///
/// The version is in the inputs: a future scheme gets new labels, and keys made with this one
/// keep verifying under `v1`.
public enum SDMKeyDiversification {
  /// The scheme's version, in both labels.
  public static let version = 1
  /// M of the SDMMetaRead key.
  public static let metaReadInput = Array("nfctag/sdm-meta-read/v1".utf8)
  /// The label after the UID in M of the SDMFileRead key.
  public static let fileReadLabel = Array("nfctag/sdm-file-read/v1".utf8)

  /// The SDMMetaRead key of every tag of `master`.
  public static func metaReadKey(master: AESKey) throws(NTAG424Error) -> AESKey {
    try KeyDiversification.aes128(master: master, input: metaReadInput)
  }

  /// The SDMFileRead key of the tag with `uid`.
  ///
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` unless the UID is 7 bytes.
  public static func fileReadKey(master: AESKey, uid: [UInt8]) throws(NTAG424Error) -> AESKey {
    guard uid.count == 7 else { throw .invalidLength(field: "UID", expected: 7, actual: uid.count) }
    return try KeyDiversification.aes128(master: master, input: uid + fileReadLabel)
  }
}

extension SDMKeyDiversification {
  /// The key version every key of the scheme is given on the tag (ChangeKey's KeyVer): the
  /// scheme's version, so that GetKeyVersion, which needs no key, tells a key of this scheme
  /// (`01`) from a factory key (`00`, NT4H2421Gx datasheet §8.2.4: all keys 00h, version 00h).
  public static let keyVersion = UInt8(version)

  /// M of key N (0, 3, 4: the keys no SUN role uses) after the UID: `nfctag/app-key-N/v1`
  /// (19 ASCII bytes; with the UID, 26).
  public static func applicationKeyLabel(_ keyNumber: UInt8) -> [UInt8] {
    Array("nfctag/app-key-\(keyNumber)/v1".utf8)
  }

  /// The five application keys of the tag with `uid`, key 0 first, as `nfctag provision
  /// --sdm-url` writes them with the roles of ``SDMKeyRoles``' defaults:
  ///
  /// | key | role | diversification input M |
  /// |---|---|---|
  /// | 0 | application master key (authorises every change) | UID, `nfctag/app-key-0/v1` |
  /// | 1 | SDMFileRead (SDMMAC, SDMENCFileData) | ``fileReadKey(master:uid:)``: UID, `nfctag/sdm-file-read/v1` |
  /// | 2 | SDMMetaRead (PICCData) | ``metaReadKey(master:)``: `nfctag/sdm-meta-read/v1`, no UID |
  /// | 3 | none | UID, `nfctag/app-key-3/v1` |
  /// | 4 | none | UID, `nfctag/app-key-4/v1` |
  ///
  /// - Throws: ``NTAG424Error/invalidLength(field:expected:actual:)`` unless the UID is 7 bytes.
  public static func applicationKeys(master: AESKey, uid: [UInt8]) throws(NTAG424Error) -> [AESKey] {
    guard uid.count == 7 else { throw .invalidLength(field: "UID", expected: 7, actual: uid.count) }
    var keys: [AESKey] = []
    for number in UInt8(0)...4 {
      switch number {
      case 1: keys.append(try fileReadKey(master: master, uid: uid))
      case 2: keys.append(try metaReadKey(master: master))
      default: keys.append(try KeyDiversification.aes128(master: master, input: uid + applicationKeyLabel(number)))
      }
    }
    return keys
  }
}
