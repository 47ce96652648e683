import NFCTransport

/// One application's ISO names as GetDFNames (6Dh) gives them: its AID, ISO/IEC 7816-4 file ID and
/// DF name (MF3ICDx21_41_81 §9.4, GetDFNames; §2 on ISO/IEC 7816-4 compatibility). Only an
/// application created with ISO file IDs and a DF name has an entry.
public struct DESFireDFNameEntry: Hashable, Sendable {
  /// The application.
  public var aid: DESFireApplicationID
  /// Its ISO file ID (sent least significant byte first).
  public var isoFileID: UInt16
  /// Its DF name, 1 to 16 bytes.
  public var dfName: [UInt8]

  /// An entry from its fields.
  public init(aid: DESFireApplicationID, isoFileID: UInt16, dfName: [UInt8]) {
    self.aid = aid
    self.isoFileID = isoFileID
    self.dfName = dfName
  }

  /// Parses one frame of GetDFNames' answer: AID(3) ‖ ISO FID(2) ‖ DF name(1-16).
  /// - Throws: ``DESFireCommandError/malformed(_:command:)`` for fewer than 6 or more than 21 bytes.
  public init(parsing frame: [UInt8], command: String = "GetDFNames") throws(DESFireCommandError) {
    guard (6...21).contains(frame.count), let aid = DESFireApplicationID(wire: frame.prefix(3)) else {
      throw .malformed("an entry of \(frame.count) bytes, not AID(3) ISO FID(2) DF name(1-16)", command: command)
    }
    self.aid = aid
    isoFileID = UInt16(frame[3]) | UInt16(frame[4]) << 8
    dfName = Array(frame.dropFirst(5))
  }

  /// Parses GetDFNames' answer, one entry to a frame; no frame at all (or one empty frame) is no
  /// application with a DF name.
  /// - Throws: ``DESFireCommandError/malformed(_:command:)`` for a frame that is not one entry, or
  ///   an AID given twice.
  public static func parse(frames: [[UInt8]], command: String = "GetDFNames") throws(DESFireCommandError) -> [DESFireDFNameEntry] {
    if frames.count == 1, frames.first?.isEmpty == true { return [] }
    var entries: [DESFireDFNameEntry] = []
    for frame in frames {
      let entry = try DESFireDFNameEntry(parsing: frame, command: command)
      guard !entries.contains(where: { $0.aid == entry.aid }) else {
        throw .malformed("application \(entry.aid) named twice", command: command)
      }
      entries.append(entry)
    }
    return entries
  }
}

extension DESFireCard {
  /// GetDFNames (6Dh) at the PICC level: the ISO file ID and DF name of every application that has
  /// them, one entry to an answer frame (MF3ICDx21_41_81 §9.4). Free when the PICC key settings
  /// allow listing, else after the PICC master key's authentication (`91 AE`).
  public func dfNames() throws(DESFireCommandError) -> [DESFireDFNameEntry] {
    try DESFireDFNameEntry.parse(frames: try sendKeepingFrames(0x6D, name: "GetDFNames"))
  }
}
