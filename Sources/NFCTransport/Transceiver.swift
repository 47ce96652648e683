@_exported import Hex

/// Why a command sent to a tag got no usable answer.
///
/// Thrown by every ``Transceiver``. Tag platforms map it into their own errors with the command
/// and address that failed, so people read "READ of page 0x10 failed: tag removed".
public enum TransceiveError: Error, Hashable, Sendable, CustomStringConvertible {
  /// The tag did not answer in time (mute, out of the field, or it does not know the command).
  case timeout
  /// The tag left the field (PC/SC `SCARD_W_REMOVED_CARD`, a vpcd eject, an emulator removal).
  case tagRemoved
  /// A Type 2 tag answered with a 4-bit NAK (0 invalid argument, 1 CRC, 4 auth counter, 5 EEPROM).
  case nak(UInt8)
  /// An ISO 7816 or reader status word that means failure (for example `63 00`, `6A 82`).
  case status(StatusWord)
  /// The reader's contactless chip reported an error status (PN53x error code, low 6 bits).
  case chipError(UInt8)
  /// This reader cannot send this kind of command (for example FAST_READ through plain Part 3).
  case unsupported(String)
  /// The answer did not have the shape the command defines.
  case malformedResponse([UInt8])
  /// The link below the tag failed (PC/SC service, socket): the message says what and where.
  case transport(String)
  /// A test double received a command it did not expect.
  case unexpectedCommand([UInt8], expected: [UInt8]?)

  public var description: String {
    switch self {
    case .timeout: return "the tag did not answer"
    case .tagRemoved: return "the tag was removed"
    case .nak(let code):
      // Type 2 NAKs are 4-bit values; ISO 15693 error codes read better in hex (12h: locked).
      return code < 0x10 ? "the tag refused the command (NAK \(code))"
                         : "the tag refused the command (error \(hexString(UInt16(code), width: 2))h)"
    case .status(let sw): return sw.isKnown ? "status word \(sw) (\(sw.meaning))" : "status word \(sw)"
    case .chipError(let code): return "reader chip error 0x\(hexString(UInt16(code), width: 2))"
    case .unsupported(let what): return "not supported by this reader: \(what)"
    case .malformedResponse(let bytes): return "malformed response (\(bytes.count) bytes)"
    case .transport(let message): return message
    case .unexpectedCommand(let command, _): return "unexpected command \(hexString(command))"
    }
  }
}

/// What a link to a tag can carry.
public struct LinkCapabilities: Hashable, Sendable {
  /// The longest tag answer (payload bytes, without status words) one exchange can return.
  public var maxResponseLength: Int
  /// The longest tag command one exchange can carry.
  public var maxCommandLength: Int
  /// True when any raw tag command passes through (ACR122U direct transmit); false when only the
  /// commands a PC/SC Part 3 reader maps (READ, WRITE) are available.
  public var rawCommands: Bool

  public init(maxResponseLength: Int, maxCommandLength: Int, rawCommands: Bool) {
    self.maxResponseLength = maxResponseLength
    self.maxCommandLength = maxCommandLength
    self.rawCommands = rawCommands
  }
}

/// Sends one tag command and returns the tag's answer.
///
/// A command is the frame the tag itself sees, without CRC: `30 04` (Type 2 READ), a FeliCa frame
/// with its length byte, an ISO 7816 APDU for Type 4, an ISO 15693 request with its flags byte.
/// The reader driver wraps it (pseudo-APDUs, PN533 direct transmit); the emulator answers it.
/// A Type 2 ACK is returned as `[0x0A]`; a NAK is thrown as ``TransceiveError/nak(_:)``.
/// Type 4 answers keep SW1 SW2 at the end.
public protocol Transceiver: AnyObject {
  /// What this link can carry.
  var capabilities: LinkCapabilities { get }
  /// Sends `command` to the tag and returns its answer.
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8]
  /// How the commands reach the tag, for people ("ACR122U direct transmit (PN532
  /// InCommunicateThru)", "PC/SC Part 3 READ/UPDATE BINARY"): what a verbose tool reports.
  var pathDescription: String { get }
}

extension Transceiver {
  /// Links that do not describe themselves: the tag's own commands.
  public var pathDescription: String { "the tag's own commands" }
}

/// Counts the exchanges made through another transceiver: reader round trips are what users wait for.
public final class CountingTransceiver: Transceiver {
  public let base: any Transceiver
  /// Exchanges made so far.
  public private(set) var count = 0
  public init(_ base: any Transceiver) { self.base = base }
  public var capabilities: LinkCapabilities { base.capabilities }
  public var pathDescription: String { base.pathDescription }
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    count += 1
    return try base.transceive(command)
  }
}

/// Hex of a one- or two-byte value, zero-padded to `width` digits (2 or 4).
func hexString(_ value: UInt16, width: Int) -> String {
  let bytes: [UInt8] = width > 2 ? [UInt8(value >> 8), UInt8(value & 0xFF)] : [UInt8(value & 0xFF)]
  return hexString(bytes)
}
