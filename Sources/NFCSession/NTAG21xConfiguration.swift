import NFCTags
import NFCTransport

/// The configuration pages of an NTAG213/215/216 or MIFARE Ultralight EV1 tag: CFG0 (mirror,
/// AUTH0), CFG1 (ACCESS), PWD and PACK. Source: NXP NTAG213/215/216 data sheet §8.5.7
/// (configuration pages) and §8.8 (password verification protection).
///
/// Get it from a connected tag with ``NFCNDEFTag/ntag21xConfiguration``. Other tags have no such
/// pages: every method throws 1 (unsupported feature) on them. Same rules as the tag's other
/// commands: connect first; failures are ``NFCReaderError`` with the platform's `TagError`
/// underneath.
public struct NTAG21xConfiguration: Sendable {
  let connection: TagConnection

  /// Reads CFG0 and CFG1 in one READ. When reads are password-protected the tag refuses it: then
  /// the tag is reselected and the result says `readable: false`.
  /// - Throws: 1 (unsupported feature) when the tag is not an NTAG21x or Ultralight EV1.
  public func read() throws(NFCReaderError) -> Type2Configuration {
    try connection.withPlatform { platform throws(TagError) in try type2Platform(platform).readConfiguration() }
  }

  /// PWD_AUTH with `password` (4 bytes) when `configuration` (from ``read()``) says the tag is
  /// protected. The authentication lasts until the session releases the tag (the tag is reset
  /// then).
  /// - Returns: the PACK the tag answered (2 bytes), or nil when the tag is not protected.
  /// - Throws: 2 (security violation) when the tag refuses the password.
  public func authenticateIfProtected(password: [UInt8], configuration: Type2Configuration) throws(NFCReaderError) -> [UInt8]? {
    connection.engine.resetOnRelease()
    return try connection.withPlatform { platform throws(TagError) in
      try type2Platform(platform).authenticateIfProtected(password: password, configuration: configuration)
    }
  }

  /// Writes new CFG0 (4 bytes) and ACCESS bytes over `current` (what ``read()`` returned; pages
  /// that already hold their value are not written), ACCESS first and AUTH0 last. With
  /// `password` (PWD 4 bytes, PACK 2 bytes), PWD and PACK are written before them, masked in
  /// traces, so that AUTH0 in `cfg0` protects the tag with it.
  /// - Throws: 1 (unsupported feature) when `current` was not readable, a size is wrong or the
  ///   tag has no configuration pages.
  public func write(cfg0: [UInt8], access: UInt8, over current: Type2Configuration,
                    password: (pwd: [UInt8], pack: [UInt8])? = nil) throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in
      try type2Platform(platform).writeConfiguration(cfg0: cfg0, access: access, over: current, password: password)
    }
  }
}

extension NFCNDEFTag {
  /// This tag's NTAG21x / Ultralight EV1 configuration pages (password protection, UID and
  /// counter mirror). Any tag gives one; on a tag without these pages its methods throw 1
  /// (unsupported feature).
  public var ntag21xConfiguration: NTAG21xConfiguration { NTAG21xConfiguration(connection: connection) }
}

private func type2Platform(_ platform: any NDEFTagPlatform) throws(TagError) -> Type2Tag {
  guard let tag = platform as? Type2Tag else {
    throw .unsupported("the NTAG21x configuration pages are a Type 2 feature; this is a \(platform.platform.displayName) tag")
  }
  return tag
}
