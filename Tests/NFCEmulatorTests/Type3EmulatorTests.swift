import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing
@testable import NFCEmulator

private let idm = FeliCaLiteSVirtualTag.defaultIDm

/// `LEN 06 IDm 01 SC m 80 b…`: Check of `blocks` (below 256) in `service` (little-endian bytes).
private func checkFrame(_ blocks: [UInt8], service: [UInt8] = [0x0B, 0x00], to id: [UInt8] = idm) -> [UInt8] {
  let body: [UInt8] = [0x06] + id + [0x01] + service + [UInt8(blocks.count)] + blocks.flatMap { [0x80, $0] }
  return [UInt8(body.count + 1)] + body
}

/// `LEN 08 IDm 01 SC 01 80 b data`: Update of one block.
private func updateFrame(_ block: UInt8, _ data: [UInt8], service: [UInt8] = [0x09, 0x00]) -> [UInt8] {
  let body: [UInt8] = [0x08] + idm + [0x01] + service + [0x01, 0x80, block] + data
  return [UInt8(body.count + 1)] + body
}

private func flags(_ response: TagResponse) -> [UInt8]? {
  guard case .data(let bytes) = response, bytes.count >= 12 else { return nil }
  return Array(bytes[10..<12])
}

private func blockData(_ response: TagResponse) -> [UInt8]? {
  guard case .data(let bytes) = response, bytes.count >= 13, bytes[10] == 0, bytes[11] == 0 else { return nil }
  return Array(bytes[13...])
}

private let factoryAttributes = hex("10 04 01 000D 00000000 00 01 000000 0023")

@Suite struct FeliCaLiteSCommands {
  @Test func pollingAnswersTheNDEFSystemCode() throws {
    let tag = try FeliCaLiteSVirtualTag()
    #expect(tag.respond(to: hex("06 00 12FC 01 00")) == .data(hex("14 01") + idm + hex("00F1000000014300 12FC")))
    #expect(tag.respond(to: hex("06 00 FFFF 00 00")) == .data(hex("12 01") + idm + hex("00F1000000014300")))
    #expect(tag.respond(to: hex("06 00 88B4 01 00")) == .mute)
    #expect(tag.respond(to: hex("07 00 12FC 01 00")) == .mute)   // LEN does not match
    #expect(tag.technology == .felica(pmm: hex("00F1000000014300"), systemCode: hex("12FC")))
  }

  @Test func factoryContentIsAnEmptyNDEFTag() throws {
    let tag = try FeliCaLiteSVirtualTag()
    #expect(blockData(tag.respond(to: checkFrame([0x00]))) == factoryAttributes)
    #expect(blockData(tag.respond(to: checkFrame([0x88]))) == hex("FFFFFF0107") + [UInt8](repeating: 0, count: 11))
    #expect(blockData(tag.respond(to: checkFrame([0x83]))) == idm + hex("00F1000000014300"))
    #expect(blockData(tag.respond(to: checkFrame([0x01, 0x02, 0x03, 0x0D]))) == [UInt8](repeating: 0, count: 64))
    #expect(tag.memoryImage.count == 20 * 16)
  }

  @Test func checkErrors() throws {
    let tag = try FeliCaLiteSVirtualTag()
    #expect(flags(tag.respond(to: checkFrame([0, 1, 2, 3, 4]))) == hex("FF A2"))           // five blocks
    #expect(flags(tag.respond(to: checkFrame([0], service: [0x4B, 0x00]))) == hex("01 A6")) // no such service
    #expect(flags(tag.respond(to: checkFrame([0, 0x20]))) == hex("02 A8"))                // block 20h does not exist
    #expect(flags(tag.respond(to: checkFrame([0x87]))) == hex("01 A8"))                   // CK is write-only
    let twoServices = hex("12 06") + idm + hex("02 0B00 0900 01 8000")
    #expect(flags(tag.respond(to: twoServices)) == hex("FF A1"))
    #expect(tag.respond(to: checkFrame([0], to: hex("0102030405060708"))) == .mute)      // another IDm
    #expect(blockData(tag.respond(to: checkFrame([0], service: [0x09, 0x00]))) == factoryAttributes)
  }

