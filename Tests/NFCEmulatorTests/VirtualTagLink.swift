import NFCEmulator
import NFCTags
import NFCTransport

/// A reader link straight to a virtual tag, with the limits `capabilities` gives: a longer
/// command is refused, a longer answer is malformed, as a reader would pass them on.
final class VirtualTagLink: Transceiver, TargetReselecting {
  let tag: any VirtualTag
  let capabilities: LinkCapabilities
  init(_ tag: any VirtualTag, capabilities: LinkCapabilities) {
    self.tag = tag
    self.capabilities = capabilities
  }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard command.count <= capabilities.maxCommandLength else { throw .unsupported("a \(command.count)-byte command") }
    switch tag.respond(to: command) {
    case .data(let answer):
      guard answer.count <= capabilities.maxResponseLength + 2 else { throw .malformedResponse(answer) }
      return answer
    case .ack: return [0x0A]
    case .nak(let code): throw .nak(code)
    case .mute: throw .timeout
    }
  }
  func reselect() throws(TransceiveError) { tag.reset() }
}
