import Hex
import NTAG424
import ProvisioningLedger

/// The service's answer to one query: NTAG424's ``SUNVerification`` (the verifier every command
/// runs), then the replay check through the ledger (``Ledger/acceptCounter(uid:counter:)``).
///
/// The keys are held as ``SUNKeys`` and never leave this object: no answer, log line or metric
/// carries key material (``SUNVerification/reason(for:sun:keys:)`` names what failed, not a key).
public final class SUNVerifier: Sendable {
  private let keys: SUNKeys
  private let counters: SUNCounters
  private let names: SUNParameterNames
  /// Counts by outcome and the latency histogram (`GET /metrics`).
  public let metrics: SUNMetrics

  /// A verifier with the master key (or the keys by role), the ledger's counters, and the URL's
  /// parameter names.
  public init(keys: SUNKeys, counters: SUNCounters, names: SUNParameterNames = SUNParameterNames(),
              metrics: SUNMetrics = SUNMetrics()) {
    self.keys = keys
    self.counters = counters
    self.names = names
    self.metrics = metrics
  }

  /// Answers `query` (the request's query, after `?`, as received), and records the outcome and
  /// the time taken in ``metrics``.
  public func answer(query: String?) async -> SUNAnswer {
    let start = ContinuousClock.now
    let answer = await verify(query: query)
    metrics.record(answer.outcome, duration: ContinuousClock.now - start)
    return answer
  }

  private func verify(query: String?) async -> SUNAnswer {
    let sun: SUNURL
    do throws(SUNQuery.Problem) {
      sun = try SUNQuery.parse(query, names: names)
    } catch .url(.lrpMode(let parameter)) {
      // A SUN, but one this verifier cannot check: a verdict, not a malformed query.
      return .unsupported(SUNURLError.lrpMode(parameter: parameter).description)
    } catch {
      return .error(400, error.description, .malformed)
    }
    let message: SUNMessage
    do {
      message = try SUNVerification.verify(sun, keys: keys)
    } catch {
      return .forged(SUNVerification.reason(for: error, sun: sun, keys: keys))
    }
    guard let uid = message.uid else {
      return .forged("the URL carries no UID (PICCData without UID mirroring): the tag cannot be told")
    }
    guard let counter = message.readCounter else {
      return .verified(uid: uid, counter: nil, fresh: false,
                       reason: "the URL carries no read counter (SDMReadCtr not mirrored): a replay cannot be told")
    }
    let uidText = hexString(uid)
    if let baseline = counters.baselines[uidText], counter <= baseline {
      return .verified(uid: uid, counter: counter, fresh: false, lastCounter: baseline,
                       reason: "the counter is not above the one the provisioning run's own read left")
    }
    do {
      switch try await counters.accept(uid: uidText, counter: counter) {
      case .accepted:
        return .verified(uid: uid, counter: counter, fresh: true)
      case .notAbove(let last):
        return .verified(uid: uid, counter: counter, fresh: false, lastCounter: last,
                         reason: "replayed: the counter is not above the last one accepted for this UID")
      }
    } catch {
      return .error(503, "the counter could not be recorded: \(error)", .unavailable)
    }
  }
}
