import NFCTransport

extension MIFAREClassicTag {
  /// What `info` (and, without the per-sector facts, `scan`) reports: the chip, the NDEF status
  /// when there is a MAD, and for each sector the key that opened it and its access conditions
  /// decoded (MF1S50yyX §8.7, Tables 7 and 8); sectors no key opened, by number.
  func classicInfo(full: Bool) throws(TagError) -> TagInfo {
    var details: [TagInfoFact] = []
    let ndef: NDEFStatusReport
    do {
      ndef = try queryNDEFStatus()
    } catch {
      switch error {
      case .notFormatted, .malformed, .authenticationFailed:
        ndef = NDEFStatusReport(status: .notSupported, capacity: 0)
        details.append(.ndefProblem(error.description))
      default: throw error
      }
    }
    var locks: [TagInfoFact] = []
    // The NDEF sectors' write access, as the first NDEF sector's GPB and access bits give it
    // (AN1304's read/write form; AN1305 §6.4.9's read-only one).
    switch ndef.status {
    case .readWrite:
      locks.append(TagInfoFact("NDEF write access", key: "ndefWriteAccess", text: "NDEF sectors read/write", value: .string("readWrite")))
    case .readOnly:
      locks.append(TagInfoFact("NDEF write access", key: "ndefWriteAccess", text: "NDEF sectors read-only", value: .string("readOnly")))
    default:
      break
    }
    if full {
      var closed: [Int] = []
      for sector in 0..<chip.sectorCount {
        guard let trailer = try trailer(of: sector) else {
          closed.append(sector)
          continue
        }
        guard let opened = openedWith[sector] else { continue }
        let keyName = "key \(opened.type == .a ? "A" : "B"): \(keys.name(of: opened.key))"
        let conditions = MIFAREClassicAccessConditions(bytes: Array(trailer[6..<9]))
        let decoded = conditions.map { Self.describe($0, sixteenBlocks: sector >= 32) } ?? "access bits \(hexString(trailer[6..<9])) invalid"
        let text = "\(keyName); \(decoded); GPB \(hexString([trailer[9]]))"
        // One fact per sector: a line for people, an object for JSON (`sector0`, `sector1`, …).
        details.append(TagInfoFact("sector \(sector)", key: "sector\(sector)", text: text, value: .members([
          "keyType": .string(opened.type == .a ? "A" : "B"), "key": .string(keys.name(of: opened.key)),
          "accessBits": .bytes(Array(trailer[6..<9])), "conditions": .string(conditions?.summary ?? "invalid"),
          "gpb": .bytes([trailer[9]]),
        ])))
      }
      if !closed.isEmpty {
        let text = MIFAREClassicError.sectorsNotOpened(closed).description
        locks.append(TagInfoFact("closed sectors", key: "closedSectors", text: text, value: .list(closed.map { .number($0) })))
      }
    }
    return TagInfo(platform: .mifareClassic, chip: chip.productName, identifier: identifier, memorySize: chip.memorySize,
                   ndef: ndef, capabilityContainer: [], locks: locks, details: details)
  }

  /// "data read key A or B, write key B; trailer written with key B" when the three data groups
  /// agree; otherwise each group's conditions by its blocks ("block 0 read key A or B, write key A
  /// or B; blocks 1–2 read key A or B, write key B; …"), so the text says what the JSON's
  /// `conditions` say (MF1S50yyX §8.7.2, Table 8). In a 16-block sector the groups are blocks 0–4,
  /// 5–9 and 10–14 (MF1S70yyX §8.7.3).
  static func describe(_ conditions: MIFAREClassicAccessConditions, sixteenBlocks: Bool = false) -> String {
    let data = Array(conditions.groups.prefix(3))
    let trailer = conditions.groups[3]
    func rights(_ group: MIFAREClassicAccessBits) -> String { "read \(group.dataRead), write \(group.dataWrite)" }
    var parts: [String] = []
    if data.allSatisfy({ rights($0) == rights(data[0]) }) {
      parts.append("data \(rights(data[0]))")
    } else {
      // Neighbouring groups with the same rights share one entry.
      var runs: [(first: Int, last: Int, text: String)] = []
      for (index, group) in data.enumerated() {
        let text = rights(group)
        if let last = runs.last, last.text == text { runs[runs.count - 1].last = index } else { runs.append((index, index, text)) }
      }
      for run in runs {
        let first = sixteenBlocks ? run.first * 5 : run.first, last = sixteenBlocks ? run.last * 5 + 4 : run.last
        parts.append(first == last ? "block \(first) \(run.text)" : "blocks \(first)–\(last) \(run.text)")
      }
    }
    var text = parts.joined(separator: "; ") + "; trailer written with \(trailer.trailerAccessBitsWrite)"
    if conditions.isPermanent { text += " (permanent)" }
    return text
  }
}
