import NFCTransport

/// The PN532's contactless interface unit (CIU) as ReadRegister (`D4 06`) and WriteRegister
/// (`D4 08`) see it: just enough for the way nfcpy sends the Type 1 commands the PN532 firmware
/// does not implement (READ8, WRITE-E8, WRITE-NE8).
///
/// nfcpy `src/nfc/clf/pn532.py` `_tt1_send_cmd_recv_rsp` appends CRC_B, then writes FIFOData (the
/// command byte), BitFraming 07 (7 bits), Command 04 (Transmit): a short frame; then BitFraming
/// 00 and ManualRCV 30 (parity generator off), and for every further byte FIFOData, Command 04,
/// Command 07 (NoCmdChange): one 8-bit frame each; then Command 08 (Receive). It switches the parity
/// back on (ManualRCV 20), reads FIFOLevel and then FIFOLevel × FIFOData. The register addresses
/// are nfcpy `pn53x.py` `Chipset.REG` (PN532 User Manual §8.6.23, the CIU at 6301h–633Fh).
///
/// The model:
/// - A 64-byte FIFO (nfcpy `pn532.py`: RSEG's 128-byte answer does not fit "the 64 byte FIFO"). Writing FIFOData pushes (bytes past 64 are lost),
///   reading it pops (an empty FIFO reads 00), FIFOLevel reads the byte count (bits 6–0) and
///   writing it with bit 7 (FlushBuffer) empties the FIFO.
/// - Command 04 (Transmit) sends the FIFO as one frame, the last byte with BitFraming's TxLastBits
///   (bits 2–0, 0 = 8 bits), and empties the FIFO. Command 08 (Receive) puts the frames sent since
///   the last Receive together: a Type 1 command is a 7-bit short frame (the command code) then one
///   8-bit frame per byte (NFC Digital T1T framing as nfcpy sends it). When that holds and CRC_B is
///   right, the frame without CRC_B goes to the tag; its answer + CRC_B lands in the FIFO. Command
///   0C (Transceive) with BitFraming bit 7 (StartSend) does both, as nfcpy `pn533.py` does.
/// - With ManualRCV bit 4 (ParityDisable) set, the receiver does not check or strip parity: each
///   received byte arrives as 9 bits (8 data bits then the odd parity bit, in air order), packed
///   least significant bit first into FIFO bytes, the last one padded with zeros: the layout nfcpy
///   decodes (`"{:08b}".format(octet)[::-1]` per FIFO byte, then 8 bits of every 9). With the
///   parity on, the answer's bytes land as they are.
/// - Every other register keeps what was written (reads 00 before that). UNVERIFIED: the timing
///   (a real tag answers WRITE-E8 after its EEPROM write, nfcpy waits 6 ms), and whether a real
///   Topaz minds the parity bits of the 8-bit frames; here the answer is ready at once.
/// A tag that stays mute, or a frame that is no Type 1 command, leaves the FIFO empty (FIFOLevel 0).
final class PN532CIU {
  typealias Register = PN53xCIU.Register
  static let fifoSize = PN53xCIU.fifoSize

  private(set) var fifo: [UInt8] = []
  private var registers: [UInt16: UInt8] = [:]
  /// Frames sent since the last Receive: bytes and the number of valid bits in the last one.
  private var sentFrames: [(bytes: [UInt8], lastBits: Int)] = []

  var parityDisabled: Bool { (registers[Register.manualRCV] ?? 0) & 0x10 != 0 }

  /// What a register reads before anything was written: TxMode and RxMode 80h (CRC on, 106 kbit/s,
  /// ISO/IEC 14443A framing: the state after the ACR122U firmware activated a Type A tag, and what
  /// libnfc's read-modify-write of bit 7 expects to find; decision, the reset table of the PN532
  /// manual was not available), every other register 00h.
  static func initialValue(_ address: UInt16) -> UInt8 {
    address == Register.txMode || address == Register.rxMode ? 0x80 : 0x00
  }

  private func value(_ address: UInt16) -> UInt8 { registers[address] ?? Self.initialValue(address) }

