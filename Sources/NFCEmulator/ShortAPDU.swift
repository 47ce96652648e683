/// A short command APDU's parts (ISO/IEC 7816-4 §5.1, cases 1–4), as the virtual Type 4 tags
/// take them; nil when malformed or extended (Lc or Le of three bytes).
package struct ShortAPDU {
  package var cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8
  package var data: [UInt8]
  /// Ne: nil when absent, 256 for Le 00.
  package var le: Int?

  package init?(_ bytes: [UInt8]) {
    guard bytes.count >= 4 else { return nil }
    cla = bytes[0]; ins = bytes[1]; p1 = bytes[2]; p2 = bytes[3]
    data = []
    le = nil
    if bytes.count == 4 { return }
    let b4 = Int(bytes[4])
    if bytes.count == 5 {
      le = b4 == 0 ? 256 : b4
      return
    }
    guard b4 != 0 else { return nil }  // extended length
    if bytes.count == 5 + b4 {
      data = Array(bytes[5...])
    } else if bytes.count == 6 + b4 {
      data = Array(bytes[5..<(5 + b4)])
      let last = Int(bytes[5 + b4])
      le = last == 0 ? 256 : last
    } else {
      return nil
    }
  }
}
