import DESFire
import EV2SecureMessaging
import NFCTags

/// What SetConfiguration (5Ch) option 00h turns on, for good: neither bit can be cleared.
public struct DESFirePICCConfiguration: OptionSet, Hashable, Sendable {
  /// The byte as the command sends it.
  public let rawValue: UInt8
  /// From the byte.
  public init(rawValue: UInt8) { self.rawValue = rawValue }

  /// Bit 0: FormatPICC is refused from now on.
  public static let disableFormat = DESFirePICCConfiguration(rawValue: 0x01)
  /// Bit 1: the card shows a random ID at anticollision (4 bytes, the first 08h: ISO/IEC 14443-3's
  /// RID), a new one at each activation; GetCardUID (``DESFireCard/cardUID()``) gives the real UID.
  public static let randomUID = DESFirePICCConfiguration(rawValue: 0x02)
}

extension DESFireCard {
  /// SetConfiguration (5Ch) option 00h: turns `configuration` on, for good. Needs the PICC level
  /// selected and the PICC master key authenticated; the flags byte travels enciphered from the
  /// third byte on, as libfreefare's `mifare_desfire_set_configuration` (libfreefare/mifare_desfire.c)
  /// and Proxmark3's `DesfireSetConfiguration` (client/src/mifare/desfirecore.c) send it: after an
  /// EV1 authentication `5C 00 ‖ E(flags ‖ CRC32(5C 00 flags) ‖ 00…)`, the answer's CMAC checked;
  /// after 0Ah `flags ‖ CRC16(flags)` in send mode, a bare `00` back; under EV2 secure messaging in
  /// CommMode.Full with the header `00`.
  /// - Throws: `DESFireCommandError/invalidArgument(_:)` without a session or with nothing to turn
  ///   on (nothing sent); the card's refusals (`91 AE` without the PICC master key).
  public func setConfiguration(_ configuration: DESFirePICCConfiguration) throws(DESFireCommandError) {
    let name = "SetConfiguration"
    guard !configuration.isEmpty else { throw .invalidArgument("\(name): nothing to turn on") }
    let flags = configuration.rawValue
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {
      return try ev2ExchangeExpectingNothing(0x5C, header: [0x00], data: [flags], mode: .full, name: name, session: ev2)
    }
    if let legacy = secureMessaging as? DESFireLegacySecureMessaging {
      let cryptogram: [UInt8]
      do { cryptogram = try legacy.channel.encipherCommand([flags]) } catch {
        secureMessaging = nil
        throw .malformed("the host's cipher failed: \(error)", command: name)
      }
      let answer = try send(0x5C, [0x00] + cryptogram, name: name)
      guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
      return
    }
    let session = try ev1Session(name, needs: "an enciphered command")
    let cryptogram: [UInt8]
    do { cryptogram = try session.channel.encipherCommand(prefix: [0x5C, 0x00], [flags]) } catch {
      secureMessaging = nil
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
    let answer = try sendProtected(0x5C, [0x00] + cryptogram, name: name, session: session) { session, answer throws(DESFireCommandError) in
      try session.received(answer, command: name)
    }
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }
}
