import NFCTransport

/// What `info` shows of a Type 5 tag: system information, blocks, the data area and block locks.
extension Type5Tag {
  public func info() throws(TagError) -> TagInfo {
    let memory = try beginOperation()
    let snapshot = try analyse(memory)
    var report = snapshot.report
    var details: [TagInfoFact] = [
      TagInfoFact("UID (MSB first)", key: "uidMSBFirst", text: hexString(uidMSBFirst, separator: ":"),
                  value: .bytes(uidMSBFirst)),
    ]
    if let systemInfo {
      if let dsfid = systemInfo.dsfid { details.append(byteFact("DSFID", key: "dsfid", dsfid)) }
      if let afi = systemInfo.afi { details.append(byteFact("AFI", key: "afi", afi)) }
      if let ic = systemInfo.icReference { details.append(byteFact("IC reference", key: "icReference", ic)) }
    }
    if let totalBlocks {
      details.append(TagInfoFact("Blocks", key: "blocks", text: "\(totalBlocks) × \(blockSize) bytes",
                                 value: .members(["count": .number(totalBlocks), "size": .number(blockSize)])))
    }
    if let userBlocks, userBlocks != totalBlocks {
      details.append(TagInfoFact("User blocks", key: "userBlocks", text: "\(userBlocks)", value: .number(userBlocks)))
    }
    switch snapshot.layout {
    case .success(let layout)?:
      let area = layout.area.start ..< layout.area.end
      details.append(TagInfoFact("Data area", key: "dataArea", text: "\(byteSpan(area)) (\(snapshot.convention))",
                                 value: .members(["start": .number(area.lowerBound), "size": .number(area.count),
                                                  "convention": .string(snapshot.conventionKey)])))
      details.append(.tlvs(.success(layout)))
    case .failure(let error)?:
      report = NDEFStatusReport(status: report.status, capacity: 0, messageLength: nil)
      details.append(.tlvs(.failure(error)))
    case nil:
      details.append(.ndefProblem(snapshot.why))
    }
    var locks: [TagInfoFact] = []
    if snapshot.ccLength > 0 {
      let access = snapshot.cc[1] & 0x03
      let meaning = access == 0 ? "granted" : (access == 3 ? "never" : "proprietary")
      locks.append(TagInfoFact("CC write access", key: "ccWriteAccess",
                               text: "CC write access \(access >> 1)\(access & 1)b (\(meaning))",
                               value: accessValue(access, meaning: meaning)))
    } else {
      locks.append(TagInfoFact("CC", key: "ccWriteAccess", text: "no CC", value: .null))
    }
    if link.capabilities.rawCommands, let totalBlocks {
      var locked = 0
      var first = 0
      var known = true
      while first < totalBlocks {
        let count = min(totalBlocks - first, max(1, link.capabilities.maxResponseLength))
        do {
          locked += try securityStatus(from: first, count: count).filter { $0 & 0x01 != 0 }.count
        } catch {
          if error.isTagLost { throw error }
          known = false
          break
        }
        first += count
      }
      locks.append(TagInfoFact("Block locks", key: "lockedBlocks",
                               text: known ? "\(locked) of \(totalBlocks) blocks locked" : "block lock state unknown",
                               value: known ? .members(["locked": .number(locked), "total": .number(totalBlocks)]) : .null))
    } else {
      locks.append(TagInfoFact("Block locks", key: "lockedBlocks", text: "block lock state unknown through this reader",
                               value: .null))
    }
    let memorySize = (totalBlocks.map { $0 * blockSize }) ?? snapshot.areaEnd
    return TagInfo(platform: .type5, chip: chip?.name ?? "ISO 15693 tag", identifier: identifier,
                   memorySize: memorySize, ndef: report, capabilityContainer: snapshot.cc,
                   version: systemInfo?.raw ?? [], locks: locks, details: details)
  }

  /// A one-byte fact shown as two hex digits.
  private func byteFact(_ label: String, key: String, _ byte: UInt8) -> TagInfoFact {
    TagInfoFact(label, key: key, text: hexString([byte]), value: .bytes([byte]))
  }
}
