import NFCTransport

// PC/SC Part 3 Manage Session, Switch Protocol and Transparent Exchange (`FF C2`), for the faces
// whose profile has them (``ReaderProfile/transparentExchange``). Moved from PartThreeFace.swift.
extension PartThreeFace {
  func manageSession(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count >= 5, apdu[2] == 0x00 else { return unsupported }
    let lc = Int(apdu[4])
    guard apdu.count == 5 + lc || apdu.count == 6 + lc else { return StatusWord.wrongLength.bytes }
    guard let objects = BERObject.parse(Array(apdu[5 ..< 5 + lc])) else {
      return Self.status(index: 1, .wrongLength) + Self.ok
    }
    switch apdu[3] {
    case 0x00: return session(objects)
    case 0x01: return exchange(objects)
    case 0x02: return switchProtocol(objects)
    default: return unsupported
    }
  }

  /// The `C0 03 <index> SW1 SW2` status object of a Manage Session or transparent exchange answer.
  static func status(index: Int, _ sw: StatusWord) -> [UInt8] {
    [0xC0, 0x03, UInt8(truncatingIfNeeded: index), sw.sw1, sw.sw2]
  }

  func session(_ objects: [BERObject]) -> [UInt8] {
    for (i, object) in objects.enumerated() {
      switch object.tag {
      case 0x81:
        sessionActive = true
        selectedProtocol = nil
      case 0x82: endSession()
      case 0x83: tag.reset()
      case 0x84: break
      case 0x5F46: break
      default: return Self.status(index: i + 1, .functionNotSupported) + Self.ok
      }
    }
    return Self.status(index: 0, .success) + Self.ok
  }

  /// Switch Protocol (`8F 02 <standard> <layer>`; PC/SC Part 3 values as in
  /// wsrf2009/contactless-driver `pcsc.h`).
  ///
  /// - `02 02` / `02 03` (ISO 15693) with an ISO 15693 tag, and `00 03` (ISO 14443A layer 3) with a
  ///   Type 2 tag: `C0 03 00 90 00 8F 01 00`, as in the ACR1552 trace. The 14443A switch activates
  ///   the tag anew (ISO 14443-3 REQA/anticollision/SELECT), so its volatile state (PWD_AUTH) is
  ///   dropped.
  /// - A standard this reader handles (00 ISO 14443A, 02 ISO 15693) that the tag in the field does
  ///   not speak: `C0 03 01 64 01`, the "no answer" state the trace shows for a mute tag, because
  ///   the reader switches its field and then no card answers the activation. This is our choice:
  ///   the ACS manuals we found do not show this case.
  /// - Anything else (other standards, layers 2 and 4, a malformed object): `C0 03 01 6A 81`.
  func switchProtocol(_ objects: [BERObject]) -> [UInt8] {
    guard objects.count == 1, let object = objects.first, object.tag == 0x8F, object.value.count == 2 else {
      return Self.status(index: 1, .functionNotSupported) + Self.ok
    }
    let standard = object.value[0], layer = object.value[1]
    switch (standard, layer) {
    case (0x02, 0x02), (0x02, 0x03):
      guard tag.platform == .type5 else { return Self.status(index: 1, .noResponse) + Self.ok }
    case (0x00, 0x03):
      guard tag.platform == .type2 else { return Self.status(index: 1, .noResponse) + Self.ok }
      tag.reset()
    default:
      return Self.status(index: 1, .functionNotSupported) + Self.ok
    }
    selectedProtocol = [standard, layer]
    return Self.status(index: 0, .success) + [0x8F, 0x01, 0x00] + Self.ok
  }

  /// Transparent Exchange. ISO 15693 tags answer without a prior Switch Protocol (as before);
  /// Type 2 tags only after a switch to ISO 14443A layer 3 (else `C0 03 01 6A 81`). A Type 2
  /// ACK or NAK comes back as a one-byte `97` with `92 01 04` (4 valid bits in the last byte).
  func exchange(_ objects: [BERObject]) -> [UInt8] {
    switch tag.platform {
    case .type5: break
    case .type2 where selectedProtocol == [0x00, 0x03] && !(tag is MIFAREClassicVirtualTag): break
    default: return Self.status(index: 1, .functionNotSupported) + Self.ok
    }
    var out: [UInt8] = []
    for (i, object) in objects.enumerated() {
      switch object.tag {
      case 0x90, 0x91, 0x92, 0x5F46: continue
      case 0x93:
        _ = tag.respond(to: object.value)
      case 0x95:
        let answer: [UInt8], validBits: UInt8
        switch tag.respond(to: object.value) {
        case .data(let bytes): (answer, validBits) = (bytes, 0)
        case .ack: (answer, validBits) = ([0x0A], 4)
        case .nak(let code): (answer, validBits) = ([code & 0x0F], 4)
        case .mute: return Self.status(index: i + 1, .noResponse) + Self.ok
        }
        let length: [UInt8] = answer.count < 0x80 ? [UInt8(answer.count)] : [0x81, UInt8(truncatingIfNeeded: answer.count)]
        out = [0x92, 0x01, validBits, 0x96, 0x02, 0x00, 0x00, 0x97] + length + answer
        guard answer.count <= 0xFF, 5 + out.count + 2 <= Self.maximumAnswer else {
          return Self.status(index: i + 1, .wrongLength) + Self.ok
        }
      default:
        return Self.status(index: i + 1, .functionNotSupported) + Self.ok
      }
    }
    return Self.status(index: 0, .success) + out + Self.ok
  }
}
