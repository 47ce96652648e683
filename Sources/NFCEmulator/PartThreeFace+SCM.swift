import NFCTransport

// SCM Microsystems' own pseudo-APDUs for NFC Forum Type 1 and Type 3 tags, which the SCL3711 and
// Identiv's uTrust 3700 F (FeliCa only) take instead of direct transmit or transparent exchange.
// Sources: SCM "SCL3711 Reference Manual" v1.3 §6.4.1 (Type 1) and §6.4.3 (FeliCa); Identiv
// "Reference Manual for the CLOUD 370x F Contactless Desktop Readers" v1.0 §6.2.13–6.2.18 (the
// uTrust 3700 F's earlier name; the same FeliCa commands). Status words: the family's list
// (SCL3711 Reference Manual §6.2.1): `67 00` wrong length, `6B 00` wrong P1 P2; a card that does
// not answer gets the profile's failure (`6A 82` on both), a choice: neither manual says.
extension PartThreeFace {
  /// The answer to one of the profile's SCM pseudo-APDUs, or nil when `apdu` is none of them.
  /// A FeliCa command to a card that is not FeliCa, or a Type 1 command to one that is not Type 1,
  /// gets the profile's unsupported status.
  func scmCommand(_ apdu: [UInt8]) -> [UInt8]? {
    guard apdu.count >= 4, apdu[1] & 0x01 == 0 else { return nil }
    switch apdu[1] {
    case 0x40...0x4A where profile.scmFeliCaCommands:
      return tag.platform == .type3 ? felicaCommand(apdu) : unsupported
    case 0x50...0x60 where profile.scmType1Commands:
      return tag.platform == .type1 ? type1Command(apdu) : unsupported
    default:
      return nil
    }
  }

  /// The data of a case 3 command whose Lc must be `length` (a trailing Le is taken); nil for
  /// another length (`67 00`).
  private func body(_ apdu: [UInt8], length: Int) -> [UInt8]? {
    guard apdu.count >= 5, Int(apdu[4]) == length, apdu.count == 5 + length || apdu.count == 6 + length else { return nil }
    return Array(apdu[5..<(5 + length)])
  }

  private static var wrongLength: [UInt8] { StatusWord.wrongLength.bytes }

  /// A case 1 or case 2 command (`FF INS P1 P2 [Le]`) with P1 P2 `expected`.
  private func noBody(_ apdu: [UInt8], p1p2 expected: [UInt8]) -> StatusWord? {
    guard apdu.count == 4 || apdu.count == 5 else { return .wrongLength }
    return Array(apdu[2..<4]) == expected ? nil : StatusWord(0x6B, 0x00)
  }

  // MARK: - FeliCa (SCL3711 Reference Manual §6.4.3; CLOUD 370x F §6.2.13–6.2.18)

  /// Builds the FeliCa command the reader sends (its length byte, code, the IDm it learnt at
  /// polling, the parameters), and answers what the card sent after its length byte and response
  /// code, with `90 00`. A status flag answer (SF1 ≠ 0: no block data) is passed on the same way
  /// with `90 00`, as the answer layouts say "IDm + Status Flag 1 + Status Flag 2" (a choice: no
  /// manual shows an error answer).
  private func felicaCommand(_ apdu: [UInt8]) -> [UInt8] {
    let idm = Array(tag.identifier.prefix(8))
    let frame: [UInt8]
    switch apdu[1] {
    case 0x40:
      // REQC `FF 40 00 00 04 SC SC RFU TSN` → NFCID2 (IDm PMm) and, with RFU 01, the system code
      // (§6.4.3.1; CLOUD 370x F §6.2.13): the FeliCa Polling command (code 00).
      guard apdu[2] == 0, apdu[3] == 0 else { return StatusWord(0x6B, 0x00).bytes }
      guard let data = body(apdu, length: 4) else { return Self.wrongLength }
      frame = [0x00] + data
    case 0x42:
      // Request Service `FF 42 n 00 2n <codes>` → IDm n versions (CLOUD 370x F §6.2.14).
      let n = Int(apdu[2])
      guard n > 0, apdu[3] == 0 else { return StatusWord(0x6B, 0x00).bytes }
      guard let data = body(apdu, length: 2 * n) else { return Self.wrongLength }
      frame = [0x02] + idm + [UInt8(n)] + data
    case 0x44, 0x4A:
      // Request Response `FF 44 00 00 00` → IDm mode (§6.2.15); Request System Code
      // `FF 4A 00 00 00` → IDm n codes (§6.2.18, §6.4.3.6).
      if let sw = noBody(apdu, p1p2: [0x00, 0x00]) { return sw.bytes }
      frame = [apdu[1] == 0x44 ? 0x04 : 0x0C] + idm
    case 0x46, 0x48:
      // Read `FF 46 n m 2(n+m) <services> <blocks>` → IDm SF1 SF2 m data (§6.4.3.4; CLOUD 370x F
      // §6.2.16); Write `FF 48 n m 2(n+m)+16m <services> <blocks> <data>` → IDm SF1 SF2
      // (§6.4.3.5; §6.2.17). Services and 2-byte block list elements go to the card as given.
      let n = Int(apdu[2]), m = Int(apdu[3])
      guard n > 0, m > 0 else { return StatusWord(0x6B, 0x00).bytes }
      let write = apdu[1] == 0x48
      let listLength = 2 * (n + m)
      guard let data = body(apdu, length: listLength + (write ? 16 * m : 0)) else { return Self.wrongLength }
      let services: [UInt8] = Array(data[0..<(2 * n)])
      let blocks: [UInt8] = Array(data[(2 * n)..<listLength])
      let blockData: [UInt8] = Array(data[listLength...])
      let code: UInt8 = write ? 0x08 : 0x06
      frame = [code] + idm + [UInt8(n)] + services + [UInt8(m)] + blocks + blockData
    default:
      return unsupported
    }
    let command = [UInt8(truncatingIfNeeded: frame.count + 1)] + frame
    guard command.count <= 0xFF, case .data(let answer) = tag.respond(to: command), answer.count >= 2,
          Int(answer[0]) == answer.count, answer[1] == frame[0] &+ 1, answer.count + 2 <= Self.maximumAnswer else {
      return failed
    }
    return Array(answer.dropFirst(2)) + Self.ok
  }

