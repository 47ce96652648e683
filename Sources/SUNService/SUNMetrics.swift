import CoreMetrics
import Prometheus

/// The service's metrics in Prometheus' text format: `nfctag_sun_verifications_total` by
/// `outcome` (``SUNOutcome``) and `nfctag_sun_verification_duration_seconds`, a histogram of the
/// time from query to answer (ledger included), through swift-metrics' API on a registry of this
/// object's own (no global bootstrap: several services may run in one test process).
public final class SUNMetrics: Sendable {
  private let registry = PrometheusCollectorRegistry()
  private let counts: [SUNOutcome: CoreMetrics.Counter]
  private let latency: CoreMetrics.Timer

  /// The latency buckets: a verification takes tens of microseconds, a PostgreSQL round trip a
  /// few hundred.
  public static let buckets: [Duration] = [
    .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
    .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(100), .milliseconds(250), .seconds(1),
  ]

  public init() {
    var factory = PrometheusMetricsFactory(registry: registry)
    factory.defaultDurationHistogramBuckets = Self.buckets
    var counts: [SUNOutcome: CoreMetrics.Counter] = [:]
    for outcome in SUNOutcome.allCases {
      counts[outcome] = CoreMetrics.Counter(label: "nfctag_sun_verifications_total",
                                            dimensions: [("outcome", outcome.rawValue)], factory: factory)
    }
    self.counts = counts
    latency = CoreMetrics.Timer(label: "nfctag_sun_verification_duration_seconds", dimensions: [], factory: factory)
  }

  /// Counts one answer and its time.
  func record(_ outcome: SUNOutcome, duration: Duration) {
    counts[outcome]?.increment()
    latency.recordNanoseconds(duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
  }

  /// Every metric, in Prometheus' text exposition format.
  public func exposition() -> String { registry.emitToString() }
}
