/// The PICC side of the ISO/IEC 14443-4 block protocol (§7.1, §7.5), for a host that runs the
/// protocol itself: a PN53x client sending raw blocks through InCommunicateThru, where the chip
/// adds nothing (InDataExchange, by contrast, carries bare APDUs and the PN532 firmware makes the
/// blocks). CRC_A is the CIU's business (see ``PN532CIU``); a block here has none.
///
/// Blocks (PCB bits b8…b1):
/// - I-block `00 0 C CID NAD 1 bn` (02h/03h, +08h with a CID byte, +04h with a NAD byte, +10h
///   chaining): the INF of an unchained block, after any chained ones, is an APDU; the answer is an
///   I-block with the same block number, CID and NAD (its nibbles swapped, §7.1.1.3) carrying the
///   R-APDU. A chained block is answered R(ACK) with its block number.
/// - R-block `1 0 1 ACK/NAK CID 0 1 bn` (A2h/A3h ACK, B2h/B3h NAK): the last block is sent again
///   (rule 11/12 of §7.5.4, as far as a PICC that never chains its answers needs them).
/// - S(DESELECT) `11 00 CID 0 1 0` (C2h): answered with the same block; then every block is ignored
///   until the tag is activated again (RATS `E0 xx` here, or InListPassiveTarget / InSelect).
/// - RATS `E0 xx`: the ATS, from the tag's technology.
/// Anything else gets no answer (the PICC ignores an invalid block, §7.5.5).
struct ISODEPBlockResponder {
  private var chained: [UInt8] = []
  private var lastBlock: [UInt8]? = nil
  private var deselected = false

  /// The answer block to `block`, or nil when the tag stays mute.
  /// - Parameters:
  ///   - ats: the tag's ATS (with TL), answered to RATS.
  ///   - apdu: answers one command APDU with a response APDU (nil: mute).
  mutating func respond(to block: [UInt8], ats: [UInt8], apdu: ([UInt8]) -> [UInt8]?) -> [UInt8]? {
    guard let pcb = block.first else { return nil }
    if pcb == 0xE0, block.count == 2 {
      self = ISODEPBlockResponder()
      return ats
    }
    guard !deselected else { return nil }
    var rest = block.dropFirst()
    var cid: [UInt8] = []
    if pcb & 0x08 != 0 {
      guard let byte = rest.popFirst() else { return nil }
      cid = [byte]
    }
    switch pcb & 0xE2 {
    case 0x02:  // I-block
      var nad: [UInt8] = []
      if pcb & 0x04 != 0 {
        guard let byte = rest.popFirst() else { return nil }
        nad = [byte << 4 | byte >> 4]
      }
      if pcb & 0x10 != 0 {
        chained += rest
        return remember([0xA2 | pcb & 0x09] + cid)
      }
      let command = chained + rest
      chained = []
      guard let response = apdu(command) else { return nil }
      return remember([pcb & 0x0F] + cid + nad + response)
    case 0xA2:  // R-block (ACK or NAK)
      guard pcb & 0x04 == 0 else { return nil }
      return lastBlock
    case 0xC2:  // S-block
      guard pcb & 0x34 == 0 else { return nil }  // DESELECT; WTX (F2h) is the PICC's to send
      deselected = true
      chained = []
      return [pcb] + cid
    default:
      return nil
    }
  }

  private mutating func remember(_ block: [UInt8]) -> [UInt8] {
    lastBlock = block
    return block
  }
}
