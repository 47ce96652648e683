import DESFireEmulator
import NFCEmulator
import NFCTransport

/// Bytes from hex text (spaces ignored).
func hexBytes(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  var high: UInt8?
  for c in text.unicodeScalars {
    guard let v = UInt8(String(c), radix: 16) else { continue }
    if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
  }
  return out
}

/// A link to a virtual DESFire with the DESFire module's ciphers, in process, that counts the
/// frames sent and can alter the card's answers (`tamper`: the frame sent, the answer → what the
/// host gets).
final class CountingDESFireLink: Transceiver {
  let tag: DESFireVirtualTag
  private(set) var sent: [[UInt8]] = []
  var tamper: (([UInt8], [UInt8]) -> [UInt8])?

  init(_ chip: DESFireChip = .ev1With4K, uid: [UInt8]? = nil) throws {
    tag = try DESFireVirtualTag(chip: chip, uid: uid)
    tag.security = OpenSSLDESFireSecurity()
  }

  var capabilities: LinkCapabilities { .init(maxResponseLength: 256, maxCommandLength: 250, rawCommands: true) }
  var pathDescription: String { "virtual DESFire" }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    sent.append(command)
    guard case .data(let answer) = tag.respond(to: command) else { return [] }
    return tamper?(command, answer) ?? answer
  }

  /// Flips the first byte of the answer to the first frame of native command `code`.
  func flipFirstByte(ofAnswerTo code: UInt8) {
    var done = false
    tamper = { command, answer in
      guard !done, command.count > 1, command[1] == code, answer.count > 2 else { return answer }
      done = true
      return [answer[0] ^ 0x01] + answer.dropFirst()
    }
  }
}

/// A virtual DESFire as a link: each command answered by the tag, no answer a timeout.
final class VirtualDESFireLink: Transceiver {
  let tag: DESFireVirtualTag
  init(_ tag: DESFireVirtualTag) { self.tag = tag }
  var capabilities: LinkCapabilities { .init(maxResponseLength: 256, maxCommandLength: 250, rawCommands: true) }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard case .data(let answer) = tag.respond(to: command) else { throw .timeout }
    return answer
  }
}
