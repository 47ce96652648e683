import NFCTransport

/// Reading the Capability Container and the TLVs after it: which MLEN convention the tag follows,
/// where its data area ends, and what the TLVs hold (see ``Type5Tag`` for the conventions).
extension Type5Tag {
  /// What the CC and TLVs say.
  struct Snapshot: TLVAreaSnapshot {
    var cc: [UInt8]
    var ccLength: Int
    var layout: Result<TLVLayout, TagError>?
    var report: NDEFStatusReport
    var areaEnd: Int
    var convention: String
    var why: String
    /// The convention for programs: nfcForum, androidNeard, clamped or memorySizeUnknown.
    var conventionKey: String {
      if convention.hasPrefix("NFC Forum") { return "nfcForum" }
      if convention.hasPrefix("Android") { return "androidNeard" }
      if convention.hasPrefix("memory size unknown") { return "memorySizeUnknown" }
      return "clamped"
    }
  }

  func analyse(_ memory: Type5BlockCache) throws(TagError) -> Snapshot {
    let head = try memory.bytes(in: 0..<4)
    func notNDEF(_ why: String) -> Snapshot {
      Snapshot(cc: head, ccLength: 0, layout: nil, report: NDEFStatusReport(status: .notSupported, capacity: 0),
               areaEnd: 0, convention: "", why: why)
    }
    guard head[0] == 0xE1 || head[0] == 0xE2 else {
      return notNDEF(head == [0, 0, 0, 0] ? "block 0 is empty (no CC)"
                     : "block 0 holds \(hexString(head, separator: " ")), not a CC starting E1 or E2")
    }
    guard head[1] >> 6 == 1 else {
      return notNDEF("CC version \(head[1] >> 6).\((head[1] >> 4) & 3) is not supported (major version 1 is)")
    }
    guard (head[1] >> 2) & 0x03 == 0 else {
      return notNDEF("the CC's read access is \(hexString([(head[1] >> 2) & 3])) (proprietary), not free")
    }
    var cc = head
    var ccLength = 4
    var mlen = Int(head[2])
    if head[2] == 0 {
      let tail = try memory.bytes(in: 4..<8)
      cc += tail
      ccLength = 8
      mlen = Int(tail[2]) << 8 | Int(tail[3])
    }
    guard mlen > 0 else { return notNDEF("the CC's MLEN is 0") }
    let userBytes = userBlocks.map { $0 * blockSize }
    var end: Int
    var convention: String
    if let userBytes {
      if ccLength + mlen * 8 <= userBytes {
        end = ccLength + mlen * 8
        convention = "NFC Forum (MLEN × 8 after the CC)"
      } else if mlen * 8 <= userBytes {
        end = mlen * 8
        convention = "Android/neard (MLEN × 8 from byte 0)"
      } else {
        end = userBytes
        convention = "MLEN × 8 = \(mlen * 8) exceeds the \(userBytes)-byte memory; clamped"
      }
    } else {
      end = mlen * 8
      convention = "memory size unknown: MLEN × 8 from byte 0 (the smaller reading)"
    }
    end = max(end, ccLength)
    if link.capabilities.rawCommands && (cc[3] & 0x01 != 0 || (chip?.knownCommandSet ?? false)) {
      memory.useMultiple = true
    }
    memory.readAheadLimit = memory.useMultiple ? (end - 1) / blockSize : 0
    let status: NDEFStatus = cc[1] & 0x03 == 0 ? .readWrite : .readOnly
    do {
      let layout = try TLVLayout.parse(memory: memory, area: TLVArea(start: ccLength, end: end))
      let report = NDEFStatusReport(status: status, capacity: layout.capacity,
                                    messageLength: layout.ndefTLVAddress == nil ? nil : layout.ndefLength)
      return Snapshot(cc: cc, ccLength: ccLength, layout: .success(layout), report: report, areaEnd: end,
                      convention: convention, why: "")
    } catch {
      if error.isTagLost { throw error }
      return Snapshot(cc: cc, ccLength: ccLength, layout: .failure(error),
                      report: NDEFStatusReport(status: status, capacity: 0), areaEnd: end, convention: convention,
                      why: "\(error)")
    }
  }
}
