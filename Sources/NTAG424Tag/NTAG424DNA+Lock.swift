import NFCTransport
import NTAG424

extension NTAG424DNA {
  /// What ``lockNDEFFile(changeKey:)`` found and did.
  public enum NDEFFileLock: Hashable, Sendable {
    /// Write, Read&Write and Change were already never (Fh): nothing was sent but GetFileSettings.
    case alreadyLocked
    /// ChangeFileSettings set them to never, and GetFileSettings read the new settings back.
    case locked
    /// ChangeFileSettings was answered `91 00`, but GetFileSettings reads back `readBack`, not the
    /// rights written: the change was made, and the tag is not what was asked.
    case notVerified(readBack: AccessRights)
  }

  /// Makes the NDEF file (02h) permanently read-only: ChangeFileSettings with the Write,
  /// Read&Write and Change access rights never (Fh), the Read right, the communication mode and
  /// the SDM settings kept (NT4H2421Gx datasheet §10.7.1, ChangeFileSettings; §8.2.3.3, access
  /// rights: Fh is "no access"). With Change never, no key can undo it.
  ///
  /// The application is selected and the settings read first (GetFileSettings in Plain, §10.7.2);
  /// then the session is opened with the key the Change right names (key 0 on a factory tag)
  /// before anything is written, so a wrong key stops it with the tag unchanged. The settings
  /// are read back afterwards (in MAC mode, inside the session) and compared.
  /// - Parameter changeKey: the value of the key the NDEF file's Change right names (the factory
  ///   key, all zeros, unless it was changed).
  /// - Throws: ``NTAG424DNAError/tag(_:command:)`` with the tag's `91 AE` for a wrong key (to
  ///   AuthenticateEV2First's second part), with ``NTAG424Error/invalidParameter(_:)`` when the Change
  ///   right is free (Eh, a setting this tool does not write) or reserved.
  @discardableResult
  public func lockNDEFFile(changeKey: AESKey) throws(NTAG424DNAError) -> NDEFFileLock {
    let file = NativeCommand.ndefFile
    try selectApplication()
    let current = try fileSettings(file: file).settings
    let rights = current.accessRights
    if rights.write == .never, rights.readWrite == .never, rights.change == .never { return .alreadyLocked }
    let what = "ChangeFileSettings (file \(file))"
    guard case .key(let keyNumber) = rights.change else {
      throw .tag(.invalidParameter("the NDEF file's Change access right is \(rights.change), not a key: "
                                   + "this tool locks a file whose settings a key changes"), command: what)
    }
    try authenticate(keyNumber: keyNumber, key: changeKey)
    var locked = current
    locked.accessRights = AccessRights(read: rights.read, write: .never, readWrite: .never, change: .never)
    try changeFileSettings(file: file, to: locked)
    let after = try fileSettings(file: file).settings
    return after.accessRights == locked.accessRights ? .locked : .notVerified(readBack: after.accessRights)
  }
}
