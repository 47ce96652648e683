/// SesAuthENCKey and SesAuthMACKey of an EV2 session (NT4H2421Gx datasheet §9.1.7). Their
/// description and mirror never show the bytes.
public struct EV2SessionKeys: Sendable, CustomStringConvertible, CustomReflectable {
  /// SesAuthENCKey = CMAC(Kx, SV1): encrypts CommMode.Full data and derives its IVs.
  public let encryption: [UInt8]
  /// SesAuthMACKey = CMAC(Kx, SV2): computes the command and answer MACs.
  public let mac: [UInt8]

  /// Session keys known from elsewhere (a published transcript, an earlier derivation).
  ///
  /// - Throws: ``EV2Error/invalidLength(field:expected:actual:)`` unless both are 16 bytes.
  public init(encryption: [UInt8], mac: [UInt8]) throws(EV2Error) {
    guard encryption.count == 16 else { throw .invalidLength(field: "SesAuthENCKey", expected: 16, actual: encryption.count) }
    guard mac.count == 16 else { throw .invalidLength(field: "SesAuthMACKey", expected: 16, actual: mac.count) }
    self.encryption = encryption
    self.mac = mac
  }

  /// The session keys from the authentication key and both 16-byte challenges.
  public init<C: EV2Cipher>(_ cipher: C.Type, key: [UInt8], rndA: [UInt8], rndB: [UInt8]) throws(EV2Error) {
    guard rndA.count == 16, rndB.count == 16 else {
      throw .invalidLength(field: "RndA and RndB", expected: 16, actual: min(rndA.count, rndB.count))
    }
    encryption = try C.cmac(EV2Frames.sessionVector(label: (0xA5, 0x5A), rndA: rndA, rndB: rndB), key: key)
    mac = try C.cmac(EV2Frames.sessionVector(label: (0x5A, 0xA5), rndA: rndA, rndB: rndB), key: key)
  }

  /// "EV2 session keys", never the bytes.
  public var description: String { "EV2 session keys" }
  /// A mirror without children.
  public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// The capabilities exchanged in AuthenticateEV2First (NT4H2421Gx datasheet §9.1.5, §10.4.1).
public struct AuthenticationCapabilities: Hashable, Sendable {
  /// PDcap2: the card's 6 capability bytes (bit 1 of PDcap2.1 set: LRP mode).
  public let pdCap2: [UInt8]
  /// PCDcap2 as the card echoes it, truncated or padded with zeros to 6 bytes.
  public let pcdCap2: [UInt8]

  /// Capabilities as sent.
  public init(pdCap2: [UInt8], pcdCap2: [UInt8]) {
    self.pdCap2 = pdCap2
    self.pcdCap2 = pcdCap2
  }
}
