import NFCTransport

/// What the PC/SC Part 3 links (``PartThreeType2Link``, ``PartThreeType5Link``) share: the
/// transparent exchange session they probe once and may end, and its bookkeeping.
///
/// Not a link by itself: each subclass picks the session's protocol (standard and layer for
/// Switch Protocol) and carries its tag type's frames.
public class PartThreeLink {
  let transport: any APDUTransport
  /// The transparent exchange session, switched to the subclass's protocol.
  let session: TransparentSession

  /// nil until probed; then true when transparent exchange works.
  public var transparent: Bool? { session.available }
  /// APDUs this link sent (probe included), for round-trip accounting.
  public var apduCount: Int { session.apduCount }

  /// Longest tag answer in transparent mode (60 pages or blocks of 4 bytes; for Type 5, after the
  /// flags byte).
  public static let transparentResponseLimit = TransparentSession.responseLimit

  init(transport: any APDUTransport, standard: UInt8, layer: UInt8) {
    self.transport = transport
    self.session = TransparentSession(transport: transport, standard: standard, layer: layer)
  }

  /// Starts the transparent session and switches to the link's protocol at layer 3, once.
  /// - Returns: true when both answered `C0 03 00 90 00 … 90 00`.
  /// - Throws: only transport failures (tag removed, service gone); a refusal means "mapped".
  @discardableResult
  public func probe() throws(TransceiveError) -> Bool {
    try session.probe()
  }

  /// Ends the transparent session (`82`), when one was started.
  public func endSession() throws(TransceiveError) {
    try session.end()
  }
}

/// A Part 3 link's path once probed: the transparent exchange session or the mapped commands.
func partThreePath(_ session: TransparentSession, frames: String) -> String {
  switch session.available {
  case true?: return "PC/SC Part 3 transparent exchange (FF C2, \(frames))"
  case false?: return "PC/SC Part 3 READ/UPDATE BINARY (no transparent exchange)"
  case nil: return "PC/SC Part 3 (not probed yet)"
  }
}
