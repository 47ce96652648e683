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
