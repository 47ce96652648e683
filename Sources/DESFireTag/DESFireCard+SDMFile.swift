import NFCTags

/// The SUN set-up of a MIFARE DESFire EV3's NDEF file as one call each, for `sdm setup` and
/// `provision --sdm-url` alike (docs/desfire.md, "SDM on the virtual EV3").
extension DESFireCard {
  /// Turns SDM on for standard data file `number` and writes `contents` (NLEN then the message)
  /// to it, in the running EV2 session with the file's Change and Write key (key 0 of AN11004's
  /// NDEF application): ChangeFileSettings with `settings` (``enableSDM(file:settings:)``: the NTAG
  /// 424 DNA's ChangeFileSettings data, NT4H2421Gx §10.7.1), then ``writeNDEFFile(_:contents:)``.
  /// The settings go first so that a file created without FileOption bit 6 is refused (`91 9E`)
  /// before anything is written.
  /// - Throws: ``DESFireCommandError/invalidArgument(_:)`` (nothing sent) for `contents` shorter
  ///   than NLEN and ``enableSDM(file:settings:)``'s; the card's refusals; the link's failures.
  public func writeSDMFile(_ number: UInt8, contents: [UInt8], settings: [UInt8]) throws(DESFireCommandError) {
    guard contents.count >= 2 else { throw .invalidArgument("an NDEF file starts with NLEN (2 bytes)") }
    try enableSDM(file: number, settings: settings)
    try writeNDEFFile(number, contents: contents)
  }

  /// Writes `contents` (NLEN then the message) to standard data file `number` in the tear-safe
  /// order, NLEN zeroed, the message, NLEN, in plain (the running session counts and MACs them as
  /// its mode says): a DESFire standard data file has no tearing protection of its own
  /// (MF3ICDx21_41_81 §9), so a removal in between leaves an empty file, never a length over
  /// another message.
  /// - Throws: ``DESFireCommandError/invalidArgument(_:)`` (nothing sent) for `contents` shorter
  ///   than NLEN; the card's refusals; the link's failures.
  public func writeNDEFFile(_ number: UInt8, contents: [UInt8]) throws(DESFireCommandError) {
    guard contents.count >= 2 else { throw .invalidArgument("an NDEF file starts with NLEN (2 bytes)") }
    let message = Array(contents.dropFirst(2))
    try writeData(file: number, offset: 0, [0, 0], communication: .plain)
    if !message.isEmpty { try writeData(file: number, offset: 2, message, communication: .plain) }
    try writeData(file: number, offset: 0, Array(contents.prefix(2)), communication: .plain)
  }

  /// What a tap reads: the session ended (SelectApplication of `application` again), then one
  /// unauthenticated ReadData of `length` bytes of file `number` from offset 0, on which SDM
  /// mirrors the UID, the read counter and the MAC and the counter rises (NT4H2421Gx §9.3).
  public func readSDMFile(_ number: UInt8, in application: DESFireApplicationID, length: Int) throws(DESFireCommandError) -> [UInt8] {
    secureMessaging = nil
    try selectApplication(application)
    return try readData(file: number, offset: 0, length: length)
  }
}
