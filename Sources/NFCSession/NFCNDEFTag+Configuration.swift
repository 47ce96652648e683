import NFCTags
import NFCTransport

extension NFCNDEFTag {
  /// NTAG21x / Ultralight EV1 (nfctag): CFG0 and CFG1 in one READ. When reads are
  /// password-protected the result says `readable: false` (the tag is reselected).
  public func readConfiguration() throws(NFCReaderError) -> Type2Configuration {
    try connection.withPlatform { platform throws(TagError) in try type2Platform(platform).readConfiguration() }
  }

  /// NTAG21x / Ultralight EV1 (nfctag): PWD_AUTH with `password` when `configuration` says the
  /// tag is protected; nil when it is not. The authentication ends with the session.
  public func authenticateIfProtected(password: [UInt8], configuration: Type2Configuration) throws(NFCReaderError) -> [UInt8]? {
    connection.engine.resetOnRelease()
    return try connection.withPlatform { platform throws(TagError) in
      try type2Platform(platform).authenticateIfProtected(password: password, configuration: configuration)
    }
  }

  /// NTAG21x / Ultralight EV1 (nfctag): writes new CFG0 and ACCESS bytes (ACCESS first), over
  /// what `current` read; with `password`, PWD and PACK before them (masked in traces), so that
  /// AUTH0 in `cfg0` protects the tag with it.
  public func writeConfiguration(cfg0: [UInt8], access: UInt8, over current: Type2Configuration,
                                 password: (pwd: [UInt8], pack: [UInt8])? = nil) throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in
      try type2Platform(platform).writeConfiguration(cfg0: cfg0, access: access, over: current, password: password)
    }
  }

  /// Shows `signal` on the reader (ACR122U: LEDs and buzzer), between tag commands.
  /// - Returns: false when the reader has no such commands.
  @discardableResult
  public func signalReader(_ signal: ReaderSignal) throws(NFCReaderError) -> Bool {
    try connection.withLink { link throws(TransceiveError) in
      guard let signalling = link as? any ReaderSignalling else { return false }
      try signalling.signal(signal)
      return true
    }
  }
}

private func type2Platform(_ platform: any NDEFTagPlatform) throws(TagError) -> Type2Tag {
  guard let tag = platform as? Type2Tag else {
    throw .unsupported("the NTAG21x configuration pages are a Type 2 feature; this is a \(platform.platform.displayName) tag")
  }
  return tag
}
