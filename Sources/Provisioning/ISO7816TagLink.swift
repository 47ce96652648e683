import NFCSession
import NFCTransport

/// A connected ISO 7816 tag as the ``Transceiver`` ``NTAG424DNA`` sends its APDUs through: each
/// exchange is the session's `sendCommand(apdu:)`, so it goes where every tag command of the tool
/// goes (the session's checks, its exchange lock). Counts the exchanges. Used by
/// `provision --sdm-url` and by the 424 DNA commands of nfctag-provision.
public final class ISO7816TagLink: Transceiver {
  private let tag: NFCISO7816Tag
  /// Exchanges made so far.
  public private(set) var exchanges = 0

  /// The link to `tag`, connected by its session.
  public init(_ tag: NFCISO7816Tag) { self.tag = tag }

  /// Short APDUs only, within what every ISO-DEP link of NFCReaders and the simulator carries
  /// (the ACR122U's 252 bytes, the Part 3 link's 250).
  public var capabilities: LinkCapabilities { LinkCapabilities(maxResponseLength: 250, maxCommandLength: 250, rawCommands: true) }

  /// Sends one APDU through the session; a tag that left is ``TransceiveError/tagRemoved``.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard let apdu = NFCISO7816APDU(data: command) else { throw .unsupported("a malformed APDU of \(command.count) bytes") }
    exchanges += 1
    do {
      let answer = try tag.sendCommand(apdu: apdu)
      return answer.data + [answer.sw1, answer.sw2]
    } catch {
      if let cause = error.underlyingError as? TransceiveError { throw cause }
      if error.code == .readerTransceiveErrorTagConnectionLost { throw .tagRemoved }
      throw .transport(error.message)
    }
  }
}
