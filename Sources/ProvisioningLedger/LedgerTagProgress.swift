// How far an NTAG 424 DNA's set-up came (`provision --sdm-url`): what the ledger keeps of a tag
// besides its row. Never a key.
import NDEFJSON

/// The steps of an NTAG 424 DNA's set-up a ledger row records (claimed → written → keys changed
/// k/5 → done), with what a verifier needs of the tag: its key versions, the key diversification
/// scheme's version and the SDM read counter the run itself consumed (the baseline: a tap's
/// counter must be above it). Holds no key, and nothing derived from one.
///
/// The ledger stores it as ``encoded`` text in the row (``Ledger/recordProgress(rowID:uid:progress:)``),
/// so that both backends keep the same bytes and a new field needs no new column.
public struct LedgerTagProgress: Sendable, Equatable {
  /// The last step done: `written` (the NDEF file and its SDM settings), `keys k/5` (k of the
  /// five keys hold their new value), `done` (the read-back verified).
  public var step: String
  /// Keys 0–4's versions as the run last knew them (`00` factory, the scheme's version once changed).
  public var keyVersions: [Int]
  /// The key diversification scheme's version (nfctag's `SDMKeyDiversification`).
  public var diversificationVersion: Int
  /// The SDM read counter of the run's own verification read; nil before it.
  public var counterBaseline: Int?
  /// The keys that failed AuthenticateEV2First on this tag, as `key N version VV`: never tried
  /// again on it (each failure counts towards the tag's limit).
  public var failedAuthentications: [String]

  /// Progress as given.
  public init(step: String, keyVersions: [Int], diversificationVersion: Int, counterBaseline: Int? = nil,
              failedAuthentications: [String] = []) {
    self.step = step; self.keyVersions = keyVersions; self.diversificationVersion = diversificationVersion
    self.counterBaseline = counterBaseline; self.failedAuthentications = failedAuthentications
  }

  /// One JSON object, members in a fixed order: `{"step":"keys 4/5","keyVersions":[0,1,1,1,1],
  /// "diversification":1,"counterBaseline":null,"failedAuthentications":[]}`.
  public var encoded: String {
    var json = JSONWriter()
    json.raw("{\"step\":")
    json.string(step)
    json.raw(json: ",\"keyVersions\":[" + keyVersions.map(String.init).joined(separator: ",") + "]")
    json.raw(json: ",\"diversification\":\(diversificationVersion)")
    json.raw(json: ",\"counterBaseline\":" + (counterBaseline.map(String.init) ?? "null"))
    json.raw(",\"failedAuthentications\":[")
    for (index, key) in failedAuthentications.enumerated() {
      if index > 0 { json.raw(",") }
      json.string(key)
    }
    json.raw("]}")
    return json.text
  }

  /// The progress ``encoded`` wrote, or nil for text that is not such an object.
  public init?(decoding text: String) {
    guard let json = try? JSONParser.parse(Array(text.utf8)),
          let step = json["step"]?.stringValue,
          case .array(let versions)? = json["keyVersions"],
          let diversification = json["diversification"]?.intValue
    else { return nil }
    var keyVersions: [Int] = []
    for version in versions {
      guard let value = version.intValue else { return nil }
      keyVersions.append(value)
    }
    var failed: [String] = []
    if case .array(let keys)? = json["failedAuthentications"] {
      for key in keys {
        guard let value = key.stringValue else { return nil }
        failed.append(value)
      }
    }
    self.init(step: step, keyVersions: keyVersions, diversificationVersion: diversification,
              counterBaseline: json["counterBaseline"]?.intValue, failedAuthentications: failed)
  }
}
