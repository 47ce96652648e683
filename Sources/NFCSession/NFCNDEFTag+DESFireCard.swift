import NFCTags

// Package-wide, for the tool's `nfctag desfire …` commands (docs/desfire.md, "Command line"): the
// host's DESFire commands are not settled library API yet.
extension NFCNDEFTag {
  /// Runs `body` with a ``DESFireCard`` over this tag's link (an ISO 7816 tag), between tag
  /// commands. The card's refusals come back as the result's failure, as they are (their status
  /// is what a caller maps); a lost link is thrown, as every tag command's (74). An EV2 session
  /// `body` leaves open is ended as it returns (``DESFireCard/endSessionBeforeRelease()``), so that
  /// the next program finds the card taking plain commands.
  /// - Throws: ``NFCReaderError`` for a tag that takes no APDUs (not a Type 4 tag), or a link
  ///   that failed.
  package func withDESFireCard<T: Sendable>(
    _ body: (DESFireCard) throws(DESFireCommandError) -> T
  ) throws(NFCReaderError) -> Result<T, DESFireCommandError> {
    try connection.withPlatform { platform throws(TagError) -> Result<T, DESFireCommandError> in
      guard let type4 = platform as? Type4Tag else {
        throw .unsupported("not a MIFARE DESFire: the tag takes no ISO 7816 commands")
      }
      let card = DESFireCard(link: type4.link)
      do throws(DESFireCommandError) {
        let value = try body(card)
        card.endSessionBeforeRelease()
        return .success(value)
      } catch {
        if case .link = error { throw error.tagError }
        card.endSessionBeforeRelease()
        return .failure(error)
      }
    }
  }
}
