// Package-wide, additive: provisioning's DESFire keys diversified by AN10922's AES-128 scheme
// (`KeyDiversification`, written once here) are sent to a DESFire by the DESFireTag module, which
// takes a key's bytes; the key's description, debug description and mirror still never show them.
extension AESKey {
  /// The key's 16 bytes, for a DESFire ChangeKey within this package; never shown.
  package var packageBytes: [UInt8] { bytes }
}
