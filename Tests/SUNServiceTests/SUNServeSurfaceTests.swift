import Foundation
import Hummingbird
import Logging
import Testing
@testable import SUNService

/// What `sdm serve` shows around the verdicts: the documented `replayed:`
/// reason for a provisioning baseline's replay, `# HELP` lines in the metrics, and a bind failure
/// worded as the system's message.
@Suite struct SUNServeSurface {
  typealias T = SUNTestTaps

  /// docs/ntag-424-dna.md: every not-fresh answer with a `lastCounter` has a reason `replayed: …`,
  /// the provisioning run's own read (its baseline) as well as a counter accepted before.
  @Test func aBaselineReplayHasTheReplayedPrefix() async throws {
    let (verifier, _, cleanup) = try T.verifier(baselines: [T.uidHex: 2])
    defer { cleanup() }
    let atBaseline = await verifier.answer(query: try T.query(counter: 2))
    #expect(atBaseline.json.contains(#""fresh":false,"lastCounter":2,"reason":"replayed: "#), "\(atBaseline.json)")
    #expect(atBaseline.outcome == .replayed)
  }

  @Test func everyMetricHasHelpAndType() {
    let text = SUNMetrics().exposition()
    for name in ["nfctag_sun_verifications_total", "nfctag_sun_verification_duration_seconds"] {
      #expect(text.contains("# HELP \(name) "), "\(text)")
      #expect(text.contains("# TYPE \(name) "), "\(text)")
    }
    #expect(text.contains(#"nfctag_sun_verifications_total{outcome="fresh"} 0"#), "\(text)")
  }

  /// A port in use: the system's message, not SwiftNIO's description of its call.
  @Test func aBindFailureIsTheSystemsMessage() async throws {
    let held = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(held) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(held, $0, length) == 0 && getsockname(held, $0, &length) == 0 }
    }
    try #require(bound && listen(held, 1) == 0)
    let port = Int(UInt16(bigEndian: address.sin_port))
    let (verifier, _, cleanup) = try T.verifier()
    defer { cleanup() }
    var logger = Logger(label: "test")
    logger.logLevel = .critical
    do {
      try await SUNServer.run(verifier, host: "127.0.0.1", port: port, logger: logger) { _ in }
      Issue.record("the service listened on a port in use")
    } catch {
      #expect(SUNServer.reason(for: error) == "Address already in use", "\(error)")
    }
  }
}
