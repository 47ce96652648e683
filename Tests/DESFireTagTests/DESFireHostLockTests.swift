import DESFire
import DESFireEmulator
import DESFireTag
import NFCEmulator
import NFCTags
import NFCTransport
import Testing

/// The host's ChangeFileSettings (5Fh, MF3ICDx21_41_81 §9) and the lock of AN11004's NDEF
/// application (the NDEF file write-never, then the CC's write access FFh) against the virtual
/// card, which deciphers and checks every cryptogram; a cut at every command of the lock.
@Suite struct DESFireHostLockTests {
  static let zeroDES = try! DESFireKeyMaterial(.des, [UInt8](repeating: 0, count: 8))
  static let zeroAES = try! DESFireKeyMaterial(.aes, [UInt8](repeating: 0, count: 16))
  static let app = DESFireApplicationID(0x00BEEF)!
  static let message: [UInt8] = [0xD1, 0x01, 0x05, 0x55, 0x04, 0x61, 0x2E, 0x62, 0x63]

  /// A link to a virtual DESFire that records the commands and can lose the card after `cutAfter`
  /// commands: before the next reaches it, or (`answerLost`) after it ran and before its answer.
  final class CutLink: Transceiver {
    let tag: DESFireVirtualTag
    var cutAfter: Int?
    var answerLost = false
    private(set) var sent: [[UInt8]] = []
    init(_ tag: DESFireVirtualTag, cutAfter: Int? = nil, answerLost: Bool = false) {
      self.tag = tag
      self.cutAfter = cutAfter
      self.answerLost = answerLost
    }
    var capabilities: LinkCapabilities { .init(maxResponseLength: 256, maxCommandLength: 250, rawCommands: true) }
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

  static func platform(_ link: CutLink) -> Type4Tag {
    Type4Tag(identifier: link.tag.identifier, link: link, atr: [0x3B, 0x86, 0x80, 0x01] + DESFireVirtualTag.ats + [0x00])
  }

  /// A card `format` made (its application's keys of `keyType`), holding ``message``.
  static func formattedCard(_ keyType: DESFireKeyAlgorithm = .des) throws -> DESFireVirtualTag {
    let tag = try DESFireVirtualTag(chip: .ev1With4K)
    tag.security = OpenSSLDESFireSecurity()
    let platform = platform(CutLink(tag))
    platform.desfireFormatOptions = DESFireNDEFFormatOptions(applicationKeyType: keyType)
    try platform.format()
    try Self.platform(CutLink(tag)).writeNDEF(message, verify: true)
    return tag
  }

  static func zeroKey(_ kind: DESFireSecretKey.Kind) -> DESFireTag.DESFireSecretKey { DESFireTag.DESFireSecretKey.zero(kind) }

  /// The NDEF file's rights on the card (read, write, read&write, change) and the CC's byte 14.
  static func state(_ tag: DESFireVirtualTag) -> (access: UInt16?, ccWrite: UInt8?) {
    let application = tag.applications.first { $0.aid == 1 }
    return (application?.files[2]?.access.word, application?.files[1]?.data.dropFirst(14).first)
  }