  @Test func updateWritesOneBlockAndCountsWrites() throws {
    let tag = try FeliCaLiteSVirtualTag()
    let data = [UInt8](0..<16)
    #expect(flags(tag.respond(to: updateFrame(0x05, data))) == hex("00 00"))
    #expect(tag.memoryGeneration == 1)
    #expect(blockData(tag.respond(to: checkFrame([0x05]))) == data)
    #expect(blockData(tag.respond(to: checkFrame([0x90])))?.prefix(3) == [0x01, 0x00, 0x00])   // WCNT
    #expect(flags(tag.respond(to: updateFrame(0x05, data, service: [0x0B, 0x00]))) == hex("01 A6"))  // read service
    #expect(flags(tag.respond(to: updateFrame(0x83, data))) == hex("01 A8"))                        // D_ID
    let two = hex("32 08") + idm + hex("01 0900 02 8001 8002") + data + data
    #expect(flags(tag.respond(to: two)) == hex("FF A2"))
    #expect(tag.memoryGeneration == 1)
  }

  @Test func memoryConfigurationBitsAreOneWay() throws {
    let tag = try FeliCaLiteSVirtualTag()
    var mc = hex("FFFFFF0107") + [UInt8](repeating: 0, count: 11)
    mc[0] = 0xDF                                                             // S_PAD5 read-only
    #expect(flags(tag.respond(to: updateFrame(0x88, mc))) == hex("00 00"))
    #expect(flags(tag.respond(to: updateFrame(0x05, [UInt8](repeating: 1, count: 16)))) == hex("01 A8"))
    mc[0] = 0xFF                                                             // back to read/write: refused
    #expect(flags(tag.respond(to: updateFrame(0x88, mc))) == hex("01 A8"))
    mc[0] = 0xDF
    mc[3] = 0x00                                                             // NDEF off: answers 88B4
    #expect(flags(tag.respond(to: updateFrame(0x88, mc))) == hex("00 00"))
    #expect(tag.respond(to: hex("06 00 12FC 01 00")) == .mute)
    #expect(tag.respond(to: hex("06 00 FFFF 01 00")) == .data(hex("14 01") + idm + hex("00F1000000014300 88B4")))
    mc[2] = 0x00                                                             // MC_ALL read-only
    #expect(flags(tag.respond(to: updateFrame(0x88, mc))) == hex("00 00"))
    mc[3] = 0x01
    #expect(flags(tag.respond(to: updateFrame(0x88, mc))) == hex("01 A8"))  // MC bytes 2-5 frozen
    #expect(flags(tag.respond(to: updateFrame(0x86, [UInt8](repeating: 0, count: 16)))) == hex("01 A8"))  // CKV
    mc[6] = 0x01                                                             // S_PAD0 needs authentication to read
    mc[3] = 0x00
    #expect(flags(tag.respond(to: updateFrame(0x88, mc))) == hex("00 00"))
    #expect(flags(tag.respond(to: checkFrame([0x01, 0x00]))) == hex("02 B1"))
  }

  @Test func imagesRoundTripAndBadSizesAreRefused() throws {
    let tag = try FeliCaLiteSVirtualTag(idm: hex("01 2E 00 11 22 33 44 55"))
    _ = tag.respond(to: updateFrame(0x03, [UInt8](repeating: 0xAB, count: 16)))
    let copy = try FeliCaLiteSVirtualTag(image: tag.memoryImage)
    #expect(copy.identifier == hex("01 2E 00 11 22 33 44 55"))
    #expect(copy.memoryImage == tag.memoryImage)
    #expect(copy.memoryGeneration == 0)
    #expect(throws: EmulatorError.self) { try FeliCaLiteSVirtualTag(image: [UInt8](repeating: 0, count: 319)) }
    #expect(throws: EmulatorError.self) { try FeliCaLiteSVirtualTag(idm: [0x01, 0x2E]) }
    let kind = try VirtualTagKind.felicaLiteS.makeTag(uid: nil)
    #expect(kind.platform == .type3)
  }

