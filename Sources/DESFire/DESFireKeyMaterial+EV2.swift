extension DESFireKeyMaterial {
  /// The 16 bytes of an AES key, for EV2 secure messaging's authentication and ChangeKey
  /// (`EV2HostAuthentication`, `EV2HostSession.changeKeyPlaintext`), which take keys as bytes;
  /// nil for a DES-family key. Package-only: the bytes never leave the package's modules.
  package var aesKeyBytes: [UInt8]? { type == .aes ? bytes : nil }
}
