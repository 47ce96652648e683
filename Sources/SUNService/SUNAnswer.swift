import NDEFJSON

/// What a verification came to, for the metrics and the HTTP status.
public enum SUNOutcome: String, Sendable, CaseIterable {
  /// Authentic, and its counter above every one accepted before for the UID.
  case fresh
  /// Authentic, but its counter not above the last one accepted (a replayed or older URL), or no
  /// counter to tell.
  case replayed
  /// Not authentic: PICCData does not decrypt, or the CMAC does not match.
  case forged
  /// Not a SUN query: a parameter missing, repeated, not hex, of the wrong length, or too long;
  /// or an LRP-mode SUN, which is not checked (answered 200 with `valid` false).
  case malformed
  /// Authentic, but the ledger could not record its counter: no answer about freshness.
  case unavailable
}

/// One answer of the service: the HTTP status, the JSON body, and the outcome.
///
/// Statuses: 200 for every verdict (`valid` true or false, `fresh` true or false), 400 for a
/// malformed query (`{"error":"…"}`), 503 when the ledger cannot be reached (`{"error":"…"}`; the
/// counter was not recorded, so the same URL may be asked again).
public struct SUNAnswer: Sendable, Equatable {
  /// The HTTP status code.
  public var status: Int
  /// The JSON object, one line, no newline.
  public var json: String
  public var outcome: SUNOutcome

  /// `{"valid":true,"uid":…,"counter":…,"fresh":…}`, with `lastCounter` and a `reason` when not fresh.
  /// A not-fresh answer with a `lastCounter` (a counter accepted before, or the provisioning
  /// run's own read) is a replay: its reason starts with `replayed: `, as docs/ntag-424-dna.md
  /// documents it for clients that match on it.
  static func verified(uid: [UInt8], counter: UInt32?, fresh: Bool, lastCounter: UInt32? = nil,
                       reason: String? = nil) -> SUNAnswer {
    var reason = reason
    if !fresh, lastCounter != nil, let given = reason, !given.hasPrefix(replayedPrefix) { reason = replayedPrefix + given }
    var o = JSONWriter(capacity: 96)
    o.raw("{\"valid\":true,\"uid\":")
    o.hexString(uid)
    if let counter {
      o.key("counter")
      o.number(Int(counter))
    }
    o.key("fresh")
    o.bool(fresh)
    if let lastCounter {
      o.key("lastCounter")
      o.number(Int(lastCounter))
    }
    if let reason {
      o.key("reason")
      o.string(reason)
    }
    o.raw("}")
    return SUNAnswer(status: 200, json: o.text, outcome: fresh ? .fresh : .replayed)
  }

  /// What the reason of a replayed answer starts with.
  static let replayedPrefix = "replayed: "

  /// `{"valid":false,"reason":"…"}` for a SUN the verifier cannot check (an LRP-mode one),
  /// counted with the malformed queries: the URL was not checked.
  static func unsupported(_ reason: String) -> SUNAnswer {
    var answer = forged(reason)
    answer.outcome = .malformed
    return answer
  }

  /// `{"valid":false,"reason":"…"}`.
  static func forged(_ reason: String) -> SUNAnswer {
    var o = JSONWriter(capacity: 96)
    o.raw("{\"valid\":false,\"reason\":")
    o.string(reason)
    o.raw("}")
    return SUNAnswer(status: 200, json: o.text, outcome: .forged)
  }

  /// `{"error":"…"}` with a status: 400 malformed, 503 unavailable.
  static func error(_ status: Int, _ message: String, _ outcome: SUNOutcome) -> SUNAnswer {
    var o = JSONWriter(capacity: 96)
    o.raw("{\"error\":")
    o.string(message)
    o.raw("}")
    return SUNAnswer(status: status, json: o.text, outcome: outcome)
  }
}
