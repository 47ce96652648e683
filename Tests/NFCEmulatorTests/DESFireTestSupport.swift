@testable import NFCEmulator

/// Hex text ("90 60 00 00 00") as bytes; anything that is not a hex digit is skipped.
func desfireBytes(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  var high: UInt8?
  for c in text.unicodeScalars {
    guard let v = UInt8(String(c), radix: 16) else { continue }
    if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
  }
  return out
}

extension DESFireVirtualTag {
  /// The answer to one frame given as hex (data + status), empty when the card stays mute.
  func send(_ text: String) -> [UInt8] {
    guard case .data(let answer) = respond(to: desfireBytes(text)) else { return [] }
    return answer
  }

  /// A factory EV1 of `chip` with the test UID, without cryptography whatever another suite of
  /// the process installed.
  static func factory(_ chip: DESFireChip = .ev1With8K) throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag(chip: chip, uid: desfireBytes("04 95 91 0A 5D 6D 80"))
    tag.security = nil
    return tag
  }
}
