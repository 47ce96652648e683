import Foundation
import Hex
import NTAG424
import ProvisioningLedger
import Testing
@testable import SUNService

/// The service's answers without HTTP: NTAG424's verifier, the ledger's counter, the JSON.
@Suite struct SUNVerifierAnswers {
  typealias T = SUNTestTaps

  /// Checks that no answer and no metric holds key material.
  func expectNoSecret(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
    for secret in T.secrets { #expect(!text.lowercased().contains(secret), sourceLocation: sourceLocation) }
  }

  @Test func aFreshTapThenItsReplayThenAnOlderThenANewerOne() async throws {
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    let tap5 = try T.query(counter: 5)
    let fresh = await verifier.answer(query: tap5)
    #expect(fresh == SUNAnswer(status: 200, json: #"{"valid":true,"uid":"04519a227b6180","counter":5,"fresh":true}"#,
                               outcome: .fresh))
    let replay = await verifier.answer(query: tap5)
    #expect(replay.status == 200)
    #expect(replay.outcome == .replayed)
    #expect(replay.json.hasPrefix(#"{"valid":true,"uid":"04519a227b6180","counter":5,"fresh":false,"lastCounter":5,"reason":"replayed"#))
    let older = await verifier.answer(query: try T.query(counter: 4))
    #expect(older.json.contains(#""counter":4,"fresh":false,"lastCounter":5"#))
    let newer = await verifier.answer(query: try T.query(counter: 6))
    #expect(newer.json == #"{"valid":true,"uid":"04519a227b6180","counter":6,"fresh":true}"#)
    for answer in [fresh, replay, older, newer] { expectNoSecret(answer.json) }
  }

  /// 64 requests at once for one URL and 64 for URLs of their own: the lane records them in
  /// batches; the one URL is fresh exactly once, every other URL once.
  @Test func concurrentRequestsAreBatchedAndFreshOnce() async throws {
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    let same = try T.query(counter: 40)
    let own = try (0..<64).map { n in try T.query(counter: 1, uid: [0x04, 0x10, 0x20, 0x30, 0x40, 0x50, UInt8(n)]) }
    let outcomes = await withTaskGroup(of: (Bool, SUNOutcome).self) { group in
      for _ in 0..<64 { group.addTask { (true, await verifier.answer(query: same).outcome) } }
      for query in own { group.addTask { (false, await verifier.answer(query: query).outcome) } }
      var all: [(Bool, SUNOutcome)] = []
      for await outcome in group { all.append(outcome) }
      return all
    }
    #expect(outcomes.filter { $0.0 && $0.1 == .fresh }.count == 1)
    #expect(outcomes.filter { $0.0 && $0.1 == .replayed }.count == 63)
    #expect(outcomes.filter { !$0.0 && $0.1 == .fresh }.count == 64)
  }

  @Test func eachUIDHasItsOwnCounter() async throws {
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    let other: [UInt8] = [0x04, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55]
    #expect(await verifier.answer(query: try T.query(counter: 9)).outcome == .fresh)
    #expect(await verifier.answer(query: try T.query(counter: 1, uid: other)).json
            == #"{"valid":true,"uid":"04001122334455","counter":1,"fresh":true}"#)
    #expect(await verifier.answer(query: try T.query(counter: 1, uid: other)).outcome == .replayed)
  }

  @Test func fileDataAndTheWholeURLForm() async throws {
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    let withFile = try T.queryWithFile(counter: 3, file: Array("lot 42 / line 7..".utf8.prefix(16)))
    #expect(await verifier.answer(query: withFile).outcome == .fresh)
    // The same tap as a whole URL, percent-encoded: a replay now.
    let encoded = "https://example.com/t?\(withFile)".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    let whole = await verifier.answer(query: "url=\(encoded)")
    #expect(whole.outcome == .replayed)
    #expect(whole.json.contains(#""counter":3,"fresh":false"#))
    let next = "https://example.com/t?\(try T.query(counter: 4))".addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    #expect(await verifier.answer(query: "url=\(next)").outcome == .fresh)
  }

  /// Every bit of PICCData, the MAC and the file data, flipped one at a time: never valid, and
  /// the ledger never moves.
  @Test func oneBitFlippedInAnyParameterIsForged() async throws {
    let (verifier, ledger, cleanup) = try T.verifier()
    defer { cleanup() }
    let f = try T.fields(counter: 7, file: [UInt8](repeating: 0x41, count: 16)) { "\($0)&c=" }
    let enc = try #require(f.enc)
    func flipped(_ hex: String, bit: Int) -> String {
      var bytes = parseHex(hex) ?? []
      bytes[bit / 8] ^= 1 << (bit % 8)
      return hexString(bytes)
    }
    var answers: [SUNAnswer] = []
    for bit in 0..<128 {
      answers.append(await verifier.answer(query: "p=\(flipped(f.picc, bit: bit))&enc=\(enc)&c=\(f.mac)"))
      answers.append(await verifier.answer(query: "p=\(f.picc)&enc=\(flipped(enc, bit: bit))&c=\(f.mac)"))
    }
    for bit in 0..<64 { answers.append(await verifier.answer(query: "p=\(f.picc)&enc=\(enc)&c=\(flipped(f.mac, bit: bit))")) }
    #expect(answers.count == 320)
    #expect(answers.allSatisfy { $0.status == 200 && $0.outcome == .forged && $0.json.hasPrefix(#"{"valid":false,"reason":"bad "#) })
    for answer in answers { expectNoSecret(answer.json) }
    // Nothing was recorded: the genuine tap is still fresh.
    #expect(try ledger.acceptCounter(uid: T.uidHex, counter: 7) == .accepted)
  }

  @Test func anotherMasterKeysTagIsForged() async throws {
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    let other = try AESKey(bytes: [UInt8](repeating: 7, count: 16))
    let meta = try SDMKeyDiversification.metaReadKey(master: other)
    let picc = try SDMGeneration.encryptPICCData(uid: T.uid, readCounter: 1, metaReadKey: meta, padding: [0, 0, 0, 0, 0])
    let answer = await verifier.answer(query: "p=\(hexString(picc))&c=0011223344556677")
    #expect(answer == SUNAnswer(status: 200, json: #"{"valid":false,"reason":"bad PICCData: it does not decrypt with the meta-read key (another key, or the parameter was altered)"}"#,
                                outcome: .forged))
  }

  static let malformed: [(query: String?, error: String)] = [
    (nil, "no query"),
    ("", "no query"),
    ("c=0011223344556677", "the URL has no 'p' parameter"),
    ("p=" + String(repeating: "a", count: 32), "the URL has no 'c' parameter"),
    ("p=\(String(repeating: "a", count: 32))&p=\(String(repeating: "b", count: 32))&c=0011223344556677",
     "the URL has the 'p' parameter more than once"),
    ("p=\(String(repeating: "z", count: 32))&c=0011223344556677", "the 'p' parameter is not hexadecimal"),
    ("p=abcd&c=0011223344556677", "the 'p' parameter has 4 hex digits, expected 32"),
    ("p=\(String(repeating: "a", count: 32))&c=00112233445566", "the 'c' parameter has 14 hex digits, expected 16"),
    ("p=\(String(repeating: "a", count: 3000))&c=0011223344556677", "the 'p' parameter has 3000 hex digits, expected 32"),
    ("p=\(String(repeating: "a", count: 5000))&c=0011223344556677", "the query has 5021 bytes, more than 4096"),
    ("url=https%3A%2F%2Fx%2Ft%3Fp%3D%zz", "the 'url' parameter is not valid percent-encoded UTF-8"),
    ("url=%FF%FE", "the 'url' parameter is not valid percent-encoded UTF-8"),
    ("url=a&url=b", "the URL has the 'url' parameter more than once"),
    ("url=https%3A%2F%2Fexample.com%2Ft", "the URL has no query"),
    ("p=\(String(repeating: "a", count: 32))&enc=00&c=0011223344556677", "the 'enc' parameter has 2 hex digits, expected 32"),
    ("p=\(String(repeating: "a", count: 32))&c=0011223344556677&enc=\(String(repeating: "0", count: 32))",
     "the MAC parameter comes before the file data"),
  ]

  @Test func malformedQueriesAnswer400WithAnError() async throws {
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    for (query, error) in Self.malformed {
      let answer = await verifier.answer(query: query)
      #expect(answer.status == 400, "\(query ?? "nil")")
      #expect(answer.outcome == .malformed)
      #expect(answer.json.hasPrefix(#"{"error":"\#(error)"#), "\(query ?? "nil"): \(answer.json)")
    }
  }

  /// An LRP tag's SUN: a verdict (200, not valid) with the reason, counted with the malformed
  /// queries, whether given as parameters or as a whole URL.
  @Test func anLRPModeSUNIsAnInvalidVerdict() async throws {
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    let picc = String(repeating: "0123456789ABCDEF", count: 3)
    for query in ["p=\(picc)&c=0011223344556677", "url=https%3A%2F%2Fe.com%2Ft%3Fp%3D\(picc)%26c%3D0011223344556677"] {
      let answer = await verifier.answer(query: query)
      #expect(answer.status == 200, "\(query)")
      #expect(answer.outcome == .malformed)
      #expect(answer.json == #"{"valid":false,"reason":"an LRP-mode SUN (48-hex-digit PICCData in 'p'), not supported: only AES-mode SUN messages are verified"}"#)
    }
  }

  @Test func tagDataInAnErrorIsEscaped() async throws {
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    let answer = await verifier.answer(query: "url=https%3A%2F%2Fx%2F%3Fq%E2%80%AE%22%3D1%26q%E2%80%AE%22%3D2%26p%3D1")
    #expect(answer.status == 400)
    #expect(answer.json == #"{"error":"the URL has the 'q\u202e\"' parameter more than once"}"#)
  }

  @Test func theProvisioningBaselineIsNotFresh() async throws {
    let (verifier, ledger, cleanup) = try T.verifier(baselines: [T.uidHex: 2])
    defer { cleanup() }
    let atBaseline = await verifier.answer(query: try T.query(counter: 2))
    #expect(atBaseline.json.contains(#""counter":2,"fresh":false,"lastCounter":2"#))
    #expect(await verifier.answer(query: try T.query(counter: 3)).outcome == .fresh)
    #expect(try ledger.acceptCounter(uid: T.uidHex, counter: 3) == .notAbove(last: 3))
  }

  @Test func baselinesComeFromDoneRowsWithProgress() {
    let progress = LedgerTagProgress(step: "done", keyVersions: [1, 1, 1, 1, 1], diversificationVersion: 1, counterBaseline: 4)
    let records = [
      LedgerRecord(id: "1", sequence: 1, status: .done, uid: "04aa", progress: progress.encoded),
      LedgerRecord(id: "2", sequence: 2, status: .failed, uid: "04bb", progress: progress.encoded),
      LedgerRecord(id: "3", sequence: 3, status: .done, uid: "04cc"),
      LedgerRecord(id: "4", sequence: 4, status: .pending),
    ]
    #expect(SUNCounters.baselines(of: records) == ["04aa": 4])
  }

  @Test func aClosedLedgerAnswers503AndNothingFresh() async throws {
    let (verifier, ledger, cleanup) = try T.verifier()
    defer { cleanup() }
    ledger.close()
    let answer = await verifier.answer(query: try T.query(counter: 1))
    #expect(answer.status == 503)
    #expect(answer.outcome == .unavailable)
    #expect(answer.json.hasPrefix(#"{"error":"the counter could not be recorded"#))
  }

  @Test func metricsCountOutcomesAndTime() async throws {
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    let tap = try T.query(counter: 1)
    _ = await verifier.answer(query: tap)
    _ = await verifier.answer(query: tap)
    _ = await verifier.answer(query: tap)
    _ = await verifier.answer(query: "p=1")
    let text = verifier.metrics.exposition()
    #expect(text.contains(#"nfctag_sun_verifications_total{outcome="fresh"} 1"#))
    #expect(text.contains(#"nfctag_sun_verifications_total{outcome="replayed"} 2"#))
    #expect(text.contains(#"nfctag_sun_verifications_total{outcome="malformed"} 1"#))
    #expect(text.contains(#"nfctag_sun_verifications_total{outcome="forged"} 0"#))
    #expect(text.contains("nfctag_sun_verification_duration_seconds_count 4"))
    #expect(text.contains(#"nfctag_sun_verification_duration_seconds_bucket{le="+Inf"} 4"#))
    expectNoSecret(text)
  }

  /// A query with a trailing newline or spaces, or percent-encoded digits,
  /// is the same tap (RFC 3986 §2.1), not "has 36 hex digits".
  @Test func whitespaceAndPercentEncodedDigitsAreTheTap() async throws {
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    let tap = try T.query(counter: 7)
    let bytes = Array(tap.utf8)   // p=<32 digits>&c=<16 digits>
    let encoded = "p=" + bytes[2..<4].map { "%" + String($0, radix: 16, uppercase: true) }.joined()
      + String(decoding: bytes[4...], as: UTF8.self)
    #expect(await verifier.answer(query: encoded).outcome == .fresh, "\(encoded)")
    #expect(await verifier.answer(query: tap + "\n").outcome == .replayed)
    #expect(await verifier.answer(query: "  " + (try T.query(counter: 8)) + " ").outcome == .fresh)
    let whole = "url=" + ("https://e.com/t?" + (try T.query(counter: 9)) + "\n").utf8.map { String(format: "%%%02X", $0) }.joined()
    #expect(await verifier.answer(query: whole).outcome == .fresh, "\(whole)")
  }

  /// The query's decoding, Hex's one percent-decoder with `+` as a space (forms), then UTF-8.
  @Test func percentDecoding() {
    func decoded(_ text: String) -> String? {
      percentDecoded(text.utf8, plusIsSpace: true).flatMap { String(validating: $0, as: UTF8.self) }
    }
    #expect(decoded("a%2Fb+c%3d") == "a/b c=")
    #expect(decoded("%") == nil)
    #expect(decoded("%4") == nil)
    #expect(decoded("%4g") == nil)
    #expect(decoded("%C3%A9") == "é")
    #expect(decoded("%C3") == nil)
    #expect(percentDecoded("a+b".utf8) == Array("a+b".utf8), "+ stays + outside a form's query")
  }
}
