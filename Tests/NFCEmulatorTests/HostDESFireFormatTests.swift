import NFCTags
import NFCTransport
import Testing
@testable import NFCEmulator

/// The host's `format` of a MIFARE DESFire (AN11004, as libfreefare makes it) against the virtual
/// card, through the Type 4 platform: the bytes, the result read back, and a cut at every command.
@Suite struct HostDESFireFormatTests {
  /// A link to a virtual DESFire that records the commands, and can lose the card after `cutAfter`
  /// commands: before the next reaches it, or (`answerLost`) after it ran and before its answer.
  final class CardLink: Transceiver {
    let tag: DESFireVirtualTag
    var cutAfter: Int?
    var answerLost = false
    private(set) var sent: [[UInt8]] = []
    init(_ tag: DESFireVirtualTag, cutAfter: Int? = nil, answerLost: Bool = false) {
      self.tag = tag
      self.cutAfter = cutAfter
      self.answerLost = answerLost
    }
    var capabilities: LinkCapabilities { .init(maxResponseLength: 256, maxCommandLength: 261, rawCommands: true) }
    func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
      if let cutAfter, sent.count >= cutAfter {
        if answerLost, sent.count == cutAfter { sent.append(command); _ = tag.respond(to: command) }
        throw .tagRemoved
      }
      sent.append(command)
      guard case .data(let answer) = tag.respond(to: command) else { throw .timeout }
      return answer
    }
  }

  static let acr122uATR: [UInt8] = [0x3B, 0x86, 0x80, 0x01] + DESFireVirtualTag.ats + [0x00]

  static func platform(_ link: CardLink) -> Type4Tag {
    Type4Tag(identifier: link.tag.identifier, link: link, atr: acr122uATR)
  }

  static let message: [UInt8] = [0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x2E, 0x62, 0x63]

  @Test func formatCreatesTheAN11004ApplicationAndTheType4PathUsesIt() throws {
    let tag = try DESFireVirtualTag.factory(.ev1With4K)
    let link = CardLink(tag)
    try Self.platform(link).format()
    // libfreefare's application: 000001, KS 0F, one DES key with ISO file IDs, E110, D2760000850101.
    #expect(link.sent.contains(desfireBytes("90 CA 00 00 0E 01 00 00 0F 21 10 E1 D2 76 00 00 85 01 01 00")))
    #expect(link.sent.contains(desfireBytes("90 CD 00 00 09 01 03 E1 00 E0 EE 0F 00 00 00")))
    // libfreefare's 4096 bytes do not fit beside the CC file in 4096 free: 4064 (0FE0h).
    #expect(link.sent.contains(desfireBytes("90 CD 00 00 09 02 04 E1 00 E0 EE E0 0F 00 00")))
    #expect(link.sent.contains(desfireBytes("90 3D 00 00 16 01 00 00 00 0F 00 00 00 0F 20 00 3B 00 34 04 06 E1 04 0F E0 00 00 00")))
    // A new connection reads it with ISO SELECT and READ BINARY only, writes and reads a message.
    let again = Self.platform(CardLink(tag))
    let status = try again.queryNDEFStatus()
    #expect(status.capacity == 4064 - 2)
    try again.writeNDEF(Self.message, verify: true)
    #expect(try Self.platform(CardLink(tag)).readNDEF() == Self.message)
    let info = try Self.platform(CardLink(tag)).info()
    #expect(info.chip == "MIFARE DESFire EV1 4K")
    // Formatting the formatted card writes an empty message, nothing else.
    let link2 = CardLink(tag)
    try Self.platform(link2).format()
    #expect(!link2.sent.contains { $0.count > 1 && $0[0] == 0x90 && $0[1] == 0xCA })
    #expect(try Self.platform(CardLink(tag)).readNDEF() == [])
  }

  @Test func theNDEFFileFitsTheFreeMemoryOfA2KCard() throws {
    let tag = try DESFireVirtualTag.factory(.ev1With2K)
    try Self.platform(CardLink(tag)).format()
    // libfreefare's 2048 bytes do not fit beside the CC file's 32: the file takes what is left.
    #expect(try Self.platform(CardLink(tag)).queryNDEFStatus().capacity == 2016 - 2)
  }

  @Test func aCardThatCannotTakeItIsRefusedBeforeAnyWrite() throws {
    let locked = try DESFireVirtualTag.factory(.ev1With4K)
    locked.picc.keySettings = 0x09  // create and delete need the PICC master key
    let link = CardLink(locked)
    #expect(throws: TagError.self) { try Self.platform(link).format() }
    #expect(locked.applications.isEmpty)
    #expect(!link.sent.contains { $0.count > 1 && [0xCA, 0xCD, 0x3D].contains($0[1]) })

    let full = try DESFireVirtualTag.factory(.ev1With4K)
    full.freeMemory = 40
    do {
      try Self.platform(CardLink(full)).format()
      Issue.record("format of a full card did not fail")
    } catch {
      #expect("\(error)".contains("not enough free memory"), "\(error)")
    }
    #expect(full.applications.isEmpty)

    // Application 000001 of something else (Android's layout has the DF name; this one has none).
    let taken = try DESFireVirtualTag.factory(.ev1With4K)
    #expect(taken.send("90 CA 00 00 05 01 00 00 0F 01 00") == desfireBytes("91 00"))
    do {
      try Self.platform(CardLink(taken)).format()
      Issue.record("format over another application 000001 did not fail")
    } catch {
      #expect("\(error)".contains("not AN11004's NDEF application"), "\(error)")
    }
    #expect(taken.applications.count == 1 && taken.applications.first?.files.isEmpty == true)
  }

  @Test func aFormatCutAtAnyCommandIsFinishedByFormattingAgain() throws {
    let count = try {
      let link = CardLink(try DESFireVirtualTag.factory(.ev1With4K))
      try Self.platform(link).format()
      return link.sent.count
    }()
    for answerLost in [false, true] {
      for cut in 0..<count {
        let tag = try DESFireVirtualTag.factory(.ev1With4K)
        #expect(throws: TagError.self, "cut after \(cut)") {
          try Self.platform(CardLink(tag, cutAfter: cut, answerLost: answerLost)).format()
        }
        // Cut short, the card holds no NDEF or an empty message: never a message read from nothing.
        do {
          #expect(try Self.platform(CardLink(tag)).readNDEF() == [], "cut after \(cut)")
        } catch {
          #expect(error.description.contains("not NDEF formatted") || error.description.contains("malformed"), "\(error)")
        }
        try Self.platform(CardLink(tag)).format()
        let platform = Self.platform(CardLink(tag))
        try platform.writeNDEF(Self.message, verify: true)
        #expect(try Self.platform(CardLink(tag)).readNDEF() == Self.message, "cut after \(cut), answer lost: \(answerLost)")
        #expect(platform.capabilityContainer?.ndefFileSize == 4064, "cut after \(cut)")
      }
    }
  }
}
