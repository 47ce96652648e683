/// The keys a SUN URL is checked with.
public enum SUNKeys: Sendable {
  /// SDMMetaRead and SDMFileRead keys given (or the factory key).
  case byRole(metaRead: AESKey, fileRead: AESKey)
  /// A master key: both derived (``SDMKeyDiversification``), the meta-read key once when the
  /// ``SUNMasterKey`` is made, the file-read key per URL once PICCData gave the UID.
  case master(SUNMasterKey)
}

/// A master key with the SDMMetaRead key every tag of it shares (``SDMKeyDiversification/metaReadKey(master:)``:
/// no UID in its input), derived once here rather than once per URL verified.
public struct SUNMasterKey: Sendable {
  /// The master key the per-tag keys are derived from.
  public let master: AESKey
  /// The SDMMetaRead key of every tag of ``master``.
  public let metaRead: AESKey

  /// The master key, and its meta-read key derived.
  public init(_ master: AESKey) throws(NTAG424Error) {
    self.master = master
    metaRead = try SDMKeyDiversification.metaReadKey(master: master)
  }
}

/// A SUN URL checked with ``SUNKeys``, and the reason a failure gets: the verifier's one code,
/// which `sdm verify`, `sdm setup` and `provision --sdm-url` (its read-back) all run.
public enum SUNVerification {
  /// Verifies `sun`: with a master key, PICCData first (the meta-read key does not depend on the
  /// UID), then the file-read key of that UID (``SDMKeyDiversification``).
  public static func verify(_ sun: SUNURL, keys: SUNKeys) throws(NTAG424Error) -> SUNMessage {
    let (meta, file) = try roleKeys(for: sun, keys: keys)
    return try SecureDynamicMessaging.verify(
      encryptedPICCData: sun.encryptedPICCData, sdmMAC: sun.sdmMAC, macInput: sun.macInput,
      encryptedFileData: sun.encryptedFileData, metaReadKey: meta, fileReadKey: file)
  }

  private static func roleKeys(for sun: SUNURL, keys: SUNKeys) throws(NTAG424Error) -> (AESKey, AESKey) {
    switch keys {
    case .byRole(let meta, let file):
      return (meta, file)
    case .master(let key):
      let picc = try PICCData(decrypting: sun.encryptedPICCData, metaReadKey: key.metaRead)
      guard let uid = picc.uid else { throw .invalidPICCData }
      return (key.metaRead, try SDMKeyDiversification.fileReadKey(master: key.master, uid: uid))
    }
  }

  /// Why verification failed, in a few words: bad PICCData, bad CMAC, or the keys given in each
  /// other's roles when the URL verifies with them swapped (or with one key in both roles).
  public static func reason(for error: NTAG424Error, sun: SUNURL, keys: SUNKeys) -> String {
    if case .byRole(let meta, let file) = keys {
      let swapped = [(file, meta, "the meta-read and file-read keys are swapped"),
                     (meta, meta, "the CMAC verifies with the meta-read key, so the tag's file-read key is the one given as meta-read key"),
                     (file, file, "PICCData decrypts with the file-read key, so the tag's meta-read key is the one given as file-read key")]
      for (metaKey, fileKey, what) in swapped {
        if (try? verify(sun, keys: .byRole(metaRead: metaKey, fileRead: fileKey))) != nil { return "wrong key role: \(what)" }
      }
    }
    switch error {
    case .invalidPICCData:
      return "bad PICCData: it does not decrypt with the meta-read key (another key, or the parameter was altered)"
    case .sdmMACMismatch:
      return "bad CMAC: the message was altered, or the file-read key is not the tag's"
    default:
      return "\(error)"
    }
  }
}