  /// TxMode bit 7 (TxCRCEn): the chip appends the CRC to what it sends; when clear, the host did.
  var appendsCRC: Bool { value(Register.txMode) & 0x80 != 0 }
  /// RxMode bit 7 (RxCRCEn): the chip checks and strips the CRC of what it receives; when clear,
  /// the host gets it.
  var stripsCRC: Bool { value(Register.rxMode) & 0x80 != 0 }
  /// TxMode bits 1–0 (TxFraming): 0 ISO/IEC 14443A, 1 active NFCIP-1, 2 FeliCa, 3 ISO/IEC 14443B.
  var framing: UInt8 { value(Register.txMode) & 0x03 }

  /// ReadRegister: `addrHi addrLo` pairs in, one value per address out; nil for an odd length.
  func read(_ addresses: [UInt8]) -> [UInt8]? {
    guard addresses.count % 2 == 0 else { return nil }
    return stride(from: 0, to: addresses.count, by: 2).map { i in
      let address = UInt16(addresses[i]) << 8 | UInt16(addresses[i + 1])
      switch address {
      case Register.fifoData: return fifo.isEmpty ? 0x00 : fifo.removeFirst()
      case Register.fifoLevel: return UInt8(fifo.count)
      default: return value(address)
      }
    }
  }

  /// WriteRegister: `addrHi addrLo value` triples, applied in order; false for a length that is
  /// not a multiple of three. `tag` answers the frames a Receive collects.
  func write(_ triples: [UInt8], tag: (any VirtualTag)?) -> Bool {
    guard triples.count % 3 == 0 else { return false }
    for i in stride(from: 0, to: triples.count, by: 3) {
      let address = UInt16(triples[i]) << 8 | UInt16(triples[i + 1])
      let value = triples[i + 2]
      switch address {
      case Register.fifoData:
        if fifo.count < Self.fifoSize { fifo.append(value) }
      case Register.fifoLevel:
        if value & 0x80 != 0 { fifo.removeAll() }
      case Register.command:
        registers[address] = value & 0x0F == 0x07 ? registers[address] ?? 0 : value & 0x0F
        run(value & 0x0F, tag: tag)
      case Register.bitFraming:
        registers[address] = value & 0x7F
        if value & 0x80 != 0, registers[Register.command] == 0x0C {
          transmit()
          receive(tag: tag)
        }
      default:
        registers[address] = value
      }
    }
    return true
  }

  private func run(_ command: UInt8, tag: (any VirtualTag)?) {
    switch command {
    case 0x04:  // Transmit
      transmit()
      registers[Register.command] = 0x00
    case 0x08:  // Receive
      receive(tag: tag)
      registers[Register.command] = 0x00
    case 0x00:  // Idle
      break
    default:
      break  // NoCmdChange (07), Transceive (0C, waits for StartSend) and the rest
    }
  }

  private func transmit() {
    guard !fifo.isEmpty else { return }
    let bits = Int((registers[Register.bitFraming] ?? 0) & 0x07)
    sentFrames.append((fifo, bits == 0 ? 8 : bits))
    fifo.removeAll()
  }

  private func receive(tag: (any VirtualTag)?) {
    defer { sentFrames.removeAll() }
    guard let tag, let frame = Self.type1Frame(sentFrames), let command = Self.strippingCRCB(frame) else { return }
    guard case .data(let answer) = tag.respond(to: command) else { return }
    let withCRC = answer + PN53xCIU.crcB(answer)
    let received = parityDisabled ? PN53xCIU.withParityBits(withCRC) : withCRC
    fifo = Array(received.prefix(Self.fifoSize))
  }

  /// The Type 1 frame in `frames`: a 7-bit short frame, then single-byte 8-bit frames.
  static func type1Frame(_ frames: [(bytes: [UInt8], lastBits: Int)]) -> [UInt8]? {
    guard let first = frames.first, first.bytes.count == 1, first.lastBits == 7 else { return nil }
    var out = [first.bytes[0] & 0x7F]
    for frame in frames.dropFirst() {
      guard frame.bytes.count == 1, frame.lastBits == 8 else { return nil }
      out.append(frame.bytes[0])
    }
    return out
  }

  /// `frame` without its last two bytes when they are its CRC_B; nil otherwise.
  static func strippingCRCB(_ frame: [UInt8]) -> [UInt8]? {
    guard frame.count > 2 else { return nil }
    let body = Array(frame.dropLast(2))
    return PN53xCIU.crcB(body) == Array(frame.suffix(2)) ? body : nil
  }

}
