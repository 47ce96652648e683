// The steps NDEF status, read and write share on a TLV-based platform (Types 1, 2 and 5).

import NFCTransport

/// What a TLV-based platform (Types 1, 2 and 5) knows once it has read its CC and walked its TLVs:
/// the layout, or why there is none, and the NDEF status. The steps status, read and write share.
protocol TLVAreaSnapshot {
  /// nil when the CC is not an NDEF CC (`why` says what it is).
  var layout: Result<TLVLayout, TagError>? { get }
  var report: NDEFStatusReport { get }
  var why: String { get }
}

extension TLVAreaSnapshot {
  /// The status report, once the TLVs are known to parse.
  func checkedReport() throws(TagError) -> NDEFStatusReport {
    if let layout { _ = try layout.get() }
    return report
  }

  /// The message the NDEF TLV holds.
  /// - Throws: ``TagError/notFormatted(_:)`` without an NDEF CC or NDEF TLV; TLV and memory errors.
  func readMessage(from memory: some TLVMemory) throws(TagError) -> [UInt8] {
    guard let layout else { throw .notFormatted(why) }
    let parsed = try layout.get()
    guard parsed.ndefTLVAddress != nil else {
      throw .notFormatted("the data area holds no NDEF TLV (\(parsed.summary))")
    }
    return try parsed.readMessage(from: memory)
  }

  /// The tear-safe plan for writing `message`, checked before anything is written.
  /// - Throws: ``TagError/notFormatted(_:)``, ``TagError/readOnly``, or
  ///   ``TagError/insufficientCapacity(needed:capacity:)`` from the planner.
  /// With `clearingOldMessage`, the old NDEF TLV, its message and its Terminator are zeroed
  /// where the new TLV does not reach (erase).
  func writePlan(for message: [UInt8], clearingOldMessage: Bool = false) throws(TagError) -> (plan: TLVWritePlan, layout: TLVLayout) {
    guard let layout else { throw .notFormatted(why) }
    guard report.status == .readWrite else { throw .readOnly }
    let parsed = try layout.get()
    var clearing = 0
    if clearingOldMessage, let old = report.messageLength {
      clearing = (old < 255 ? 2 : 4) + old + 1
    }
    return (try TLVWriter.plan(message: message, layout: parsed, clearing: clearing), parsed)
  }
}
