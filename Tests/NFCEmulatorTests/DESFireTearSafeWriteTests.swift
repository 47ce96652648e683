import NFCReaders
import NFCTags
import NFCTransport
import Testing
@testable import NFCEmulator

/// A link that records the commands it passes on and can lose the card before UPDATE BINARY
/// number `cutBeforeUpdate` (0 the first) reaches it: the card left between two commands.
final class UpdateCuttingLink: Transceiver {
  let base: any Transceiver
  var cutBeforeUpdate: Int?
  private(set) var sent: [[UInt8]] = []
  init(_ base: any Transceiver, cutBeforeUpdate: Int? = nil) {
    self.base = base
    self.cutBeforeUpdate = cutBeforeUpdate
  }
  var capabilities: LinkCapabilities { base.capabilities }
  /// The UPDATE BINARYs sent (`00 D6`), whole.
  var updates: [[UInt8]] { sent.filter { $0.count > 1 && $0[0] == 0x00 && $0[1] == 0xD6 } }
  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    if let cutBeforeUpdate, command.count > 1, command[0] == 0x00, command[1] == 0xD6, updates.count >= cutBeforeUpdate {
      throw .tagRemoved
    }
    sent.append(command)
    return try base.transceive(command)
  }
}

/// `nfctag write` onto a MIFARE DESFire through the emulated ACR122U: a standard data file has no
/// tearing protection (MF3ICDx21_41_81 §9), so a message that fits one UPDATE BINARY still goes
/// in three, NLEN 0000, the data, NLEN (docs/tag-types.md, "Tear-safe write"), and a card that
/// leaves after the first holds an empty message, never a length over another message's bytes.
@Suite struct DESFireTearSafeWriteTests {
  static let message: [UInt8] = [0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x2E, 0x62, 0x63]  // URI https://a.bc
  static let old: [UInt8] = [0xD1, 0x01, 0x0A, 0x55, 0x04] + Array("old.example".utf8.prefix(9))

  /// A formatted card of `kind` (AN11004's NDEF application, as `nfctag format` makes it) holding `old`.
  func formattedCard(_ kind: VirtualTagKind) throws -> any VirtualTag {
    let tag = try kind.makeTag(uid: nil)
    try platform(tag).format()
    try platform(tag).writeNDEF(Self.old, verify: true)
    return tag
  }

  /// The Type 4 platform over the emulated ACR122U, through `link` around the reader's.
  func platform(_ tag: any VirtualTag, link: ((any Transceiver) -> UpdateCuttingLink)? = nil) throws -> Type4Tag {
    let face = try ReaderFaceKind.acr122u.makeFace(tag: tag)
    face.powerOff()
    face.powerOn()
    let target = try detectTarget(on: SimulatedAPDUTransport(readerName: ReaderFaceKind.acr122u.simulatedReaderName, card: face))
    return Type4Tag(identifier: target.identifier, link: link?(target.link) ?? target.link, atr: target.atr)
  }

  @Test(arguments: [VirtualTagKind.desfireEV1With4K, .desfireEV2With4K, .desfireEV3With4K])
  func aShortMessageIsNLENZeroTheDataThenNLEN(kind: VirtualTagKind) throws {
    let tag = try formattedCard(kind)
    var recorder: UpdateCuttingLink?
    let t4 = try platform(tag) { base in
      let link = UpdateCuttingLink(base)
      recorder = link
      return link
    }
    try t4.writeNDEF(Self.message, verify: true)
    #expect(recorder?.updates == [
      [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x00],                      // NLEN 0000: the file holds an empty message
      [0x00, 0xD6, 0x00, 0x02, 0x09] + Self.message,                    // the message at 2
      [0x00, 0xD6, 0x00, 0x00, 0x02, 0x00, 0x09],                       // NLEN 0009: the message is there
    ])
    #expect(try platform(tag).readNDEF() == Self.message)
  }

  /// The card leaves before the second or the third UPDATE BINARY: the file reads as an empty
  /// message (NLEN 0000) on the next connection; the old message's length is gone, and the new
  /// one's is written only after its bytes.
  @Test(arguments: [1, 2])
  func aWriteTornAfterTheFirstUpdateLeavesAnEmptyFile(cut: Int) throws {
    let tag = try formattedCard(.desfireEV1With4K)
    let t4 = try platform(tag) { UpdateCuttingLink($0, cutBeforeUpdate: cut) }
    #expect(throws: TagError.self) { try t4.writeNDEF(Self.message, verify: true) }
    let after = try platform(tag)
    #expect(try after.queryNDEFStatus().messageLength == 0)
    #expect(try after.readNDEF() == [])
  }
}
