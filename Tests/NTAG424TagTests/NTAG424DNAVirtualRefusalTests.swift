import NFCEmulator
import NFCTransport
import NTAG424Emulator
import Testing
@testable import NTAG424
@testable import NTAG424Tag

/// The virtual tag's `91 AD` and LRP mode, against the host.
@Suite struct NTAG424DNAVirtualRefusalTests {
  /// The host with the standard policy's 50 retries, 1 ms apart instead of 100.
  static func host(_ tag: NTAG424DNAVirtualTag) throws -> (NTAG424DNA, RecordingVirtualLink) {
    let link = RecordingVirtualLink(tag)
    let host = NTAG424DNA(link: link)
    host.authenticationDelay = AuthenticationDelayPolicy(retryInterval: 0.001, maximumWait: 0.05)
    try host.selectApplication()
    return (host, link)
  }

  /// Two `91 AD`, then the key: authenticated, with 2 retries.
  @Test func twoDelaysThenAccepted() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.testAuthenticationDelays = 2
    let (host, link) = try Self.host(tag)
    try host.authenticate(keyNumber: 0, key: .factory)
    #expect(host.isAuthenticated)
    #expect(host.authenticationDelayRetries == 2)
    #expect(link.count(0x71) == 3)
    #expect(tag.failedAuthenticationCounter(key: 0) == 0)
  }

  /// A delay that never ends: the first try and the policy's 50 retries, then the error.
  @Test func aDelayThatNeverEnds() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.testAuthenticationDelays = .max
    let (host, link) = try Self.host(tag)
    #expect(host.authenticationDelay.maximumRetries == 50)
    #expect(throws: NTAG424DNAError.authenticationDelay(command: "AuthenticateEV2First (key 0)", retries: 50)) {
      try host.authenticate(keyNumber: 0, key: .factory)
    }
    #expect(link.count(0x71) == 51)
  }

  /// A tag in LRP mode refuses AES with `91 9D` and answers LRP's part 1 with AuthMode 01h.
  @Test func anLRPTag() throws {
    let tag = try NTAG424DNAVirtualTag()
    tag.testLRPMode = true
    let (host, link) = try Self.host(tag)
    #expect(throws: NTAG424DNAError.lrpSecureMessaging(command: "AuthenticateEV2First (key 0)")) {
      try host.authenticate(keyNumber: 0, key: .factory)
    }
    #expect(link.commands.suffix(2) == [[0x90, 0x71, 0x00, 0x00, 0x02, 0x00, 0x00, 0x00],
                                        [0x90, 0x71, 0x00, 0x00, 0x03, 0x00, 0x01, 0x02, 0x00]])
    #expect(tag.failedAuthenticationCounter(key: 0) == 0)   // no part 2, no failure counted
  }
}
