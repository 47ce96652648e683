import NFCTransport

/// A PC/SC reader's pseudo-APDUs for MIFARE Classic: the reader keeps keys in its own slots and
/// runs Crypto1 itself. PC/SC Part 3 §3.2.2.1 (LOAD KEYS, GENERAL AUTHENTICATE, READ BINARY,
/// UPDATE BINARY); ACS ACR122U API V2.04 §5, "PICC Commands for MIFARE Classic", which also
/// documents the older AUTHENTICATE `FF 88` and the key locations 00h–01h (volatile).
///
/// | APDU | meaning |
/// |---|---|
/// | `FF 82 00 slot 06 key(6)` | LOAD KEYS into volatile slot 00 or 01 |
/// | `FF 86 00 00 05 01 00 blk 60/61 slot` | GENERAL AUTHENTICATE with key A / B from a slot |
/// | `FF 88 00 blk 60/61 slot` | AUTHENTICATE (obsolete form) |
/// | `FF B0 00 blk 10` | READ BINARY one block (Le 00 reads 16 too) |
/// | `FF D6 00 blk 10 data(16)` | UPDATE BINARY one block |
/// | `FF D7 00 blk 05 op value(4)` | value block operation: 00 store, 01 increment, 02 decrement (value most significant byte first) |
/// | `FF D7 00 src 02 03 dst` | restore value block: `src`'s value into `dst` |
/// | `FF B1 00 blk 04` | read value block: its value, most significant byte first |
///
/// The value commands are ACS's (ACR122U API V2.04 §5, "Value Block Related Commands"): the
/// reader sends the card's INCREMENT, DECREMENT or RESTORE and then TRANSFER.
///
/// Every failure, a wrong key included, answers `63 00` (ACR122U API §5, each command's response
/// codes: "the operation failed").
///
/// After a refused GENERAL AUTHENTICATE, READ BINARY, UPDATE BINARY or value operation the card is
/// silent until it is selected again (NXP AN1304 §6.4.1), and this model's reader does not select it again by itself: every later command to the
/// card answers `63 00` until the card is reset (`SCardReconnect` with a reset reaches the face's
/// `reset()`) or, on the ACR122U, InListPassiveTarget selects it. ACS's manual (ACR122U API V2.04
/// §5) does not say what the firmware does after a failed authentication, and no trace at hand
/// shows it; the conservative model is the one that needs the host to select the card again. A
/// GENERAL AUTHENTICATE from an empty key slot is refused by the reader without reaching the card.
struct MIFAREClassicPseudoAPDUs {
  /// The volatile key slots.
  private var slots: [[UInt8]?] = [nil, nil]

  private static let ok = StatusWord.success.bytes
  private static let failed = StatusWord.noInformation.bytes

  /// The answer to `apdu` (CLA FF) for `tag`, or nil when the APDU is none of the above.
  mutating func answer(_ apdu: [UInt8], tag: MIFAREClassicVirtualTag) -> [UInt8]? {
    guard apdu.count >= 5, apdu[0] == 0xFF else { return nil }
    let lc = Int(apdu[4])
    switch apdu[1] {
    case 0x82:
      guard apdu[2] == 0x00, Int(apdu[3]) < slots.count, lc == 6, apdu.count == 11 else { return Self.failed }
      slots[Int(apdu[3])] = Array(apdu[5..<11])
      return Self.ok
    case 0x86:
      guard apdu[2] == 0, apdu[3] == 0, lc == 5, apdu.count == 10, apdu[5] == 0x01, apdu[6] == 0x00 else {
        return Self.failed
      }
      return authenticate(tag, block: apdu[7], keyType: apdu[8], slot: apdu[9])
    case 0x88:
      // ACR122U API §5, Authentication (obsolete form): `FF 88 00 blk type slot`, the key type
      // where an Lc would be.
      guard apdu.count == 6, apdu[2] == 0 else { return Self.failed }
      return authenticate(tag, block: apdu[3], keyType: apdu[4], slot: apdu[5])
    case 0xB0:
      guard apdu.count == 5, apdu[2] == 0, lc == 0x10 || lc == 0 else { return Self.failed }
      guard case .data(let data) = tag.respond(to: [0x30, apdu[3]]), data.count == 16 else { return Self.failed }
      return data + Self.ok
    case 0xD6:
      guard apdu[2] == 0, lc == 0x10, apdu.count == 21 else { return Self.failed }
      guard case .ack = tag.respond(to: [0xA0, apdu[3]] + Array(apdu[5...])) else { return Self.failed }
      return Self.ok
    case 0xD7:
      guard apdu[2] == 0, apdu.count == 5 + lc else { return Self.failed }
      return valueOperation(tag, block: apdu[3], Array(apdu[5...]))
    case 0xB1:
      guard apdu.count == 5, apdu[2] == 0, lc == 4 else { return Self.failed }
      guard case .data(let data) = tag.respond(to: [0x30, apdu[3]]),
            let value = MIFAREClassicVirtualTag.value(ofBlock: data) else { return Self.failed }
      return Self.bigEndian(value) + Self.ok
    default:
      return nil
    }
  }

  /// `FF D7`'s data: `op value(4)` (Lc 05) or `03 dst` (Lc 02).
  private func valueOperation(_ tag: MIFAREClassicVirtualTag, block: UInt8, _ data: [UInt8]) -> [UInt8] {
    let frames: [[UInt8]]
    switch (data.count, data.first) {
    case (5, 0x00):
      let value = Int32(bitPattern: data.dropFirst().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
      frames = [[0xA0, block] + MIFAREClassicVirtualTag.valueBlock(value, address: block)]
    case (5, 0x01), (5, 0x02):
      let operand = Array(data.dropFirst().reversed())  // the card takes the least significant byte first
      frames = [[data.first == 0x01 ? 0xC1 : 0xC0, block] + operand, [0xB0, block]]
    case (2, 0x03):
      frames = [[0xC2, block, 0x00, 0x00, 0x00, 0x00], [0xB0, data[1]]]
    default:
      return Self.failed
    }
    for frame in frames {
      guard case .ack = tag.respond(to: frame) else { return Self.failed }
    }
    return Self.ok
  }

  private static func bigEndian(_ value: Int32) -> [UInt8] {
    let raw = UInt32(bitPattern: value)
    return [UInt8(truncatingIfNeeded: raw >> 24), UInt8(truncatingIfNeeded: raw >> 16),
            UInt8(truncatingIfNeeded: raw >> 8), UInt8(truncatingIfNeeded: raw)]
  }

  /// Authenticates with the key in `slot`; the reader sends the UID's last 4 bytes (MF1S70yyX
  /// §10.1.2 and §10.2.2: UID CL2 of a 7-byte UID, the whole 4-byte NUID).
  private func authenticate(_ tag: MIFAREClassicVirtualTag, block: UInt8, keyType: UInt8, slot: UInt8) -> [UInt8] {
    guard keyType == 0x60 || keyType == 0x61, Int(slot) < slots.count, let key = slots[Int(slot)] else {
      return Self.failed
    }
    guard case .ack = tag.respond(to: [keyType, block] + key + Array(tag.identifier.suffix(4))) else { return Self.failed }
    return Self.ok
  }
}
