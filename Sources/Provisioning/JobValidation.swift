// The whole job checked before any tag is touched.

/// Everything wrong with a job before the first tag: rows, template, mirror, and (once the first
/// tag says how much it holds) the rows whose messages do not fit.
///
/// Every problem is one line naming its row (`row 17 (line 18): …`), in file order; the tool
/// prints them and exits 65.
public struct JobValidation: Sendable {
  /// The UID length assumed when rendering for validation: 7 bytes (NTAG21x), 14 hex characters.
  public static let defaultUIDLength = 7

  /// Every problem found, in file order; empty when the job can start.
  public let problems: [ProvisioningProblem]
  /// Each valid row with the size of its message (rendered with a worst-case UID and the mirror
  /// room), in file order.
  public let messageSizes: [(row: ProvisioningRow, bytes: Int)]

  /// The largest message of the job, in bytes (0 when no row rendered).
  public var largestMessage: Int { messageSizes.map(\.bytes).max() ?? 0 }

  /// Checks the job.
  ///
  /// Finds: the rows file's own problems (malformed CSV or JSON, wrong field counts, empty ids,
  /// duplicate ids, an empty file); columns the template uses that the CSV header lacks (one
  /// problem per column) or that a JSON-lines row lacks (per row); column placeholders in a job
  /// without a rows file; `{mirror}` not exactly once with a mirror mode, present without one,
  /// or outside a URL; and rows whose message cannot be built (an empty URL, bad hex in a JSON
  /// template…).
  /// - Parameters:
  ///   - rows: the rows (``RowsFile/load(path:maxBytes:)`` or ``RowsFile/counted(_:)``).
  ///   - template: the message template.
  ///   - mirror: the job's mirror mode, or nil.
  ///   - uidLength: UID length in bytes used for rendering (the first tag's, when known).
  public init(rows: RowsFile, template: MessageTemplate, mirror: MirrorMode?, uidLength: Int = defaultUIDLength) {
    var problems = rows.problems
    problems += Self.mirrorProblems(template: template, mirror: mirror)

    var reportedColumns = Set<String>()
    switch rows.format {
    case .csv where rows.columns.isEmpty && !rows.problems.isEmpty:
      break  // the header could not be read (a quoting mistake, not UTF-8…): that problem is the cause
    case .csv:
      let header = Set(rows.columns)
      for name in template.placeholders.sorted() where !header.contains(name) {
        problems.append(ProvisioningProblem(line: 1, message: "the template uses {\(name)}, which is not a column of the header"))
        reportedColumns.insert(name)
      }
    case .counted:
      for name in template.placeholders.sorted() {
        problems.append(ProvisioningProblem(message: "the template uses {\(name)}, but the job has no rows file"))
        reportedColumns.insert(name)
      }
    case .jsonLines:
      break
    }

    let mirrorIsValid = mirror != nil && template.mirrorCount == 1 && template.mirrorsOutsideURL.isEmpty
    let uid = [UInt8](repeating: 0, count: max(0, uidLength))
    var sizes: [(row: ProvisioningRow, bytes: Int)] = []
    for row in rows.rows {
      do {
        let rendered = try template.render(row: row, uid: uid, mirror: mirrorIsValid ? mirror : nil)
        sizes.append((row, rendered.bytes.count))
      } catch {
        switch error {
        case .template(.missingColumn(let name)) where reportedColumns.contains(name): continue
        case .template(.mirrorWithoutMode): continue  // reported once by mirrorProblems
        case .template(.missingColumn(let name)): problems.append(ProvisioningProblem(row, "no field \"\(name)\" for {\(name)}"))
        default: problems.append(ProvisioningProblem(row, error.description))
        }
      }
    }
    self.problems = ProvisioningProblem.inFileOrder(problems)
    self.messageSizes = sizes
  }

  /// The rows whose message is longer than `capacity`, the bytes of NDEF message the tag holds
  /// (the first tag's, then each tag's), one problem per row in file order.
  public func problems(forCapacity capacity: Int) -> [ProvisioningProblem] {
    messageSizes.filter { $0.bytes > capacity }.map {
      ProvisioningProblem($0.row, "the message is \($0.bytes) bytes; the tag holds \(capacity)")
    }
  }

  static func mirrorProblems(template: MessageTemplate, mirror: MirrorMode?) -> [ProvisioningProblem] {
    let count = template.mirrorCount
    var problems: [ProvisioningProblem] = []
    if let mirror {
      if count == 0 {
        problems.append(ProvisioningProblem(message: "the mirror (\(mirror.rawValue)) needs {mirror} in the URL template"))
      } else if count > 1 {
        problems.append(ProvisioningProblem(message: "{mirror} appears \(count) times; the mirror needs it exactly once"))
      }
    } else if count > 0 {
      problems.append(ProvisioningProblem(message: "the template holds {mirror} but no mirror mode is set"))
    }
    for place in template.mirrorsOutsideURL {
      problems.append(ProvisioningProblem(message: "{mirror} stands in \(place), not in a URL"))
    }
    return problems
  }
}
