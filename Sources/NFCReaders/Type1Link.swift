import NFCTransport

/// Type 1 (Topaz) commands through an ACR122U's PN532.
///
/// The platform sends the tag's own frames (nfcpy `tt1.py`, with UID0–UID3) and gets the
/// tag's own answers; this link translates them for the PN532:
/// - RALL `00 00 00 UID` → InDataExchange `D4 40 01 00`; the answer `HR0 HR1` + 120 bytes is
///   returned as is (ACR122U API V2.04 §7.4).
/// - READ `01 ADD 00 UID` → `D4 40 01 01 ADD`; WRITE-E `53 ADD DATA UID` → `D4 40 01 53 ADD DATA`;
///   WRITE-NE `1A ADD DATA UID` → `D4 40 01 1A ADD DATA`. The PN532 adds the UID and answers the
///   data byte only (ACR122U API §7.4, LLA `topazacsacrcommands.cpp`, libnfc `jewel.h`), so the
///   link puts the address back: the platform gets `ADD DATA`, as the tag sent it.
/// - READ8 / WRITE-E8 / WRITE-NE8 (14-byte frames): the PN532 firmware does not implement them
///   (nfcpy `pn532.py` `_tt1_send_cmd_recv_rsp`: "not implemented by the chipset"; InCommunicateThru
///   sends one standard frame, not Type 1's 7-bit short frame then one frame per byte), so the link programs the chip's CIU
///   the way nfcpy does, through WriteRegister (`D4 08 addrHi addrLo value …`) and ReadRegister
///   (`D4 06 addrHi addrLo …`, PN532 answer `D5 07 value …`). Three APDUs per command (nfcpy
///   takes four), see `ciuExchange(_:)`.
/// - RSEG `10 ADDS …` → sixteen READ8 exchanges, as nfcpy does ("RSEG implementation does not
///   accept any segment other than 0"). ``capabilities`` reports 122 bytes (RALL's answer), the
///   longest Type 1 answer one exchange returns, so platforms read block by block instead.
/// - RID (`78`) is refused (`TransceiveError.unsupported(_:)`): nfcpy `acr122.py` says it
///   cannot be sent through the ACR122U firmware; the UID comes from InListPassiveTarget/GET DATA.
public final class ACR122UType1Link: Transceiver {
  let transport: any APDUTransport
  /// 122 bytes: RALL's answer (HR0 HR1 + 120), the longest Type 1 answer one exchange carries here.
  public let capabilities = LinkCapabilities(maxResponseLength: 122, maxCommandLength: 14, rawCommands: true)
  /// Microseconds to wait after sending WRITE-E8 / WRITE-NE8 before the parity is switched back
  /// on and the FIFO read: nfcpy `pn532.py` sleeps 6 ms and 3 ms ("assuming same response time as
  /// WRITE-E" / "WRITE-NE"). The emulator answers at once, so its tests may set zero.
  public var writeWaitMicroseconds: (erase: UInt32, noErase: UInt32) = (6_000, 3_000)
  /// A link over `transport`, a PC/SC connection to an ACR122U with a Type 1 (Topaz) tag.
  public init(transport: any APDUTransport) { self.transport = transport }
  /// How commands reach the tag, for people.
  public var pathDescription: String { "ACR122U direct transmit (PN532 InDataExchange; READ8/WRITE-E8 through its CIU registers)" }

  /// Sends one Type 1 command (RALL, READ, WRITE-E, WRITE-NE, READ8, WRITE-E8…) and returns the
  /// tag's answer without CRC.
  /// - Throws: `TransceiveError.unsupported(_:)` for an empty command, RID or a command this
  ///   path cannot carry; `TransceiveError.malformedResponse(_:)` for an answer of the wrong
  ///   length; the PN532's status or the transport's failure.
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
      return try ciuExchange(command)
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
  // MARK: - READ8 / WRITE-E8 / WRITE-NE8 through the CIU

  /// FIFO bytes a READ8 / WRITE-E8 / WRITE-NE8 answer fills: `ADD8` + 8 bytes + CRC_B = 11 bytes
  /// of 9 bits (data + parity), 99 bits in 13 bytes.
  static let answerFIFOBytes = (11 * 9 + 7) / 8

