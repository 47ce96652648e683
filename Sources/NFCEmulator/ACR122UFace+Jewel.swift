/// The PN532's handling of Jewel/Topaz (Type 1) targets behind the ACR122U.
///
/// InDataExchange (`D4 40 01 …`) takes the short forms the PN532 firmware implements for Jewel
/// (nfcpy `pn532.py` `_tt1_send_cmd_recv_rsp`: codes 00, 01, 1A, 53; libnfc `jewel.h`): the
/// chip adds the UID it learnt in InListPassiveTarget and strips the echoed address, so
/// `00` (RALL) → `HR0 HR1` + 120 bytes, `01 ADD` (READ) → `DATA`, `53 ADD DATA` (WRITE-E) and
/// `1A ADD DATA` (WRITE-NE) → `DATA` (ACR122U API V2.04 §7.4: `01 08` → `18`, `53 08 FF` → `FF`).
/// Anything else through InDataExchange (RID, RSEG, the 8-byte commands) is not sent to the tag
/// and answers status 01 (timeout): nfcpy does not send them that way and notes that RID "can not
/// be send" through the ACR122U firmware.
///
/// InCommunicateThru (`D4 42 …`) to a Jewel target answers status 01 (timeout) and sends nothing:
/// the firmware sends one standard frame, not Type 1's 7-bit short frame then one frame per byte,
/// and a Topaz ignores it. nfcpy (`pn532.py`
/// `_tt1_send_cmd_recv_rsp`) says READ8, WRITE-E8 and WRITE-NE8 "are not implemented by the
/// chipset" and programs the CIU with WriteRegister / ReadRegister instead; the face models that in
/// ``PN532CIU``.
///
/// A tag that stays mute (a refused write, a wrong UID) gives status 01, as the PN532 reports a
/// timeout.
extension ACR122UFace {
  /// InDataExchange (and InCommunicateThru, which times out) for a Type 1 tag.
  func jewelExchange(_ command: [UInt8], thru: Bool, tag: any VirtualTag) -> [UInt8] {
    if thru { return [0x01] }
    let uid = Array(tag.identifier.prefix(4))
    guard uid.count == 4, let code = command.first else { return [0x01] }
    let frame: [UInt8]
    switch (code, command.count) {
    case (0x00, 1): frame = [0x00, 0x00, 0x00] + uid
    case (0x01, 2): frame = [0x01, command[1], 0x00] + uid
    case (0x53, 3), (0x1A, 3): frame = command + uid
    default: return [0x01]
    }
    let response = tag.respond(to: frame)
    guard case .data(let answer) = response else { return chipAnswer(response, thru: false) }
    if code == 0x00 { return chipAnswer(response, thru: false) }
    // READ / WRITE-E / WRITE-NE: the tag sends ADD DATA; the PN532 passes on DATA only.
    guard answer.count == 2, let data = answer.last else { return [0x01] }
    return [0x00, data]
  }
}
