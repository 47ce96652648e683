#if os(Linux)
import Foundation

/// An ISO 7816 command APDU. Core NFC's `NFCISO7816APDU`.
public final class NFCISO7816APDU: Sendable {
  /// CLA (ISO/IEC 7816-4 §5.1).
  public let instructionClass: UInt8
  /// INS.
  public let instructionCode: UInt8
  /// P1.
  public let p1Parameter: UInt8
  /// P2.
  public let p2Parameter: UInt8
  /// The command data (nil when there is none).
  public let data: Data?
  /// Le: how many bytes the answer may carry (256 is sent as `00`); -1 when no answer data is
  /// expected (no Le byte).
  public let expectedResponseLength: Int

  /// An APDU from its parts. The session sends short APDUs (up to 255 bytes of data, Le up to
  /// 256); a longer one fails when sent (readerErrorInvalidParameterLength).
  public init(instructionClass: UInt8, instructionCode: UInt8, p1Parameter: UInt8, p2Parameter: UInt8,
              data: Data, expectedResponseLength: Int) {
    self.instructionClass = instructionClass
    self.instructionCode = instructionCode
    self.p1Parameter = p1Parameter
    self.p2Parameter = p2Parameter
    self.data = data.isEmpty ? nil : data
    self.expectedResponseLength = expectedResponseLength
  }

  /// Parses a short APDU (ISO/IEC 7816-4 cases 1–4); nil when it is shorter than its header or
  /// its Lc does not match its length.
  public convenience init?(data: Data) {
    let bytes = Array(data)
    guard bytes.count >= 4 else { return nil }
    var body = Data()
    var le = -1
    if bytes.count == 5 {
      le = bytes[4] == 0 ? 256 : Int(bytes[4])
    } else if bytes.count > 5 {
      let lc = Int(bytes[4])
      guard lc > 0, bytes.count == 5 + lc || bytes.count == 6 + lc else { return nil }
      body = Data(bytes[5..<(5 + lc)])
      if bytes.count == 6 + lc { le = bytes[5 + lc] == 0 ? 256 : Int(bytes[5 + lc]) }
    }
    self.init(instructionClass: bytes[0], instructionCode: bytes[1], p1Parameter: bytes[2], p2Parameter: bytes[3],
              data: body, expectedResponseLength: le)
  }

  /// The APDU as sent: CLA INS P1 P2 [Lc data] [Le]; nil when it needs extended lengths.
  var shortBytes: [UInt8]? {
    var bytes = [instructionClass, instructionCode, p1Parameter, p2Parameter]
    if let data, !data.isEmpty {
      guard data.count <= 255 else { return nil }
      bytes.append(UInt8(data.count))
      bytes += data
    }
    if expectedResponseLength > 0 {
      guard expectedResponseLength <= 256 else { return nil }
      bytes.append(UInt8(truncatingIfNeeded: expectedResponseLength))
    }
    return bytes
  }
}
#endif
