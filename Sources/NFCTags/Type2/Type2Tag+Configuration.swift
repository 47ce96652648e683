import NFCTransport

/// What CFG0 and CFG1 of an NTAG21x / Ultralight EV1 say, read with one READ.
///
/// CFG0: MIRROR (MIRROR_CONF bits 7–6, MIRROR_BYTE bits 5–4, STRG_MOD_EN bit 2), RFU,
/// MIRROR_PAGE, AUTH0. CFG1: ACCESS (PROT bit 7, CFGLCK bit 6, NFC_CNT_EN bit 4,
/// NFC_CNT_PWD_PROT bit 3, AUTHLIM bits 2–0), RFU × 3. Source: Flipper Zero
/// `MfUltralightConfigPages`; docs/tag-types.md.
public struct Type2Configuration: Sendable, Equatable {
  /// The chip the pages belong to.
  public var product: Type2Product
  /// CFG0: MIRROR, RFU, MIRROR_PAGE, AUTH0.
  public var cfg0: [UInt8]
  /// CFG1: ACCESS, RFU, RFU, RFU.
  public var cfg1: [UInt8]
  /// False when the pages could not be read because reads are password-protected.
  public var readable: Bool

  /// ACCESS (CFG1 byte 0).
  public var access: UInt8 { cfg1.first ?? 0 }
  /// First protected page; FFh (factory) or beyond the last page: no protection.
  public var auth0: UInt8 { cfg0.count == 4 ? cfg0[3] : 0xFF }
  /// True when pages are password-protected (AUTH0 within the chip, or reads refused).
  public var isProtected: Bool { !readable || Int(auth0) < product.totalPages }
  /// True when the UID/NFC counter mirror is on (MIRROR_CONF ≠ 00).
  public var mirrorOn: Bool { cfg0.count == 4 && cfg0[0] & 0xC0 != 0 }
  /// True for the chips with a UID and NFC counter mirror (NTAG213/215/216).
  public var hasMirror: Bool { [.ntag213, .ntag215, .ntag216].contains(product) }
}

extension Type2Tag {
  /// Reads CFG0 and CFG1 with one READ. A tag whose reads are password-protected refuses it:
  /// then the tag is reselected and the result says `readable: false`.
  /// - Throws: ``TagError/unsupported(_:)`` for chips without configuration pages.
  public func readConfiguration() throws(TagError) -> Type2Configuration {
    _ = try beginOperation()
    guard let product, let cfg0 = product.cfg0Page else {
      throw .unsupported("\(product?.name ?? "this Type 2 chip") has no configuration pages")
    }
    do {
      let bytes = try commands.read(page: cfg0)
      return Type2Configuration(product: product, cfg0: Array(bytes[0..<4]), cfg1: Array(bytes[4..<8]), readable: true)
    } catch .readRefused {
      try reselectAfterMute(command: "READ")
      return Type2Configuration(product: product, cfg0: [0, 0, 0, 0], cfg1: [0x80, 0, 0, 0], readable: false)
    }
  }

  /// Authenticates with `password` when `configuration` says the tag is protected.
  /// - Returns: the PACK the tag answered, or nil when the tag is not protected.
  /// - Throws: ``TagError/authenticationFailed(_:)`` when the tag refuses the password.
  public func authenticateIfProtected(password: [UInt8], configuration: Type2Configuration) throws(TagError) -> [UInt8]? {
    guard configuration.isProtected else { return nil }
    return try authenticate(password: password)
  }

  /// Writes new CFG0 and ACCESS bytes over `current` (what ``readConfiguration()`` read, so the
  /// pages are not read again): PWD and PACK first when `password` is given, then ACCESS, then
  /// CFG0 (AUTH0 last, so a tag removed before the end is not protected by a password it may not
  /// hold); an ACCESS or CFG0 page that already holds its value is not written. The PWD and PACK
  /// writes are secret exchanges (masked in traces). Source: NXP NTAG213/215/216 data sheet §8.8
  /// (password verification protection: AUTH0, PROT, PWD, PACK).
  /// - Throws: ``TagError/unsupported(_:)`` when the configuration was not readable or the sizes
  ///   are wrong.
  public func writeConfiguration(cfg0: [UInt8], access: UInt8, over current: Type2Configuration,
                                 password: (pwd: [UInt8], pack: [UInt8])? = nil) throws(TagError) {
    _ = try beginOperation()
    guard current.readable, current.cfg0.count == 4, current.cfg1.count == 4, cfg0.count == 4,
          let cfg0Page = current.product.cfg0Page, let cfg1Page = current.product.cfg1Page else {
      throw .unsupported("the configuration pages are read-protected or malformed")
    }
    if let password {
      guard password.pwd.count == 4, password.pack.count == 2,
            let pwdPage = current.product.passwordPage, let packPage = current.product.packPage else {
        throw .unsupported("PWD is 4 bytes and PACK 2 bytes, on a chip with a password")
      }
      try SecretExchange.run { () throws(TagError) in
        try commands.write(page: pwdPage, password.pwd)
        try commands.write(page: packPage, password.pack + [0x00, 0x00])
      }
    }
    if access != current.access {
      try commands.write(page: cfg1Page, [access] + current.cfg1[1...])
    }
    if cfg0 != current.cfg0 { try commands.write(page: cfg0Page, cfg0) }
  }
}
