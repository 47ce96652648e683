import ArgumentParser
import NFCEmulator
import NFCTagCLI

/// `nfctag-provision virtual-card`: the virtual tag of a `sim:` reader in `nfctag`, which does not
/// link the tag's model (the NTAG 424 DNA's, with swift-crypto; `RemoteVirtualCard` in nfctag
/// starts this command and talks to it). Not for people: hidden from the help.
///
/// Standard input and output are one socket to nfctag. Every message is vpcd's framing
/// (`RemoteVirtualCards.frame(_:)`: two bytes of big-endian length, then the payload), and every request gets one
/// answer. The first answer, unasked, is `00` when the tag is ready or `01` and one line saying
/// why it is not (an image the model refuses). Then a request of one byte is vpcd's control code
/// (`00` power off, `01` power on, `02` reset: an empty answer; `04`: the ATR), any other an APDU
/// to the reader face, answered with its response. The image file is written back after every
/// request that changed the tag. The command ends, exit 0, when nfctag closes the socket (it
/// ended or died: no process is left behind).
struct VirtualCardCommand: ToolCommand, PerformedCommand {
  static let configuration = CommandConfiguration(
    commandName: "virtual-card", abstract: "Serve one virtual tag to nfctag on standard input and output.", shouldDisplay: false)

  @Option(help: "The tag kind.") var tag: String
  @Option(help: "The reader face.") var reader: ReaderFaceKind = .acr122u
  @Option(help: "The image file.") var image: String?

  func run(in context: CommandContext) throws { try perform(in: context) }

  func perform(in context: CommandContext) throws {
    let card: any VirtualCard, tag: any VirtualTag, file: ImageFile?
    do {
      guard let kind = VirtualTagKind(rawValue: self.tag) else { throw EmulatorError("unknown tag kind '\(self.tag)'") }
      if let image { (file, tag) = try ImageFile.open(path: image, kind: kind, uid: nil) } else { (file, tag) = (nil, try kind.makeTag(uid: nil)) }
      card = try reader.makeFace(tag: tag)
    } catch {
      Self.send([0x01] + Array("\(error)".utf8))
      return
    }
    Self.send([0x00])
    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      for request in RemoteVirtualCards.messages(in: &buffer) {
        var answer: [UInt8] = []
        switch request {
        case [0x00]: card.powerOff()
        case [0x01]: card.powerOn()
        case [0x02]: card.reset()
        case [0x04]: answer = card.atr
        default: answer = card.transmit(request)
        }
        try? file?.saveIfChanged(tag)
        guard Self.send(answer) else { return }
      }
      let n = chunk.withUnsafeMutableBytes { read(0, $0.baseAddress, $0.count) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { return }  // nfctag closed the socket
      buffer += chunk[0..<n]
    }
  }

  /// Writes one framed message to standard output; false when nfctag is gone.
  @discardableResult
  static func send(_ payload: [UInt8]) -> Bool {
    let frame = RemoteVirtualCards.frame(payload)
    var offset = 0
    while offset < frame.count {
      let n = frame.withUnsafeBytes { write(1, $0.baseAddress.map { $0 + offset }, frame.count - offset) }
      if n < 0, errno == EINTR { continue }
      guard n > 0 else { return false }
      offset += n
    }
    return true
  }
}
