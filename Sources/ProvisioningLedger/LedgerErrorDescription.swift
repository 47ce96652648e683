import NDEFJSON

extension LedgerError: CustomStringConvertible {
  /// One line that states what happened: no advice (the tool adds that), no secret (a backend
  /// names a file path or a URL without its password, never a row's content).
  public var description: String {
    switch self {
    case .cannotOpen(let why): return "cannot open the ledger: \(oneLine(why))"
    case .unavailable(let why): return "the ledger is unavailable, nothing of this step was committed: \(oneLine(why))"
    case .incompatible(let why): return oneLine(why)
    case .rowsDiffer(let lines):
      let shown = lines.prefix(Self.differencesShown).map(oneLine)
      let more = lines.count > shown.count ? "; and \(lines.count - shown.count) more" : ""
      let count = lines.count == 1 ? "1 row differs" : "\(lines.count) rows differ"
      return "\(count) from the rows already in the ledger: " + shown.joined(separator: "; ") + more
    case .unknownRow(let id): return "the ledger has no row \(oneLine(id)) in this job"
    case .unknownJob(let name): return "the ledger has no job \(oneLine(name))"
    case .notBound(let rowID, let uid): return "row \(oneLine(rowID)) is not claimed by tag \(oneLine(uid))"
    case .cannotRelease(let rowID, let status):
      return "row \(oneLine(rowID)) is \(status.rawValue); only a claimed or failed row can be released"
    case .closed: return "the ledger is closed"
    }
  }

  /// How many of ``rowsDiffer(_:)``'s lines its description names before "and N more".
  static let differencesShown = 5
}

/// `text` with every control, bidirectional-control and invisible character (NDEFJSON's
/// `isDeceptiveScalar`) replaced by `?`, so that a row id or a backend's message cannot break a
/// line or deceive whoever reads it.
func oneLine(_ text: String) -> String {
  guard text.unicodeScalars.contains(where: isDeceptiveScalar) else { return text }
  return String(String.UnicodeScalarView(text.unicodeScalars.map { isDeceptiveScalar($0) ? "?" : $0 }))
}
