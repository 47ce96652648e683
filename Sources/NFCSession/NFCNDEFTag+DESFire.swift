import NFCTags

// Package-wide, for the tool: a library user's DESFire format options are not settled API yet
// (docs/desfire.md, "Not done yet"), and these name NFCTags' DESFire types.
extension NFCNDEFTag {
  /// MIFARE DESFire: how ``format()`` authenticates with the PICC master key when the card's PICC
  /// key settings need it (the `DESFireTag` module makes `authentication` from a key). Other tags:
  /// nothing changes. Kept for this connection only; the key stays inside the closure and is never
  /// shown.
  package func useDESFirePICCAuthentication(_ authentication: @escaping DESFirePICCAuthentication) throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in
      (platform as? Type4Tag)?.desfirePICCAuthentication = authentication
    }
  }
}

extension NFCNDEFTag {
  /// MIFARE DESFire: what ``format()`` makes (the NDEF application's key type, the NDEF file's
  /// size). Other tags: nothing changes.
  package func useDESFireFormatOptions(_ options: DESFireNDEFFormatOptions) throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in
      (platform as? Type4Tag)?.desfireFormatOptions = options
    }
  }
}

extension NFCNDEFTag {
  /// MIFARE DESFire with its whole NDEF application: checks the options of
  /// ``useDESFireFormatOptions(_:)`` against it (what ``format()`` does first), so that a caller
  /// can refuse before it changes anything. Other tags: nothing is sent.
  package func checkDESFireFormatOptions() throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in
      try (platform as? Type4Tag)?.checkDESFireFormatOptions()
    }
  }
}
