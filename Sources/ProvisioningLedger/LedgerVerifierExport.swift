import NDEFJSON

/// What a SUN verifier needs of a job's NTAG 424 DNA tags (`ledger export --for-verifier`): for
/// each done row with a recorded ``LedgerTagProgress``, the UID, the key versions, the key
/// diversification scheme's version and the counter baseline (a tap's SDM read counter must be
/// above it: the run's own verification read consumed the counters up to it). No key: the
/// verifier derives them from the master key it holds.
///
/// Columns: `uid,key_versions,diversification,counter_baseline`; `key_versions` is keys 0–4's
/// versions as two hex digits each (`0101010101`), `counter_baseline` empty when unknown.
public enum LedgerVerifierExport {
  /// The column names, in order.
  public static let columns = ["uid", "key_versions", "diversification", "counter_baseline"]

  /// The done rows that carry a progress, by sequence number.
  static func tags(_ records: [LedgerRecord]) -> [(uid: String, progress: LedgerTagProgress)] {
    records.sorted { ($0.sequence, $0.id) < ($1.sequence, $1.id) }.compactMap { record in
      guard record.status == .done, let uid = record.uid, let text = record.progress,
            let progress = LedgerTagProgress(decoding: text) else { return nil }
      return (uid, progress)
    }
  }

  static func hexVersions(_ versions: [Int]) -> String {
    versions.map { version in
      let digits = String(UInt8(clamping: version), radix: 16)
      return digits.count == 1 ? "0" + digits : digits
    }.joined()
  }

  /// CSV with a header line.
  public static func csv(records: [LedgerRecord]) throws(LedgerError) -> String {
    try LedgerReport.csv(header: columns, rows: tags(records).map { tag in
      [tag.uid, hexVersions(tag.progress.keyVersions), String(tag.progress.diversificationVersion),
       tag.progress.counterBaseline.map { String($0) } ?? ""]
    })
  }

  /// JSON lines: `{"uid":"…","keyVersions":[1,1,1,1,1],"diversification":1,"counterBaseline":1}`.
  public static func jsonLines(records: [LedgerRecord]) -> String {
    var writer = JSONWriter()
    for tag in tags(records) {
      writer.raw("{\"uid\":")
      writer.string(tag.uid)
      writer.raw(json: ",\"keyVersions\":[" + tag.progress.keyVersions.map(String.init).joined(separator: ",") + "]")
      writer.raw(json: ",\"diversification\":\(tag.progress.diversificationVersion)")
      writer.raw(json: ",\"counterBaseline\":" + (tag.progress.counterBaseline.map(String.init) ?? "null") + "}\n")
    }
    return writer.text
  }
}