  /// One 8-byte command through the CIU, in three APDUs:
  /// 1. WriteRegister, one APDU of 52 writes (Lc 158): FIFOLevel ← 80 (FlushBuffer: a stale byte
  ///    would otherwise go out with the command byte; nfcpy does not flush), then nfcpy's sequence:
  ///    FIFOData ← code, BitFraming ← 07, Command ← 04 (Transmit: the 7-bit short frame),
  ///    BitFraming ← 00, ManualRCV ← 30 (parity generator off), for each further byte of the frame
  ///    + CRC_B FIFOData ← byte, Command ← 04, Command ← 07 (NoCmdChange), and Command ← 08 (Receive).
  /// 2. WriteRegister ManualRCV ← 20: the parity back on (after nfcpy's 6 / 3 ms for a write). It
  ///    stays its own APDU: folded into the next command's first APDU, the chip would be left with
  ///    its parity off after the last Type 1 command, and the firmware's own RALL/READ/WRITE-E,
  ///    InListPassiveTarget or the next program would then talk to tags without parity.
  /// 3. ReadRegister FIFOLevel + 13 × FIFOData, one APDU (nfcpy reads FIFOLevel alone first): the
  ///    registers are read in order, so the first value says how many of the others are real.
  ///    FIFOLevel 0 means the tag did not answer → `TransceiveError.timeout`; any other level
  ///    than 13 is a malformed answer.
  /// The received bits hold the parity bits; ``Self/strippingParityBits(_:)`` removes them as nfcpy
  /// does, then CRC_B is checked and removed.
  func ciuExchange(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    let frame = command + PN53xCIU.crcB(command)
    var writes: [(UInt16, UInt8)] = [
      (PN53xCIU.Register.fifoLevel, 0x80), (PN53xCIU.Register.fifoData, frame[0]), (PN53xCIU.Register.bitFraming, 0x07), (PN53xCIU.Register.command, 0x04),
      (PN53xCIU.Register.bitFraming, 0x00), (PN53xCIU.Register.manualRCV, 0x30),
    ]
    for byte in frame.dropFirst() { writes += [(PN53xCIU.Register.fifoData, byte), (PN53xCIU.Register.command, 0x04), (PN53xCIU.Register.command, 0x07)] }
    writes.append((PN53xCIU.Register.command, 0x08))
    try writeRegisters(writes)
    let wait = command.first == 0x54 ? writeWaitMicroseconds.erase : command.first == 0x1B ? writeWaitMicroseconds.noErase : 0
    if wait > 0 { LibC.sleep(microseconds: Int(wait)) }
    try writeRegisters([(PN53xCIU.Register.manualRCV, 0x20)])
    let values = try readRegisters([PN53xCIU.Register.fifoLevel] + Array(repeating: PN53xCIU.Register.fifoData, count: Self.answerFIFOBytes))
    guard let level = values.first, values.count == 1 + Self.answerFIFOBytes else { throw .malformedResponse(values) }
    guard level != 0 else { throw .timeout }
    guard Int(level) == Self.answerFIFOBytes else { throw .malformedResponse(values) }
    let received = PN53xCIU.strippingParityBits(Array(values.dropFirst()))
    guard received.count == 11, Array(received.suffix(2)) == PN53xCIU.crcB(Array(received.prefix(9))) else {
      throw .malformedResponse(received)
    }
    return Array(received.prefix(9))
  }

  /// WriteRegister (`D4 08`, PN532 answer `D5 09`) with `(address, value)` pairs, in order.
  private func writeRegisters(_ writes: [(UInt16, UInt8)]) throws(TransceiveError) {
    var pn532: [UInt8] = [0xD4, 0x08]
    for (address, value) in writes { pn532 += [UInt8(address >> 8), UInt8(address & 0xFF), value] }
    guard pn532.count <= 255 else { throw .unsupported("a WriteRegister of \(writes.count) registers") }
    let reply = try transport.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(pn532.count)] + pn532)
    _ = try registerAnswer(reply, command: 0x08, count: 0)
  }

  /// ReadRegister (`D4 06`, PN532 answer `D5 07` + one value per address, no status byte: nfcpy
  /// `pn532.py` `_read_register` returns the data as is).
  private func readRegisters(_ addresses: [UInt16]) throws(TransceiveError) -> [UInt8] {
    var pn532: [UInt8] = [0xD4, 0x06]
    for address in addresses { pn532 += [UInt8(address >> 8), UInt8(address & 0xFF)] }
    guard pn532.count <= 255 else { throw .unsupported("a ReadRegister of \(addresses.count) registers") }
    let reply = try transport.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(pn532.count)] + pn532)
    return try registerAnswer(reply, command: 0x06, count: addresses.count)
  }

  /// The values in `D5 <command+1> values… 90 00`; a reader status word other than 90 00 is
  /// thrown as `TransceiveError.status(_:)`.
  private func registerAnswer(_ reply: [UInt8], command: UInt8, count: Int) throws(TransceiveError) -> [UInt8] {
    guard let response = ResponseAPDU(reply) else { throw .malformedResponse(reply) }
    guard response.statusWord.isSuccess else { throw .status(response.statusWord) }
    let body = response.data
    guard body.count == 2 + count, body[0] == 0xD5, body[1] == command &+ 1 else { throw .malformedResponse(reply) }
    return Array(body.dropFirst(2))
  }
}
