import NFCTransport

/// What `info` shows of a Type 3 tag: the attribute block, the MC's locks, PMm and system code.
extension Type3Tag {
  public func info() throws(TagError) -> TagInfo {
    let memory = beginOperation()
    let state = try analyse(memory, prefetch: [])
    var details: [TagInfoFact] = []
    var locks: [TagInfoFact] = []
    if let a = state.attributes {
      details.append(TagInfoFact(
        "Attribute block", key: "attributeBlock",
        text: "Ver \(a.version >> 4).\(a.version & 0x0F), Nbr \(a.nbr), Nbw \(a.nbw), "
          + "Nmaxb \(a.nmaxb) (\(a.nmaxb * 16) bytes), Ln \(a.length)",
        value: .members(["version": .string("\(a.version >> 4).\(a.version & 0x0F)"), "nbr": .number(a.nbr),
                         "nbw": .number(a.nbw), "nmaxb": .number(a.nmaxb), "length": .number(a.length)])))
      let rwHex = hexString([a.rwFlag]).uppercased()
      locks.append(TagInfoFact("RWFlag", key: "rwFlag", text: "RWFlag \(rwHex)" + (a.rwFlag == 0 ? " (read-only)" : " (read/write)"),
                               value: .members(["value": .number(Int(a.rwFlag)), "readOnly": .bool(a.rwFlag == 0)])))
      locks.append(TagInfoFact("WriteF", key: "writeFlag",
                               text: a.writeFlag == 0 ? "WriteF 00"
                                 : "WriteF \(hexString([a.writeFlag]).uppercased()) (a write was interrupted)",
                               value: .members(["value": .number(Int(a.writeFlag)), "interrupted": .bool(a.writeFlag != 0)])))
    } else {
      details.append(.ndefProblem(state.why))
    }
    if let mc = state.mc {
      let sp = Int(mc[0]) | Int(mc[1]) << 8
      let locked = Self.liteUserBlocks.filter { sp >> $0 & 1 == 0 }
      let spHex = hexString(mc[0..<2]).uppercased()
      locks.append(TagInfoFact("User blocks", key: "userBlocks",
                               text: locked.isEmpty ? "user blocks writable (MC_SP \(spHex))"
                                 : "user blocks \(locked.map(String.init).joined(separator: ",")) read-only (MC_SP \(spHex))",
                               value: .members(["readOnly": .list(locked.map { .number($0) }), "mcSP": .bytes(Array(mc[0..<2]))])))
      locks.append(TagInfoFact("System blocks", key: "systemBlocks",
                               text: mc[2] == 0xFF ? "system blocks writable (MC_ALL FF)"
                                 : "system blocks read-only (MC_ALL \(hexString([mc[2]]).uppercased()))",
                               value: .members(["readOnly": .bool(mc[2] != 0xFF), "mcAll": .number(Int(mc[2]))])))
      details.append(.bytes("Memory configuration", key: "memoryConfiguration", mc))
      let enabled = mc[3] & 1 != 0
      details.append(TagInfoFact("NDEF system code", key: "ndefSystemCode",
                                 text: enabled ? "12FC enabled (MC_SYS_OP 01)" : "disabled (MC_SYS_OP 00)",
                                 value: .members(["enabled": .bool(enabled)])))
    }
    if let pmm { details.append(.bytes("PMm", key: "pmm", pmm)) }
    if let systemCode {
      details.append(TagInfoFact("System code", key: "systemCode", text: hexString(systemCode).uppercased(),
                                 value: .bytes(systemCode)))
    }
    if isLiteFamily {
      details.append(TagInfoFact("User memory", key: "userMemory", text: "14 blocks (224 bytes), S_PAD0–13",
                                 value: .members(["blocks": .number(14), "bytes": .number(224)])))
    }
    let size = isLiteFamily ? Self.liteSMemoryBlocks.count * 16 : ((state.attributes?.nmaxb ?? 0) + 1) * 16
    return TagInfo(platform: .type3, chip: chipName, identifier: identifier, memorySize: size, ndef: state.report,
                   capabilityContainer: state.attributes?.raw ?? state.block0, version: pmm ?? [],
                   locks: locks, details: details)
  }
}
