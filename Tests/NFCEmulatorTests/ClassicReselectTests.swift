import NFCEmulator
import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private let uid: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
private let factoryKey = [UInt8](repeating: 0xFF, count: 6)
private let madKey: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
private func direct(_ pn532: [UInt8]) -> [UInt8] { [0xFF, 0x00, 0x00, 0x00, UInt8(pn532.count + 1), 0xD4] + pn532 }
/// InListPassiveTarget, one target at 106 kbps type A, through the ACR122U's direct transmit.
private let listPassiveTarget: [UInt8] = [0xFF, 0x00, 0x00, 0x00, 0x04, 0xD4, 0x4A, 0x01, 0x00]

/// A failed authentication leaves a MIFARE Classic silent until it is selected again (NXP AN1304
/// §6.4.1): the virtual card enforces it, each reader face answers accordingly, and the host links
/// select the card again before the next key.
@Suite struct ClassicReselectTests {
  // MARK: - The card

  @Test func aFailedAuthenticationSilencesTheCardUntilItIsSelectedAgain() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    #expect(tag.respond(to: [0x60, 0x04] + madKey + uid) == .mute)  // sector 1 has key A FF…FF
    #expect(tag.isHalted)
    #expect(tag.respond(to: [0x60, 0x04] + factoryKey + uid) == .mute, "the right key without a new selection")
    #expect(tag.respond(to: [0x30, 0x00]) == .mute)
    tag.reset()  // selected again
    #expect(!tag.isHalted)
    #expect(tag.respond(to: [0x60, 0x04] + factoryKey + uid) == .ack)
    #expect(tag.respond(to: [0x30, 0x04]) == .data([UInt8](repeating: 0, count: 16)))
  }

  // MARK: - The reader faces

  /// Through the PN532: error 14h, then 14h again for the right key, until InListPassiveTarget.
  @Test func thePN532FaceAnswersTheRightKeyOnlyAfterInListPassiveTarget() throws {
    let face = ACR122UFace(tag: try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid))
    #expect(face.transmit(direct(hex("40 01 60 04 A0A1A2A3A4A5 A1B2C3D4"))) == hex("D5 41 14 90 00"))
    #expect(face.transmit(direct(hex("40 01 60 04 FFFFFFFFFFFF A1B2C3D4"))) == hex("D5 41 14 90 00"), "not selected again")
    #expect(face.transmit(listPassiveTarget) == hex("D5 4B 01 01 00 04 08 04 A1 B2 C3 D4 90 00"))
    #expect(face.transmit(direct(hex("40 01 60 04 FFFFFFFFFFFF A1B2C3D4"))) == hex("D5 41 00 90 00"))
  }

  /// GENERAL AUTHENTICATE on both faces: `63 00` for the right key until the card is reset (and,
  /// on the ACR122U, until InListPassiveTarget too).
  @Test func generalAuthenticateAnswersTheRightKeyOnlyAfterANewSelection() throws {
    for (name, face, _) in try ClassicPseudoAPDUTests.faces() {
      #expect(face.transmit(hex("FF 82 00 00 06 A0A1A2A3A4A5")) == hex("90 00"))
      #expect(face.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("63 00"), "\(name): wrong key")
      #expect(face.transmit(hex("FF 82 00 00 06 FFFFFFFFFFFF")) == hex("90 00"))
      #expect(face.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("63 00"), "\(name): not selected again")
      face.reset()
      #expect(face.transmit(hex("FF 82 00 00 06 FFFFFFFFFFFF")) == hex("90 00"))
      #expect(face.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("90 00"), "\(name): after the reset")
    }
    let acr = ACR122UFace(tag: try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid))
    #expect(acr.transmit(hex("FF 82 00 00 06 A0A1A2A3A4A5")) == hex("90 00"))
    #expect(acr.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("63 00"))
    #expect(acr.transmit(listPassiveTarget) == hex("D5 4B 01 01 00 04 08 04 A1 B2 C3 D4 90 00"))
    #expect(acr.transmit(hex("FF 82 00 00 06 FFFFFFFFFFFF")) == hex("90 00"))
    #expect(acr.transmit(hex("FF 86 00 00 05 01 00 04 60 00")) == hex("90 00"), "after InListPassiveTarget")
  }

  // MARK: - The host

  static let message = ClassicHost.message(100)

  /// An NDEF card holding ``message`` whose sector 1 opens only with key A A0A1A2A3A4A5: the third
  /// key the host tries there (the NDEF public key, the factory key, then this one); key B is
  /// changed too, so that no key B opens it. With `thirdKey` false, the card as written.
  static func cardOpeningWithTheThirdKey(_ thirdKey: Bool = true) throws -> MIFAREClassicVirtualTag {
    let formatted = try MIFAREClassicVirtualTag.ndefFormatted(chip: .classic1K, uid: uid)
    let (writer, _) = try ClassicHost.connect(formatted, face: .acr122u)
    try writer.writeNDEF(message, verify: true)
    guard thirdKey else { return try MIFAREClassicVirtualTag(chip: .classic1K, image: formatted.memoryImage, uid: uid) }
    var image = formatted.memoryImage
    image.replaceSubrange(7 * 16 ..< 7 * 16 + 6, with: madKey)
    image.replaceSubrange(7 * 16 + 10 ..< 8 * 16, with: hex("0F1E2D3C4B5A"))
    return try MIFAREClassicVirtualTag(chip: .classic1K, image: image, uid: uid)
  }

  /// The card is read on both faces; the two refused keys cost one InListPassiveTarget each on
  /// the ACR122U and one reactivation and one GET DATA each on a Part 3 reader: 4 exchanges more
  /// than the same card opening with the first key on the ACR122U (2 authentications, 2
  /// selections), 9 on a Part 3 reader (3 LOAD KEYS: the two refused keys, and the NDEF key for
  /// sector 2 again, since a reactivation forgets what the key slots hold; 2 GENERAL
  /// AUTHENTICATE, 2 reactivations, 2 GET DATA).
  @Test(arguments: classicKeyFaces)
  func aSectorThatOpensWithTheThirdKeyIsRead(face: ReaderFaceKind) throws {
    var exchanges: [Int] = []
    for thirdKey in [false, true] {
      let tag = try Self.cardOpeningWithTheThirdKey(thirdKey)
      let recorder = RecordingTransport(SimulatedAPDUTransport(readerName: face.simulatedReaderName, card: try face.makeFace(tag: tag)))
      let platform = try #require(try makePlatform(for: try detectTarget(on: recorder)) as? MIFAREClassicTag)
      #expect(try platform.readNDEF() == Self.message)
      #expect(platform.openedWith[1]?.type == .a)
      #expect(platform.openedWith[1]?.key == (thirdKey ? madKey : MIFAREClassicNDEF.publicKeyA))
      let selections = recorder.sent.filter { $0 == listPassiveTarget }.count
      switch face {
      case .acr122u: #expect(selections == (thirdKey ? 2 : 0) && recorder.reactivations == 0)
      default:
        #expect(selections == 0 && recorder.reactivations == (thirdKey ? 2 : 0))
        #expect(recorder.sent.filter { $0 == getData }.count == 1 + (thirdKey ? 2 : 0), "detection's, then one per reactivation")
      }
      exchanges.append(recorder.sent.count + recorder.reactivations)
    }
    #expect(exchanges[1] - exchanges[0] == (face == .acr122u ? 4 : 9))
  }

  /// The same card through a transport that keeps the card from being selected again: the
  /// silent card refuses the third key too, and the read fails. This is what the host's new
  /// selection is for.
  @Test(arguments: classicKeyFaces)
  func withoutANewSelectionTheThirdKeyIsRefused(face: ReaderFaceKind) throws {
    let (failure, transport) = try Self.readFailure(face: face, through: NoNewSelection.init)
    guard case .authenticationFailed? = failure else {
      Issue.record("expected an authentication failure, got \(String(describing: failure))")
      return
    }
    #expect(transport.kept > 0)
  }

  /// What reading ``cardOpeningWithTheThirdKey(_:)`` on `face` throws through the face's
  /// transport wrapped by `wrap`, and the wrapper.
  static func readFailure<T: APDUTransport>(face: ReaderFaceKind, through wrap: (any APDUTransport) -> T) throws -> (TagError?, T) {
    let tag = try cardOpeningWithTheThirdKey()
    let transport = wrap(SimulatedAPDUTransport(readerName: face.simulatedReaderName, card: try face.makeFace(tag: tag)))
    let platform = try #require(try makePlatform(for: try detectTarget(on: transport)) as? MIFAREClassicTag)
    return (#expect(throws: TagError.self) { try platform.readNDEF() }, transport)
  }
}

