import NFCEmulator
import NFCTransport
import NTAG424Emulator

/// APDUs straight to a virtual 424 DNA, every command kept: the host against the card's side.
final class RecordingVirtualLink: Transceiver {
  let tag: NTAG424DNAVirtualTag
  private(set) var commands: [[UInt8]] = []
  init(_ tag: NTAG424DNAVirtualTag) { self.tag = tag }
  /// As much as a short APDU carries both ways (256 bytes of response data).
  var capabilities: LinkCapabilities { LinkCapabilities(maxResponseLength: 256, maxCommandLength: 261, rawCommands: true) }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    commands.append(command)
    guard case .data(let answer) = tag.respond(to: command) else { throw .tagRemoved }
    return answer
  }
  /// The native commands sent with instruction `ins` (ReadData ADh, WriteData 8Dh…).
  func count(_ ins: UInt8) -> Int { commands.filter { $0.count > 1 && $0[0] == 0x90 && $0[1] == ins }.count }
}
