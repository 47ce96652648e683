// Package-wide, for the tool's `nfctag desfire config` (docs/desfire.md, "Random UID").
extension NFCNDEFTag {
  /// Has the session reset the card when it releases it (PC/SC's `SCARD_RESET_CARD`; a `sim:`
  /// reader's field off and on), as it does after a raw command or a password: the card's next
  /// session meets a new activation. `nfctag desfire config random-uid` asks for it, so that the
  /// next session shows the random ID the card takes from its next activation on.
  package func resetCardOnRelease() { connection.engine.resetOnRelease() }
}