extension ClassicReselectTests {
  /// A new selection (the ACR122U's InListPassiveTarget, a Part 3 reader's reactivation and GET
  /// DATA) that finds another card (another UID) is the card's removal: nothing goes on with the
  /// other card.
  @Test(arguments: classicKeyFaces)
  func aNewSelectionFindingAnotherCardIsTheRemoval(face: ReaderFaceKind) throws {
    let (failure, transport) = try Self.readFailure(face: face, through: AnotherCardOnSelection.init)
    guard case .transceive(.tagRemoved, _, _)? = failure else {
      Issue.record("expected the tag's removal, got \(String(describing: failure))")
      return
    }
    #expect(transport.swapped)
  }
}

/// GET DATA for the UID (PC/SC Part 3).
private let getData: [UInt8] = [0xFF, 0xCA, 0x00, 0x00, 0x00]

/// A transport on which another card takes the first's place at its first new selection: its
/// InListPassiveTarget finds a card with another UID, and after a reactivation GET DATA gives
/// another UID.
private final class AnotherCardOnSelection: WrappingAPDUTransport {
  let base: any APDUTransport
  /// The other card came.
  private(set) var swapped = false
  init(_ base: any APDUTransport) { self.base = base }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    if apdu == listPassiveTarget {
      swapped = true
      return hex("D5 4B 01 01 00 04 08 04 0E 0F 10 11 90 00")
    }
    if swapped, apdu == getData { return hex("0E 0F 10 11 90 00") }
    return try base.transmit(apdu)
  }
  func reactivateCard() throws(TransceiveError) {
    try base.reactivateCard()
    swapped = true
  }
}

/// A transport that keeps every new selection from the card: InListPassiveTarget is answered as
/// if the card had been found, and a reactivation does nothing.
private final class NoNewSelection: WrappingAPDUTransport {
  let base: any APDUTransport
  /// New selections kept from the card.
  private(set) var kept = 0
  init(_ base: any APDUTransport) { self.base = base }
  func transmit(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard apdu != listPassiveTarget else {
      kept += 1
      return hex("D5 4B 01 01 00 04 08 04 A1 B2 C3 D4 90 00")
    }
    return try base.transmit(apdu)
  }
  func reactivateCard() throws(TransceiveError) { kept += 1 }
}
