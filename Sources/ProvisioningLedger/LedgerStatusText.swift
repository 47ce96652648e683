import NDEFJSON

/// What `nfctag ledger status` prints for a job: the same for every backend.
public enum LedgerStatusText {
  /// Aligned `name: value` lines, each ending in `\n`:
  ///
  /// ```
  /// job:         batch-7
  /// total:       200
  /// done:        150
  /// pending:     40
  /// claimed:     5
  /// failed:      5
  /// failed tags: 3
  /// ```
  ///
  /// The job's name is shown with control and invisible characters replaced by `?`.
  public static func text(job: LedgerJob, counts: LedgerCounts) -> String {
    let lines: [(String, String)] = [
      ("job", oneLine(job.name)), ("total", String(counts.total)), ("done", String(counts.done)),
      ("pending", String(counts.pending)), ("claimed", String(counts.claimed)), ("failed", String(counts.failed)),
      ("failed tags", String(counts.failedTags)),
    ]
    let width = lines.map(\.0.count).max() ?? 0
    return lines.map { name, value in
      name + ":" + String(repeating: " ", count: width - name.count + 1) + value + "\n"
    }.joined()
  }

  /// One JSON object and `\n`:
  /// `{"job":"batch-7","total":200,"done":150,"pending":40,"claimed":5,"failed":5,"failedTags":3}`.
  public static func json(job: LedgerJob, counts: LedgerCounts) -> String {
    var writer = JSONWriter(capacity: 128)
    writer.raw("{")
    writer.key("job", first: true)
    writer.string(job.name)
    for (name, value) in [("total", counts.total), ("done", counts.done), ("pending", counts.pending),
                          ("claimed", counts.claimed), ("failed", counts.failed), ("failedTags", counts.failedTags)] {
      writer.key(named: name)
      writer.number(value)
    }
    writer.raw("}\n")
    return writer.text
  }
}
