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
        let trailerBlock = chip.trailer(of: sector)
        let trailer: [UInt8]
        do {
          trailer = try read(blocks: [trailerBlock])[trailerBlock] ?? []
        } catch {
          guard case .authenticationFailed = error else { throw error }
          closed.append(sector)
          continue
        }
        guard trailer.count == 16, let opened = openedWith[sector] else { continue }
        let keyName = "key \(opened.type == .a ? "A" : "B"): \(keys.name(of: opened.key))"
        let conditions = MIFAREClassicAccessConditions(bytes: Array(trailer[6..<9]))
        let decoded = conditions.map(Self.describe) ?? "access bits \(hexString(trailer[6..<9])) invalid"
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

  /// "data: read key A or B, write key B; trailer: access bits written with key B" and so on.
  static func describe(_ conditions: MIFAREClassicAccessConditions) -> String {
    let data = conditions.groups[0]
    let trailer = conditions.groups[3]
    var text = "data read \(data.dataRead), write \(data.dataWrite); trailer written with \(trailer.trailerAccessBitsWrite)"
    if conditions.isPermanent { text += " (permanent)" }
    return text
  }
}
