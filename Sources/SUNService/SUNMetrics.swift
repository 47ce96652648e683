import Prometheus

/// The service's metrics in Prometheus' text format: `nfctag_sun_verifications_total` by
/// `outcome` (``SUNOutcome``) and `nfctag_sun_verification_duration_seconds`, a histogram of the
/// time from query to answer (ledger included), each with its `# HELP` and `# TYPE` lines, on a
/// registry of this object's own (no global bootstrap: several services may run in one test
/// process). swift-prometheus' own collectors: its swift-metrics factory gives no help text.
public final class SUNMetrics: Sendable {
  private let registry = PrometheusCollectorRegistry()
  private let counts: [SUNOutcome: Prometheus.Counter]
  private let latency: DurationHistogram

  /// The latency buckets: a verification takes tens of microseconds, a PostgreSQL round trip a
  /// few hundred.
  public static let buckets: [Duration] = [
    .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5),
    .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(100), .milliseconds(250), .seconds(1),
  ]

  /// `nfctag_sun_verifications_total`.
  static var verifications: MetricNameDescriptor {
    MetricNameDescriptor(
      namespace: "nfctag", subsystem: "sun", metricName: "verifications", unitName: "total",
      helpText: "SUN verifications answered, by outcome (fresh, replayed, forged, malformed, unavailable).")
  }
  /// `nfctag_sun_verification_duration_seconds`.
  static var duration: MetricNameDescriptor {
    MetricNameDescriptor(
      namespace: "nfctag", subsystem: "sun", metricName: "verification_duration", unitName: "seconds",
      helpText: "Time from a verification query to its answer, the ledger included.")
  }

  public init() {
    var counts: [SUNOutcome: Prometheus.Counter] = [:]
    for outcome in SUNOutcome.allCases {
      counts[outcome] = registry.makeCounter(descriptor: Self.verifications, labels: [("outcome", outcome.rawValue)])
    }
    self.counts = counts
    latency = registry.makeDurationHistogram(descriptor: Self.duration, labels: [], buckets: Self.buckets)
  }

  /// Counts one answer and its time.
  func record(_ outcome: SUNOutcome, duration: Duration) {
    counts[outcome]?.increment()
    latency.record(duration)
  }

  /// Every metric, in Prometheus' text exposition format.
  public func exposition() -> String { registry.emitToString() }
}
