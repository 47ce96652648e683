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
  ///
  /// Then, when rows are claimed, one line per claimed row (the first ``listedClaimedRows``) with
  /// its tag, station and time, and the command that frees it (``releaseCommand(ledger:jobOption:row:)``):
  /// a claimed row is on a tag being written, or was left claimed when its tag went away (a run
  /// killed mid-tag, a give-back the ledger could not take before the run ended), and only
  /// `ledger release` frees it then.
  ///
  /// - Parameters:
  ///   - claimed: the claimed rows, by sequence number.
  ///   - ledger: the LEDGER argument, as the command to show names it.
  ///   - jobOption: the `--job` given, if any.
  public static func text(job: LedgerJob, counts: LedgerCounts, claimed: [LedgerRecord] = [],
                          ledger: String = "LEDGER", jobOption: String? = nil) -> String {
    let lines: [(String, String)] = [
      ("job", oneLine(job.name)), ("total", String(counts.total)), ("done", String(counts.done)),
      ("pending", String(counts.pending)), ("claimed", String(counts.claimed)), ("failed", String(counts.failed)),
      ("failed tags", String(counts.failedTags)),
    ]
    let width = lines.map(\.0.count).max() ?? 0
    let counted = lines.map { name, value in
      name + ":" + String(repeating: " ", count: width - name.count + 1) + value + "\n"
    }.joined()
    guard !claimed.isEmpty else { return counted }
    var text = counted + "claimed rows (each on a tag being written, or left claimed when its tag went away; "
      + "free a row whose tag is gone with the command shown):\n"
    for row in claimed.prefix(listedClaimedRows) {
      text += "  row \(oneLine(row.id)), tag \(oneLine(row.uid ?? "?")), station \(oneLine(row.station ?? "?")), "
        + "since \(oneLine(row.updatedAt ?? "?")): \(releaseCommand(ledger: ledger, jobOption: jobOption, row: row.id))\n"
    }
    if claimed.count > listedClaimedRows {
      text += "  … and \(claimed.count - listedClaimedRows) more (nfctag ledger export lists every row)\n"
    }
    return text
  }

  /// How many claimed rows the text lists.
  public static let listedClaimedRows = 20

  /// `nfctag ledger release LEDGER [--job JOB] --row ID`, each word quoted for a POSIX shell where
  /// it needs it and without control characters (replaced by `?`).
  public static func releaseCommand(ledger: String, jobOption: String?, row: String) -> String {
    var words = ["nfctag", "ledger", "release", ledger]
    if let jobOption { words += ["--job", jobOption] }
    words += row.hasPrefix("-") ? ["--row=" + row] : ["--row", row]  // not taken for an option
    return words.map { shellWord(oneLine($0)) }.joined(separator: " ")
  }

  /// `word` as a POSIX shell reads it: as it is when it holds only characters no shell treats
  /// specially, else in single quotes (a quote inside as `'\\''`).
  static func shellWord(_ word: String) -> String {
    let plain = !word.isEmpty && word.unicodeScalars.allSatisfy { scalar in
      switch scalar {
      case "a"..."z", "A"..."Z", "0"..."9", "-", "_", ".", "/", ":", "@", "%", "+", "=", ",": return true
      default: return false
      }
    }
    return plain ? word : "'" + word.replacingQuotes() + "'"
  }

  /// One JSON object and `\n`:
  /// `{"job":"batch-7","total":200,"done":150,"pending":40,"claimed":5,"failed":5,"failedTags":3,"claimedRows":[…]}`,
  /// `claimedRows` holding each claimed row as `{"row":…,"uid":…,"station":…,"reader":…,"since":…}`
  /// (null where the ledger holds nothing).
  public static func json(job: LedgerJob, counts: LedgerCounts, claimed: [LedgerRecord] = []) -> String {
    var writer = JSONWriter(capacity: 128)
    writer.raw("{")
    writer.key("job", first: true)
    writer.string(job.name)
    for (name, value) in [("total", counts.total), ("done", counts.done), ("pending", counts.pending),
                          ("claimed", counts.claimed), ("failed", counts.failed), ("failedTags", counts.failedTags)] {
      writer.key(named: name)
      writer.number(value)
    }
    writer.key("claimedRows")
    writer.raw("[")
    for (i, row) in claimed.enumerated() {
      writer.raw(i == 0 ? "{" : ",{")
      for (j, (name, value)) in [("row", row.id), ("uid", row.uid), ("station", row.station), ("reader", row.reader),
                                 ("since", row.updatedAt)].enumerated() {
        writer.key(named: name, first: j == 0)
        if let value { writer.string(value) } else { writer.raw("null") }
      }
      writer.raw("}")
    }
    writer.raw("]}\n")
    return writer.text
  }
}

extension String {
  /// The text with each `'` written `'\\''` (out of the quotes, a quoted quote, back in).
  fileprivate func replacingQuotes() -> String {
    var out = ""
    for character in self { out += character == "'" ? "'\\''" : String(character) }
    return out
  }
}