  @Test(arguments: [DESFireKeyAlgorithm.des, .aes])
  func changeFileSettingsPlainAndUnderASession(_ type: DESFireKeyAlgorithm) throws {
    let link = try CountingDESFireLink()
    let card = DESFireCard(link: link)
    try card.createApplication(Self.app, settings: 0x0F, keyCount: 2, keyType: type)
    try card.selectApplication(Self.app)
    try card.createStandardDataFile(1, access: .free, size: 32)
    try card.createStandardDataFile(2, access: DESFireFileAccess(read: 0x0E, write: 0x0E, readWrite: 0x0E, change: 0x00), size: 32)
    // Change free: plain, no session needed.
    let macOnly = DESFireFileAccess(read: 0x00, write: 0x0E, readWrite: 0x01, change: 0x0E)
    try card.changeFileSettings(1, communication: .mac, access: macOnly, changeRight: 0x0E)
    #expect(try card.fileSettings(1).access == macOnly)
    #expect(try card.fileSettings(1).communication == .mac)
    // Change key 0: refused before sending without an EV1 session.
    let sentBefore = link.sent.count
    let readOnly = DESFireFileAccess(read: 0x0E, write: 0x0F, readWrite: 0x0F, change: 0x0F)
    #expect(throws: DESFireCommandError.self) {
      try card.changeFileSettings(2, communication: .plain, access: readOnly, changeRight: 0x00)
    }
    #expect(link.sent.count == sentBefore)
    // Key 1 authenticated: the card says 9D.
    let key = type == .aes ? Self.zeroAES : Self.zeroDES
    try card.authenticate(type == .aes ? .aes : .iso, keyNumber: 1, key: key)
    do {
      try card.changeFileSettings(2, communication: .plain, access: readOnly, changeRight: 0x00)
      Issue.record("ChangeFileSettings with key 1 was taken")
    } catch {
      #expect(error.status == .permissionDenied, "\(error)")
    }
    // Key 0: enciphered with its CRC32, the answer's CMAC checked, the session going on.
    try card.authenticate(type == .aes ? .aes : .iso, keyNumber: 0, key: key)
    try card.changeFileSettings(2, communication: .plain, access: readOnly, changeRight: 0x00)
    #expect(card.secureMessaging != nil)
    #expect(try card.fileSettings(2).access == readOnly)  // in the session: its CMAC checked
    #expect(link.tag.applications.first { $0.aid == Self.app.value }?.files[2]?.access.word == 0xEFFF)
    // Never: refused before sending.
    #expect(throws: DESFireCommandError.self) {
      try card.changeFileSettings(2, communication: .plain, access: .free, changeRight: 0x0F)
    }
  }

  @Test(arguments: [DESFireKeyAlgorithm.des, .aes])
  func lockMakesAFormattedCardReadOnlyAndTheMessageStays(_ type: DESFireKeyAlgorithm) throws {
    let tag = try Self.formattedCard(type)
    #expect(Self.state(tag).access == 0xEEE0 && Self.state(tag).ccWrite == 0x00)
    let link = CutLink(tag)
    let outcome = try DESFireCard(link: link).lockNDEF(key: Self.zeroKey)
    #expect(outcome == .locked)
    // Read E, write F, read&write F, change F; the CC's NDEF file write access FFh.
    #expect(Self.state(tag).access == 0xEFFF)
    #expect(Self.state(tag).ccWrite == 0xFF)
    // The ChangeFileSettings went enciphered (FileNo plain, then whole cipher blocks).
    let change = try #require(link.sent.first { $0.count > 5 && $0[0] == 0x90 && $0[1] == 0x5F })
    #expect(change[5] == 0x02 && (Int(change[4]) - 1) % (type == .aes ? 16 : 8) == 0)
    #expect(try Self.platform(CutLink(tag)).queryNDEFStatus().status == .readOnly)
    #expect(try Self.platform(CutLink(tag)).readNDEF() == Self.message)
    #expect(throws: TagError.self) { try Self.platform(CutLink(tag)).writeNDEF([0xD0, 0x00, 0x00], verify: true) }
    #expect(try Self.platform(CutLink(tag)).readNDEF() == Self.message)
    // Again: nothing to do, nothing written, no key asked.
    let again = CutLink(tag)
    #expect(try DESFireCard(link: again).lockNDEF { _ throws(DESFireCommandError) in
      throw .invalidArgument("no key is needed")
    } == .alreadyReadOnly)
    #expect(!again.sent.contains { $0.count > 1 && [0x5F, 0xD6].contains($0[1]) })
  }

  @Test func aWrongKeyChangesNothing() throws {
    let tag = try Self.formattedCard(.aes)
    let wrong = try #require(try? DESFireTag.DESFireSecretKey.parse(Array("00112233445566778899AABBCCDDEEFF".utf8), kind: .aes, what: "key",
                                                   origin: "test").get())
    do {
      _ = try DESFireCard(link: CutLink(tag)).lockNDEF { _ in wrong }
      Issue.record("a wrong key locked the card")
    } catch {
      #expect(error.status == .authenticationError, "\(error)")
      #expect(!"\(error)".contains("00112233"))
    }
    #expect(Self.state(tag).access == 0xEEE0 && Self.state(tag).ccWrite == 0x00)
  }

  @Test func aLockCutAtAnyCommandIsFinishedByLockingAgain() throws {
    let count = try {
      let link = CutLink(try Self.formattedCard())
      _ = try DESFireCard(link: link).lockNDEF(key: Self.zeroKey)
      return link.sent.count
    }()
    #expect(count > 5)
    for answerLost in [false, true] {
      for cut in 0..<count {
        let tag = try Self.formattedCard()
        #expect(throws: DESFireCommandError.self, "cut after \(cut)") {
          try DESFireCard(link: CutLink(tag, cutAfter: cut, answerLost: answerLost)).lockNDEF(key: Self.zeroKey)
        }
        // Cut short: the message is whole, and the file is write-never or the CC says writable.
        let (access, ccWrite) = Self.state(tag)
        #expect(access == 0xEEE0 || access == 0xEFFF, "cut after \(cut)")
        #expect(ccWrite == 0x00 || access == 0xEFFF, "cut after \(cut): the CC says read-only before the file is")
        #expect(try Self.platform(CutLink(tag)).readNDEF() == Self.message, "cut after \(cut)")
        if access == 0xEFFF {
          // The file refuses writes already, whatever the CC says.
          #expect(throws: TagError.self) { try Self.platform(CutLink(tag)).writeNDEF([0xD0, 0x00, 0x00], verify: false) }
        }
        let outcome = try DESFireCard(link: CutLink(tag)).lockNDEF(key: Self.zeroKey)
        let done = access == 0xEFFF && ccWrite == 0xFF  // cut in the last read-back
        #expect(outcome == (done ? .alreadyReadOnly : .locked), "cut after \(cut), answer lost: \(answerLost)")
        #expect(Self.state(tag).access == 0xEFFF && Self.state(tag).ccWrite == 0xFF, "cut after \(cut)")
        #expect(try Self.platform(CutLink(tag)).readNDEF() == Self.message)
      }
    }
  }
}
