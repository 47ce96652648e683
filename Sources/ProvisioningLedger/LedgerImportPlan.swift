/// What ``Ledger/importRows(_:)`` is to do, worked out from the rows the job already has. Every
/// backend uses it, so that they count alike and word ``LedgerError/rowsDiffer(_:)`` alike.
public struct LedgerImportPlan: Sendable, Equatable {
  /// The rows to add as pending, in the order given.
  public var newRows: [LedgerRowInput]
  /// Rows given that the ledger already has, unchanged (a row given twice counts here once more).
  public var alreadyThere: Int
  /// One line per row that differs from the ledger's, in the order given; empty when none does.
  public var differences: [String]

  /// Compares `rows` with `existing`, the job's rows as the ledger holds them.
  public init(importing rows: [LedgerRowInput], existing: [LedgerRowInput]) {
    var known: [String: LedgerRowInput] = [:]
    known.reserveCapacity(existing.count + rows.count)
    for row in existing { known[row.id] = row }
    var given = Set<String>()
    newRows = []
    alreadyThere = 0
    differences = []
    for row in rows {
      let repeated = !given.insert(row.id).inserted
      guard let old = known[row.id] else {
        newRows.append(row)
        known[row.id] = row
        continue
      }
      if old == row {
        alreadyThere += 1
      } else if repeated {
        differences.append("row \(row.id): given twice, differently")
      } else {
        differences.append(Self.difference(row, from: old))
      }
    }
  }

  /// What ``Ledger/importRows(_:)`` returns once the plan is carried out.
  public var result: LedgerImport { LedgerImport(added: newRows.count, alreadyThere: alreadyThere) }

  /// Throws ``LedgerError/rowsDiffer(_:)`` when a row differs: call it before changing anything.
  public func checkNoDifference() throws(LedgerError) {
    if !differences.isEmpty { throw .rowsDiffer(differences) }
  }

  /// `row 17: sequence 4, the ledger has 3`, `row 17: its content differs from the ledger's`, or both.
  private static func difference(_ row: LedgerRowInput, from old: LedgerRowInput) -> String {
    var parts: [String] = []
    if row.sequence != old.sequence { parts.append("sequence \(row.sequence), the ledger has \(old.sequence)") }
    if row.contentHash != old.contentHash { parts.append("its content differs from the ledger's") }
    return "row \(row.id): " + parts.joined(separator: "; ")
  }
}
