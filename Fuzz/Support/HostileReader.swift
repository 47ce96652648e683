// A reader whose every answer comes from the fuzz input, shared by the targets that drive the
// reader drivers (pn532, detection). Compiled into those targets by scripts/fuzz.sh.

/// A reader answering from the fuzz input. Control byte: 00-3F that many bytes; 40-7F (c & 3F)
/// bytes then 90 00; 80-BF 16 × (c & 3F) bytes then 90 00; C0-FF an error.
final class HostileReader: APDUTransport {
  var input: ArraySlice<UInt8>
  var exchanges = 0
  let readerName = "hostile reader"
  let atr: [UInt8]
  init(_ input: ArraySlice<UInt8>, atr: [UInt8] = []) {
    self.input = input
    self.atr = atr
  }
  func take(_ n: Int) -> [UInt8] {
    let part = Array(input.prefix(n))
    input = input.dropFirst(part.count)
    return part
  }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    exchanges += 1
    guard exchanges <= 400 else {
      guard exchanges <= 5000 else { fatalError("a link goes on after its reader failed 4600 times") }
      throw .transport("the hostile reader's exchange budget is spent")
    }
    guard let control = input.popFirst() else { throw .tagRemoved }
    switch control {
    case 0x00...0x3F: return take(Int(control))
    case 0x40...0x7F: return take(Int(control & 0x3F)) + [0x90, 0x00]
    case 0x80...0xBF: return take(16 * Int(control & 0x3F)) + [0x90, 0x00]
    default:
      switch control & 0x03 {
      case 0: throw .timeout
      case 1: throw .tagRemoved
      case 2: throw .transport("hostile reader failure")
      default: throw .status(StatusWord(0x63, control))
      }
    }
  }
}
