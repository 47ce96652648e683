import Locking
import NFCTestSupport
import NFCTransport
import Testing
@testable import NTAG424
@testable import NTAG424Tag

/// `91 AD` and LRP: what the host does when the tag will not take an AES authentication now, or
/// ever (NT4H2421Gx datasheet §9, Tables 19, 23 and 27).
@Suite struct NTAG424DNAAuthenticationRefusalTests {
  static let part1 = hex("90 71 00 00 02 00 00 00")
  static let lrpPart1 = hex("90 71 00 00 03 00 01 02 00")   // AuthenticateLRPFirst: PCDCap2.1 = 02h
  static let delay = hex("91 AD")

  /// AN12196 §5.6's authentication, after two `91 AD`: the third try goes through.
  @Test func twoDelaysThenTheKey() throws {
    let link = EmbeddedTransceiver([
      (Self.part1, .success(Self.delay)),                                                        // delay
      (Self.part1, .success(Self.delay)),                                                        // delay again
      (Self.part1, .success(hex("A04C124213C186F22399D33AC2A30215 91AF"))),                     // E(K0, RndB)
      (hex("90AF000020 35C3E05A752E0144BAC0DE51C1F22C56B34408A23D8AEA266CAB947EA8E0118D 00"),
       .success(hex("3FA64DB5446D1F34CD6EA311167F5E4985B89690C04A05F17FA7AB2F08120663 9100"))),  // E(K0, TI||RndA'||caps)
    ])
    let waits = Locked<[Double]>([])
    let tag = NTAG424DNA(link: link)
    tag.authenticationDelay = AuthenticationDelayPolicy(retryInterval: 0.1, maximumWait: 5) { seconds in
      waits.withLock { $0.append(seconds) }
    }
    try tag.authenticate(keyNumber: 0, key: .factory, rndA: hex("13C5DB8A5930439FC3DEF9A4C675360F"))
    #expect(tag.isAuthenticated)
    #expect(tag.session?.transactionIdentifier == hex("9D00C4DF"))
    #expect(tag.authenticationDelayRetries == 2)
    #expect(waits.withLock { $0 } == [0.1, 0.1])
    #expect(link.finish() == .clean)
  }

  /// A delay that outlasts the policy: the first try and `maximumRetries` more, then its own error.
  @Test func aDelayLongerThanThePolicyFails() throws {
    let policy = AuthenticationDelayPolicy(retryInterval: 0.1, maximumWait: 0.3) { _ in }
    #expect(policy.maximumRetries == 3)
    let link = EmbeddedTransceiver(Array(repeating: (Self.part1, .success(Self.delay)), count: 4))
    let tag = NTAG424DNA(link: link)
    tag.authenticationDelay = policy
    #expect(throws: NTAG424DNAError.authenticationDelay(command: "AuthenticateEV2First (key 0)", retries: 3)) {
      try tag.authenticate(keyNumber: 0, key: .factory)
    }
    #expect(!tag.isAuthenticated)
    #expect(link.finish() == .clean)
  }

  /// The standard policy: every 100 ms for 5 s; `none` answers at once.
  @Test func thePolicies() throws {
    #expect(AuthenticationDelayPolicy.standard.maximumRetries == 50)
    #expect(AuthenticationDelayPolicy.standard.retryInterval == 0.1)
    #expect(AuthenticationDelayPolicy.none.maximumRetries == 0)
    let link = EmbeddedTransceiver([(Self.part1, .success(Self.delay))])
    let tag = NTAG424DNA(link: link)
    tag.authenticationDelay = .none
    #expect(throws: NTAG424DNAError.authenticationDelay(command: "AuthenticateEV2First (key 0)", retries: 0)) {
      try tag.authenticate(keyNumber: 0, key: .factory)
    }
    #expect(link.finish() == .clean)
  }

  /// AuthenticateEV2NonFirst answered `91 AD` is not sent again: the error status ended the
  /// authentication it would continue.
  @Test func aDelayedNonFirstIsNotRetried() throws {
    let link = EmbeddedTransceiver([(hex("90 77 00 00 01 02 00"), .success(Self.delay))])
    let tag = NTAG424DNA(link: link, session: try session(ti: "9D00C4DF", enc: "1309C877509E5A215007FF0ED19CA564",
                                                          mac: "4C6626F5E72EA694202139295C7A7FC7", counter: 1))
    #expect(throws: NTAG424DNAError.authenticationDelay(command: "AuthenticateEV2NonFirst (key 2)", retries: 0)) {
      try tag.authenticate(keyNumber: 2, key: .factory)
    }
    #expect(!tag.isAuthenticated)
    #expect(link.finish() == .clean)
  }

  /// `91 9D` to AES, then AuthMode 01h and RndB to LRP's part 1: a tag in LRP mode (Table 19).
  /// Part 2 is never sent.
  @Test func anLRPTagIsToldApart() throws {
    let link = EmbeddedTransceiver([
      (Self.part1, .success(hex("91 9D"))),                                                       // AES refused
      (Self.lrpPart1, .success(hex("01 00112233445566778899AABBCCDDEEFF 91AF"))),                 // AuthMode 01h, RndB
    ])
    #expect(throws: NTAG424DNAError.lrpSecureMessaging(command: "AuthenticateEV2First (key 0)")) {
      try NTAG424DNA(link: link).authenticate(keyNumber: 0, key: .factory)
    }
    #expect(link.finish() == .clean)
  }

  /// `91 9D` from a tag in AES mode (a key not available): LRP's part 1 gets the 16-byte AES
  /// challenge (Table 19's fallback), so the refusal stands.
  @Test func aRefusalFromAnAESTagStands() throws {
    let link = EmbeddedTransceiver([
      (Self.part1, .success(hex("91 9D"))),
      (Self.lrpPart1, .success(hex("A04C124213C186F22399D33AC2A30215 91AF"))),
    ])
    #expect(throws: NTAG424DNAError.tag(.status(command: 0x71, sw1: 0x91, sw2: 0x9D), command: "AuthenticateEV2First (key 0)")) {
      try NTAG424DNA(link: link).authenticate(keyNumber: 0, key: .factory)
    }
    #expect(link.finish() == .clean)
  }

  /// The lines people read: no key, the facts.
  @Test func descriptions() {
    #expect(NTAG424DNAError.authenticationDelay(command: "AuthenticateEV2First (key 0)", retries: 50).description
            == "AuthenticateEV2First (key 0): authentication delay (91 AD): the tag still refused to authenticate after 50 retries")
    #expect(NTAG424DNAError.lrpSecureMessaging(command: "AuthenticateEV2First (key 0)").description.contains("LRP secure messaging"))
  }
}
