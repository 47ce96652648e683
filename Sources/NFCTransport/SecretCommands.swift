// Where a password sits in a tag command: what traces and `nfctag send` mask.

/// What carries a tag frame inside an APDU.
public enum TagFrameCarrier: Sendable {
  /// The APDU is the card's own command (any CLA but FF): ISO 7816.
  case apdu
  /// The PN532's InDataExchange (`FF 00 00 00 Lc D4 40 Tg …`): a Type 2 command, or an ISO-DEP APDU.
  case inDataExchange
  /// A raw frame: InCommunicateThru (`… D4 42 …`) or a Part 3 transparent exchange (`FF C2 00 01`, the `95` object).
  case raw
}

/// How many bytes of a tag frame that carries a password are shown before `********`; nil for a
/// frame that carries none.
/// - NTAG21x / Ultralight EV1 PWD_AUTH `1B` + 4-byte password: the command byte (NTAG21x datasheet §10.7).
/// - ISO 15693 SET PASSWORD `B3` and WRITE PASSWORD `B4` with NXP's manufacturer code 04 (ICODE
///   SLIX2): flags, command, manufacturer code, the UID when the address flag (20h) is set, and the
///   password identifier; the (XORed or new) password follows.
/// - ISO 7816-4 VERIFY `20` and CHANGE REFERENCE DATA `24` (interindustry CLA, bit 8 clear), when
///   the frame is an APDU: CLA INS P1 P2 Lc; the PIN or passwords follow.
public func secretHeaderLength(_ frame: ArraySlice<UInt8>, kind: TagFrameCarrier) -> Int? {
  let f = Array(frame)
  guard let first = f.first else { return nil }
  if kind != .apdu, first == 0x1B { return 1 }
  if kind == .raw, f.count >= 3, f[1] == 0xB3 || f[1] == 0xB4, f[2] == 0x04 {
    return 3 + (first & 0x20 != 0 ? 8 : 0) + 1
  }
  if kind != .raw, f.count > 5, first & 0x80 == 0, f[1] == 0x20 || f[1] == 0x24 { return 5 }
  return nil
}
