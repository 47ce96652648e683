/// A platform whose NDEF lives in TLVs in plain memory behind a CC (Types 2 and 5): status, read,
/// write and erase are the same steps over its own memory cache, snapshot and commit.
protocol TLVPlatform: NDEFTagPlatform {
  associatedtype Memory: TLVMemory
  associatedtype Snapshot: TLVAreaSnapshot

  /// Fresh memory, read from the tag, for an operation that changes it.
  func beginOperation() throws(TagError) -> Memory
  /// The memory a read-only operation (status, read) works on.
  func beginReadOperation() throws(TagError) -> Memory
  /// The memory a write plans over and writes through.
  func beginWriteOperation() throws(TagError) -> Memory
  /// The CC and TLVs read from `memory`.
  func analyse(_ memory: Memory) throws(TagError) -> Snapshot
  /// Writes `plan` into `area` in tear-safe order, then verifies when asked.
  func commit(_ plan: TLVWritePlan, area: TLVArea, memory: Memory, verify: Bool) throws(TagError)
}

extension TLVPlatform {
  /// The NDEF status, once the TLVs are known to parse (``NDEFTagPlatform/queryNDEFStatus()``).
  func tlvNDEFStatus() throws(TagError) -> NDEFStatusReport {
    try analyse(try beginReadOperation()).checkedReport()
  }

  /// The message the NDEF TLV holds (``NDEFTagPlatform/readNDEF()``).
  func tlvReadNDEF() throws(TagError) -> [UInt8] {
    let memory = try beginReadOperation()
    return try analyse(memory).readMessage(from: memory)
  }

  /// Writes `message` with the tear-safe plan (``NDEFTagPlatform/writeNDEF(_:verify:)``).
  func tlvWriteNDEF(_ message: [UInt8], verify: Bool) throws(TagError) {
    let memory = try beginWriteOperation()
    let (plan, layout) = try analyse(memory).writePlan(for: message)
    try commit(plan, area: layout.area, memory: memory, verify: verify)
  }

  /// Writes an empty message, verified (``NDEFTagPlatform/erase(overwritingOldMessage:)``).
  func tlvErase(overwritingOldMessage: Bool) throws(TagError) {
    let memory = try beginOperation()
    let (plan, layout) = try analyse(memory).writePlan(for: [], clearingOldMessage: overwritingOldMessage)
    try commit(plan, area: layout.area, memory: memory, verify: true)
  }
}