  @Test func theACR122UListsItAndPassesFrames() throws {
    let face = ACR122UFace(tag: try FeliCaLiteSVirtualTag())
    #expect(face.atr == hex("3B8F8001 804F0CA0 00000306 03 F011 00000000 8A"))
    let listed = face.transmit(hex("FF000000 09 D4 4A 01 01 00 FFFF 01 00"))
    #expect(listed == hex("D5 4B 01 01 14 01") + idm + hex("00F1000000014300 12FC 9000"))
    #expect(face.transmit(hex("FF000000 09 D4 4A 01 01 00 88B4 01 00")) == hex("D5 4B 00 9000"))
    let raw = face.transmit(checkFrame([0x00]))
    #expect(raw == hex("1D 07") + idm + hex("00 00 01") + factoryAttributes + hex("9000"))
  }
}

// MARK: - The whole stack

/// ACR122U face → simulated slot → detectTarget → makePlatform.
private func platform(on tag: FeliCaLiteSVirtualTag, removeAfter: Int? = nil) throws -> (any NDEFTagPlatform, DetectedTarget) {
  let face = try ReaderFaceKind.acr122u.makeFace(tag: tag)
  let transport = SimulatedAPDUTransport(card: face, removeAfter: removeAfter)
  let target = try detectTarget(on: transport)
  return (try makePlatform(for: target), target)
}

private func textMessage(_ length: Int, seed: UInt8 = 0) -> [UInt8] {
  // A MIME record "text/plain" with a payload that makes the message `length` bytes long.
  let payload = (0..<(length - 13)).map { UInt8(truncatingIfNeeded: Int(seed) &+ $0 &* 7) }
  return [0xD2, 0x0A, UInt8(payload.count)] + Array("text/plain".utf8) + payload
}

private func runError(_ body: () throws -> Void) -> TagError? {
  do { try body() } catch let error as TagError { return error } catch { return nil }
  return nil
}

@Suite struct FeliCaLiteSStack {
  @Test func detectsWritesReadsFormatsErasesAndLocks() throws {
    let tag = try FeliCaLiteSVirtualTag()
    let (p, target) = try platform(on: tag)
    #expect(target.details.felicaPMm == hex("00F1000000014300"))
    #expect(target.details.readerFirmware?.hasPrefix("ACR122U") == true)  // FF 00 48 told the reader path
    #expect(target.details.historicalBytes.isEmpty && target.details.type2Version == nil)
    #expect(target.identifier == idm)
    let t3 = try #require(p as? Type3Tag)
    #expect(t3.chipName == "FeliCa Lite-S (RC-S966)")
    #expect(try p.queryNDEFStatus() == NDEFStatusReport(status: .readWrite, capacity: 208, messageLength: 0))
    #expect(try p.readNDEF() == [])

    let url = [0xD1, 0x01, 0x0C, 0x55, 0x04] + Array("example.org".utf8)   // https://example.org
    try p.writeNDEF(url, verify: true)
    #expect(try p.readNDEF() == url)
    let text = textMessage(150)
    try p.writeNDEF(text, verify: true)
    #expect(try platform(on: tag).0.readNDEF() == text)

    let before = tag.memoryImage
    let tooLarge = textMessage(209)
    guard case .insufficientCapacity(209, 208)? = runError({ try p.writeNDEF(tooLarge, verify: true) }) else {
      Issue.record("expected insufficientCapacity")
      return
    }
    #expect(tag.memoryImage == before)

    try p.erase()
    #expect(try p.readNDEF() == [])
    try p.writeNDEF(url, verify: true)
    try p.format()
    #expect(try p.readNDEF() == [])
    #expect(try p.readMemory() == tag.memoryImage)
    let info = try p.info()
    #expect(info.chip == "FeliCa Lite-S (RC-S966)")
    #expect(info.memorySize == 320)

    try p.writeNDEF(url, verify: true)
    try p.makeReadOnly()
    #expect(try p.queryNDEFStatus().status == .readOnly)
    guard case .readOnly? = runError({ try p.writeNDEF(text, verify: true) }) else {
      Issue.record("expected readOnly")
      return
    }
    #expect(try p.readNDEF() == url)
    // The lock holds even against raw writes: MC_SP bits of user blocks are cleared.
    #expect(flags(tag.respond(to: updateFrame(0x01, [UInt8](repeating: 0, count: 16)))) == hex("01 A8"))
    #expect(try p.info().lockState.contains("RWFlag 00"))
  }

