import Foundation
import NFCTestSupport
import NFCTransport
import Testing

/// Loads `Fixtures/<name>.hex`: one page per line, hex bytes, `#` starts a comment.
func loadFixture(_ name: String) throws -> [UInt8] {
  let url = try #require(Bundle.module.url(forResource: name, withExtension: "hex", subdirectory: "Fixtures"))
  let text = try String(contentsOf: url, encoding: .utf8)
  var out: [UInt8] = []
  for line in text.split(separator: "\n") {
    let data = line.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
    out += hex(String(data))
  }
  return out
}

/// `count` pages of zeros.
func zeroPages(_ count: Int) -> [UInt8] { [UInt8](repeating: 0, count: count * 4) }

/// Pages `range` of `image`.
func pages(_ image: [UInt8], _ range: ClosedRange<Int>) -> [UInt8] {
  Array(image[(range.lowerBound * 4)..<((range.upperBound + 1) * 4)])
}

/// A Type 2 chip in memory: answers READ (wrapping), FAST_READ, WRITE and GET_VERSION like an
/// NTAG21x, so tests can run whole operations and count exchanges.
final class FakeType2Tag: Transceiver {
  var memory: [UInt8]
  let version: [UInt8]?
  var capabilities: LinkCapabilities
  /// Every command received.
  private(set) var log: [[UInt8]] = []
  /// Page whose writes are silently dropped (to provoke a verify failure).
  var brokenPage: Int?

  init(image: [UInt8], version: [UInt8]?,
       capabilities: LinkCapabilities = .init(maxResponseLength: 256, maxCommandLength: 250, rawCommands: true)) {
    self.memory = image
    self.version = version
    self.capabilities = capabilities
  }

  var pageCount: Int { memory.count / 4 }
  var writes: [[UInt8]] { log.filter { $0.first == 0xA2 } }

  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    log.append(command)
    guard let code = command.first else { throw .timeout }
    switch code {
    case 0x60:
      guard let version else { throw .timeout }
      return version
    case 0x30:
      guard command.count == 2, Int(command[1]) < pageCount else { throw .nak(0) }
      let start = Int(command[1]) * 4
      return (0..<16).map { memory[(start + $0) % memory.count] }
    case 0x3A:
      guard command.count == 3, command[1] <= command[2], Int(command[2]) < pageCount else { throw .nak(0) }
      guard (Int(command[2]) - Int(command[1]) + 1) * 4 <= capabilities.maxResponseLength else {
        throw .unsupported("answer too long for this reader")
      }
      return Array(memory[(Int(command[1]) * 4)..<((Int(command[2]) + 1) * 4)])
    case 0xA2:
      guard command.count == 6, Int(command[1]) < pageCount, command[1] >= 2 else { throw .nak(0) }
      if Int(command[1]) != brokenPage {
        memory.replaceSubrange((Int(command[1]) * 4)..<(Int(command[1]) * 4 + 4), with: command[2..<6])
      }
      return [0x0A]
    default:
      throw .timeout
    }
  }
}
