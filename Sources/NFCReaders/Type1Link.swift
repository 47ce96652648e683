import NFCTransport

/// Type 1 (Topaz) commands through an ACR122U's PN532.
///
/// The platform sends the tag's own frames (nfc-protocols.md §6.3, with UID0–UID3) and gets the
/// tag's own answers; this link translates them for the PN532:
/// - RALL `00 00 00 UID` → InDataExchange `D4 40 01 00`; the answer `HR0 HR1` + 120 bytes is
///   returned as is (ACR122U API V2.04 §7.4).
/// - READ `01 ADD 00 UID` → `D4 40 01 01 ADD`; WRITE-E `53 ADD DATA UID` → `D4 40 01 53 ADD DATA`;
///   WRITE-NE `1A ADD DATA UID` → `D4 40 01 1A ADD DATA`. The PN532 adds the UID and answers the
///   data byte only (ACR122U API §7.4, LLA `topazacsacrcommands.cpp`, libnfc `jewel.h`), so the
///   link puts the address back: the platform gets `ADD DATA`, as the tag sent it.
/// - READ8 / WRITE-E8 / WRITE-NE8 (14-byte frames) → InCommunicateThru `D4 42` + the whole
///   frame; the answer `ADD8` + 8 bytes is returned as is. UNVERIFIED on hardware: the PN532
///   firmware does not implement these commands, and nfcpy (`pn532.py` `_tt1_send_cmd_recv_rsp`)
///   sends them by programming the CIU registers byte by byte (WriteRegister/ReadRegister, four
///   host exchanges per command), which this link does not do yet.
/// - RSEG `10 ADDS …` → sixteen READ8 exchanges, as nfcpy does ("RSEG implementation does not
///   accept any segment other than 0"). ``capabilities`` reports 122 bytes (RALL's answer), the
///   longest Type 1 answer one exchange returns, so platforms read block by block instead.
/// - RID (`78`) is refused (``TransceiveError/unsupported(_:)``): nfcpy `acr122.py` says it
///   cannot be sent through the ACR122U firmware; the UID comes from InListPassiveTarget/GET DATA.
public final class ACR122UType1Link: Transceiver {
  let transport: any APDUTransport
  /// 122 bytes: RALL's answer (HR0 HR1 + 120), the longest Type 1 answer one exchange carries here.
  public let capabilities = LinkCapabilities(maxResponseLength: 122, maxCommandLength: 14, rawCommands: true)
  public init(transport: any APDUTransport) { self.transport = transport }

  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard let code = command.first else { throw .unsupported("an empty Type 1 command") }
    switch (code, command.count) {
    case (0x00, 7):
      let answer = try exchange([0x00])
      guard answer.count == 122 else { throw .malformedResponse(answer) }
      return answer
    case (0x01, 7):
      return [command[1]] + (try singleByte(exchange([0x01, command[1]])))
    case (0x53, 7), (0x1A, 7):
      return [command[1]] + (try singleByte(exchange([code, command[1], command[2]])))
    case (0x02, 14), (0x54, 14), (0x1B, 14):
      let reply = try transport.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(command.count + 2), 0xD4, 0x42] + command)
      let answer = try pn532Answer(reply, command: 0x42)
      guard answer.count == 9 else { throw .malformedResponse(answer) }
      return answer
    case (0x10, 14):
      var out: [UInt8] = [command[1]]
      let first = Int(command[1] >> 4) * 16
      for block in first ..< first + 16 {
        let answer = try transceive([0x02, UInt8(block)] + [UInt8](repeating: 0, count: 8) + command[10..<14])
        out += answer.dropFirst()
      }
      return out
    default:
      throw .unsupported("Type 1 command \(hexString(command.prefix(1))) (\(command.count) bytes) through an ACR122U")
    }
  }

  /// InDataExchange with target 1.
  private func exchange(_ shortForm: [UInt8]) throws(TransceiveError) -> [UInt8] {
    let reply = try transport.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(shortForm.count + 3), 0xD4, 0x40, 0x01] + shortForm)
    return try pn532Answer(reply, command: 0x40)
  }

  private func singleByte(_ answer: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard answer.count == 1 else { throw .malformedResponse(answer) }
    return answer
  }
}