  // MARK: - Type 1 (SCL3711 Reference Manual §6.4.1)

  /// Sends the Type 1 frame (the tag's command with the UID the reader learnt) and answers what
  /// the manual lists: RID and RALL as the tag sent them, the others without the echoed address.
  private func type1Command(_ apdu: [UInt8]) -> [UInt8] {
    let uid = Array(tag.identifier.prefix(4))
    let zeros = [UInt8](repeating: 0, count: 8)
    let address = apdu[3]
    let frame: [UInt8]
    switch apdu[1] {
    case 0x50, 0x52:
      // RID `FF 50 00 00 00` → HR0 HR1 UID0–3 (§6.4.1.1); RALL `FF 52 00 00 00` → HR0 HR1 and
      // blocks 0–E (§6.4.1.2).
      if let sw = noBody(apdu, p1p2: [0x00, 0x00]) { return sw.bytes }
      frame = apdu[1] == 0x50 ? [0x78, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00] : [0x00, 0x00, 0x00] + uid
    case 0x54, 0x5A, 0x5C:
      // READ `FF 54 00 ADD 00` → 1 byte (§6.4.1.3); RSEG `FF 5A 00 ADDS 00` → 128 bytes (§6.4.1.6);
      // READ8 `FF 5C 00 block 00` → 8 bytes (§6.4.1.7).
      guard apdu[2] == 0 else { return StatusWord(0x6B, 0x00).bytes }
      guard apdu.count == 4 || apdu.count == 5 else { return StatusWord.wrongLength.bytes }
      switch apdu[1] {
      case 0x54: frame = [0x01, address, 0x00] + uid
      case 0x5A: frame = [0x10, address] + zeros + uid
      default: frame = [0x02, address] + zeros + uid
      }
    case 0x56, 0x58:
      // WRITE-E `FF 56 00 ADD 01 byte` → the byte written (§6.4.1.4); WRITE-NE `FF 58 00 ADD 01
      // byte` → the byte after the write (§6.4.1.5).
      guard apdu[2] == 0 else { return StatusWord(0x6B, 0x00).bytes }
      guard let data = body(apdu, length: 1) else { return Self.wrongLength }
      frame = [apdu[1] == 0x56 ? 0x53 : 0x1A, address] + data + uid
    case 0x5E, 0x60:
      // WRITE-E8 `FF 5E 00 block 08 data` → the 8 bytes written (§6.4.1.8); WRITE-NE8
      // `FF 60 00 block 08 data` → the 8 bytes after the write (§6.4.1.9).
      guard apdu[2] == 0 else { return StatusWord(0x6B, 0x00).bytes }
      guard let data = body(apdu, length: 8) else { return Self.wrongLength }
      frame = [apdu[1] == 0x5E ? 0x54 : 0x1B, address] + data + uid
    default:
      return unsupported
    }
    guard case .data(let answer) = tag.respond(to: frame), !answer.isEmpty, answer.count + 2 <= Self.maximumAnswer else {
      return failed
    }
    return (apdu[1] == 0x50 || apdu[1] == 0x52 ? answer : Array(answer.dropFirst())) + Self.ok
  }
}
