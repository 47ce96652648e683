// What the modules built on this one (NTAG424's wrappers and their tests) read of its values
// within the package only: the challenges and the card's session keys are secret, so they are
// not public API. Additive: nothing here changes what the rest of the module computes.

extension EV2HostAuthentication {
  /// RndA, the host's challenge (for the wrappers' tests, which check it against a transcript).
  package var hostChallenge: [UInt8] { rndA }
  /// RndB, the card's challenge as decrypted from part 1's answer.
  package var cardChallenge: [UInt8] { rndB }
}

extension EV2CardSession {
  /// SesAuthENCKey and SesAuthMACKey of the card's session.
  package var sessionKeys: EV2SessionKeys { keys }
}