  @Test func formatsAFactoryLiteSWithTheNDEFSystemCodeOff() throws {
    let tag = try FeliCaLiteSVirtualTag()
    var mc = hex("FFFFFF0007") + [UInt8](repeating: 0, count: 11)
    _ = tag.respond(to: updateFrame(0x88, mc))
    _ = tag.respond(to: updateFrame(0x00, [UInt8](repeating: 0, count: 16)))
    let (p, target) = try platform(on: tag)
    #expect(target.details.felicaSystemCode == hex("88B4"))
    #expect(try p.queryNDEFStatus().status == .notSupported)
    #expect(throws: TagError.self) { try p.readNDEF() }
    try p.format()
    mc[3] = 0x01
    #expect(blockData(tag.respond(to: checkFrame([0x88]))) == mc)
    #expect(blockData(tag.respond(to: checkFrame([0x00]))) == factoryAttributes)
    try p.writeNDEF(textMessage(40), verify: true)
    #expect(try platform(on: tag).0.readNDEF() == textMessage(40))
  }

  @Test func tearingLeavesTheOldTheNewOrAnEmptyMessage() throws {
    let old = textMessage(100, seed: 1)
    let new = textMessage(180, seed: 2)
    let setup = try FeliCaLiteSVirtualTag()
    try platform(on: setup).0.writeNDEF(old, verify: true)
    let image = setup.memoryImage

    // How many APDUs detection and the write take, untorn.
    let probe = try FeliCaLiteSVirtualTag(image: image)
    let face = try ReaderFaceKind.acr122u.makeFace(tag: probe)
    let transport = SimulatedAPDUTransport(card: face)
    let target = try detectTarget(on: transport)
    let detection = transport.answered
    try makePlatform(for: target).writeNDEF(new, verify: true)
    let total = transport.answered - detection
    #expect(total > 10)

    var outcomes: Set<String> = []
    for k in 1...total {
      let tag = try FeliCaLiteSVirtualTag(image: image)
      let (p, _) = try platform(on: tag, removeAfter: detection + k)
      do {
        try p.writeNDEF(new, verify: true)
      } catch {
        #expect(error.isTagLost, "k = \(k): \(error)")
      }
      let read = try platform(on: tag).0.readNDEF()
      #expect(read == old || read == new || read == [], "k = \(k): \(read.count) bytes")
      outcomes.insert(read == old ? "old" : read == new ? "new" : "empty")
    }
    #expect(outcomes == ["old", "new", "empty"])
  }

  @Test func roundTripsForAFullReadAndWrite() throws {
    let tag = try FeliCaLiteSVirtualTag()
    let (_, target) = try platform(on: tag)
    let full = textMessage(208, seed: 3)

    let writeLink = CountingTransceiver(target.link)
    let writer = Type3Tag(identifier: target.identifier, link: writeLink, pmm: target.details.felicaPMm,
                          systemCode: target.details.felicaSystemCode)
    try writer.writeNDEF(full, verify: true)
    // 4 Checks (attribute block, MC, 13 data blocks), WriteF 0F, 13 Updates, the final attribute
    // block, and 4 Checks of read-back. Naive (one block per command): 1 + 1 + 13 + 1 + 14 = 30.
    #expect(writeLink.count == 23)

    let readLink = CountingTransceiver(target.link)
    let reader = Type3Tag(identifier: target.identifier, link: readLink, pmm: target.details.felicaPMm,
                          systemCode: target.details.felicaSystemCode)
    #expect(try reader.readNDEF() == full)
    // 14 blocks at 4 per Check (the Lite-S limit; the ACR122U would carry 14): ⌈14/4⌉ = 4.
    // Naive: the attribute block, then 13 Checks of one block = 14.
    #expect(abs(readLink.count - 4) <= 1)
    #expect(readLink.count == 4)
  }
}
