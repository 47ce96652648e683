import NFCReaders
import NFCTags
import NFCTransport
import Testing
@testable import NFCEmulator

private func bytes(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  var high: UInt8?
  for c in text.unicodeScalars {
    guard let v = UInt8(String(c), radix: 16) else { continue }
    if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
  }
  return out
}

private let ok: [UInt8] = [0x90, 0x00]
private let selectV2 = bytes("00 A4 04 00 07 D2 76 00 00 85 01 01 00")
private let selectV1 = bytes("00 A4 04 00 07 D2 76 00 00 85 01 00")
private let selectCC = bytes("00 A4 00 0C 02 E1 03")
private let selectNDEF = bytes("00 A4 00 0C 02 E1 04")

extension Type4VirtualTag {
  /// The APDU's answer (data + SW1 SW2).
  fileprivate func apdu(_ text: String) -> [UInt8] {
    guard case .data(let answer) = respond(to: bytes(text)) else { return [] }
    return answer
  }
}

@Suite struct Type4VirtualTagTests {
  @Test func factoryContentAndIdentity() throws {
    let tag = try Type4VirtualTag()
    #expect(tag.platform == .type4)
    #expect(tag.identifier.count == 7 && tag.identifier.first == 0x04)
    #expect(tag.technology == .typeA(sensRes: [0x03, 0x44], selRes: 0x20, ats: bytes("06 77 77 71 02 80")))
    #expect(tag.memoryImage.count == 295 && Array(tag.memoryImage.suffix(7)) == tag.identifier)
    #expect(Array(tag.memoryImage[0..<23]) == bytes("0017 20 0100 00FF 0406 E104 0100 00 00 0506 E105 0080 82 83"))
    #expect(tag.memoryImage[32..<288].allSatisfy { $0 == 0 })          // NLEN 0000, empty file
    #expect(throws: EmulatorError.self) { try Type4VirtualTag(uid: [0x04, 0x01]) }
  }

  @Test func selectionRules() throws {
    let tag = try Type4VirtualTag()
    #expect(tag.apdu("00 A4 00 0C 02 E1 03") == bytes("6A 82"))        // no application selected yet
    #expect(tag.apdu("00 B0 00 00 02") == bytes("69 86"))               // no current file
    #expect(tag.apdu("00 A4 04 00 07 D2 76 00 00 85 01 02 00") == bytes("6A 82"))  // unknown name
    #expect(tag.respond(to: selectV2) == .data(ok))
    #expect(tag.apdu("00 A4 00 04 02 E1 03") == bytes("6A 86"))         // P2 04: not 00/0C
    #expect(tag.apdu("00 A4 00 0C 02 E1 99") == bytes("6A 82"))         // no such file
    #expect(tag.apdu("00 A4 00 0C 01 E1") == bytes("67 00"))            // FID of one byte
    #expect(tag.respond(to: selectV1) == .data(ok))                     // the v1 name works too
    #expect(tag.apdu("00 A4 00 00 02 E1 03") == ok)                     // P2 00 (v1 style)
    #expect(tag.apdu("00 B0 00 00 0F") == bytes("0017 20 0100 00FF 0406 E104 0100 00 00 9000"))
    tag.reset()                                                         // field off and on
    #expect(tag.apdu("00 B0 00 00 0F") == bytes("69 86"))
  }

  @Test func readBinaryLengthsAndErrors() throws {
    let tag = try Type4VirtualTag()
    _ = tag.respond(to: selectV2)
    _ = tag.respond(to: selectCC)
    #expect(tag.apdu("00 B0 00 00 00").count == 32 + 2)                 // Le 00: up to the end (32 bytes), 90 00
    let past = tag.apdu("00 B0 00 10 20")                               // 32 bytes asked from 16: 16 given, 62 82
    #expect(past.count == 18 && past.suffix(2) == [0x62, 0x82])
    #expect(tag.apdu("00 B0 00 20 01") == bytes("6B 00"))               // offset past the file
    #expect(tag.apdu("00 B0 81 00 02") == bytes("6A 81"))               // short file identifier: not supported
    #expect(tag.apdu("00 B0 00 00") == bytes("67 00"))                  // no Le
    #expect(tag.apdu("00 B0 00 00 00 01 00") == bytes("67 00"))         // extended Le
    #expect(tag.apdu("00 D6 00 00 01 FF") == bytes("69 82"))            // the CC is not writable
    _ = tag.respond(to: selectNDEF)
    #expect(tag.apdu("00 B0 00 00 00").count == 256 + 2)                // Le 00 = 256 bytes
    #expect(tag.apdu("00 A4 00 0C 02 E1 05") == ok)                     // the proprietary file: selectable,
    #expect(tag.apdu("00 B0 00 00 10") == bytes("69 82"))               // but protected by its AES key
    #expect(tag.apdu("00 CA 00 00 00") == bytes("6D 00"))               // unknown INS
    #expect(tag.apdu("80 B0 00 00 02") == bytes("6E 00"))               // unknown CLA
    #expect(tag.respond(to: []) == .mute)
  }

  @Test func updateBinaryAndTheGeneration() throws {
    let tag = try Type4VirtualTag()
    _ = tag.respond(to: selectV2)
    _ = tag.respond(to: selectNDEF)
    #expect(tag.apdu("00 D6 00 00 04 00 02 D0 00") == ok)
    #expect(tag.memoryGeneration == 1)
    #expect(Array(tag.memoryImage[32..<36]) == [0x00, 0x02, 0xD0, 0x00])
    #expect(tag.apdu("00 D6 01 00 01 00") == bytes("6B 00"))            // offset 256: past the file
    #expect(tag.apdu("00 D6 00 FF 02 00 00") == bytes("67 00"))         // runs past the end
    #expect(tag.apdu("00 D6 00 00") == bytes("67 00"))                  // no data
    #expect(tag.memoryGeneration == 1)
  }

  @Test func permanentLockAndImageRoundTrip() throws {
    let tag = try Type4VirtualTag()
    _ = tag.respond(to: selectV2)
    #expect(tag.apdu("A2 28 00 02") == bytes("69 86"))                  // needs the NDEF file selected
    _ = tag.respond(to: selectNDEF)
    #expect(tag.apdu("A2 28 00 03") == bytes("6A 86"))
    #expect(tag.apdu("A2 28 00 02") == ok)
    #expect(tag.memoryImage[14] == 0xFF)                                // CC write access byte
    #expect(tag.apdu("00 D6 00 00 02 00 05") == bytes("69 82"))         // writes refused for good
    let again = try Type4VirtualTag(image: tag.memoryImage)
    _ = again.respond(to: selectV2)
    _ = again.respond(to: selectNDEF)
    #expect(again.apdu("00 D6 00 00 02 00 05") == bytes("69 82"))       // the lock survives the image
    #expect(again.memoryImage == tag.memoryImage)
    #expect(throws: EmulatorError.self) { try Type4VirtualTag(image: [UInt8](repeating: 0, count: 256)) }
    #expect(throws: EmulatorError.self) { try VirtualTagKind.type4.makeTag(image: [UInt8](repeating: 0, count: 289)) }
  }

  @Test func acr122uShowsTheATSAndCapsTheAnswer() throws {
    let face = ACR122UFace(tag: try Type4VirtualTag())
    var atr = bytes("3B 86 80 01 06 77 77 71 02 80")
    atr.append(atr.dropFirst().reduce(0, ^))
    #expect(face.atr == atr)
    #expect(face.transmit(bytes("FF CA 01 00 00")) == bytes("06 77 77 71 02 80 90 00"))
    #expect(face.transmit(selectV2) == ok)
    #expect(face.transmit(selectNDEF) == ok)
    #expect(face.transmit(bytes("00 B0 00 00 FA")).count == 252)       // 250 data bytes + SW: one PN532 frame
    #expect(face.transmit(bytes("00 B0 00 00 00")) == bytes("63 00"))   // 256 + SW: more than a PN532 frame
    let list = face.transmit(bytes("FF 00 00 00 04 D4 4A 01 00"))       // InListPassiveTarget 106A
    #expect(list == bytes("D5 4B 01 01 03 44 20 07") + (face.tag?.identifier ?? []) + bytes("06 77 77 71 02 80 90 00"))
  }
}

// MARK: - The whole in-process stack

/// Messages of the sizes people write: a Text record and a URL.
private func textRecord(_ text: String) -> [UInt8] {
  let payload: [UInt8] = [0x02, 0x65, 0x6E] + Array(text.utf8)
  return [0xD1, 0x01, UInt8(payload.count), 0x54] + payload
}
private func uriRecord(_ rest: String) -> [UInt8] {
  let payload: [UInt8] = [0x04] + Array(rest.utf8)   // 04 = "https://"
  return [0xD1, 0x01, UInt8(payload.count), 0x55] + payload
}
/// A message of exactly `count` bytes (an unknown-type record with a filler payload).
private func message(ofSize count: Int) -> [UInt8] {
  let payloadCount = count - 3
  return [0xD5, 0x00, UInt8(payloadCount)] + (0..<payloadCount).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }
}

private func platform(on face: any VirtualCard, removeAfter: Int? = nil) throws -> (any NDEFTagPlatform, DetectedTarget, SimulatedAPDUTransport) {
  let transport = SimulatedAPDUTransport(readerName: ReaderFaceKind.acr122u.simulatedReaderName, card: face,
                                         removeAfter: removeAfter)
  let target = try detectTarget(on: transport)
  return (try makePlatform(for: target), target, transport)
}

private func caught(_ body: () throws -> Void) -> (any Error)? {
  do {
    try body()
    return nil
  } catch {
    return error
  }
}

@Suite struct Type4StackTests {
  @Test func writesReadsFormatsErasesAndLocksThroughTheACR122U() throws {
    let tag = try Type4VirtualTag()
    let face = try ReaderFaceKind.acr122u.makeFace(tag: tag)
    let (t4, target, _) = try platform(on: face)
    #expect(target.platform == .type4)
    #expect(target.identifier == tag.identifier)
    #expect(target.link.capabilities == APDUPassthroughLink.acr122u)
    #expect(try t4.queryNDEFStatus() == NDEFStatusReport(status: .readWrite, capacity: 254, messageLength: 0))

    let text = textRecord("Hello from a virtual NTAG 424 DNA")
    try t4.writeNDEF(text, verify: true)
    #expect(try t4.readNDEF() == text)
    let url = uriRecord("example.com/products/ntag424?serial=0123456789&lang=en")
    try t4.writeNDEF(url, verify: true)
    #expect(try t4.readNDEF() == url)
    let largest = message(ofSize: 254)
    try t4.writeNDEF(largest, verify: true)
    #expect(try t4.readNDEF() == largest)

    // A fresh connection sees the same message.
    let (again, _, _) = try platform(on: face)
    #expect(try again.readNDEF() == largest)
    #expect(try again.readMemory() == Array(tag.memoryImage.prefix(Type4VirtualTag.imageSizeWithoutUID)))  // the image adds the UID

    try t4.format()
    #expect(try t4.readNDEF() == [])
    try t4.writeNDEF(text, verify: true)
    try t4.erase()
    #expect(try t4.queryNDEFStatus().messageLength == 0)

    // Too large: refused before any write, memory unchanged.
    try t4.writeNDEF(url, verify: true)
    let before = tag.memoryImage
    let generation = tag.memoryGeneration
    guard case .insufficientCapacity(255, 254)? = caught({ try t4.writeNDEF(message(ofSize: 255), verify: true) }) as? TagError else {
      Issue.record("expected insufficientCapacity"); return
    }
    #expect(tag.memoryImage == before && tag.memoryGeneration == generation)

    try t4.makeReadOnly()
    #expect(try t4.queryNDEFStatus().status == .readOnly)
    guard case .readOnly? = caught({ try t4.writeNDEF(text, verify: true) }) as? TagError else {
      Issue.record("expected readOnly"); return
    }
    let (fresh, _, _) = try platform(on: face)
    #expect(try fresh.queryNDEFStatus() == NDEFStatusReport(status: .readOnly, capacity: 254, messageLength: url.count))
    #expect(try fresh.readNDEF() == url)
    guard case .readOnly? = caught({ try fresh.writeNDEF(text, verify: true) }) as? TagError else {
      Issue.record("expected readOnly on a fresh connection"); return
    }
    let info = try fresh.info()
    #expect(info.chip == "Type 4 tag (mapping version 2.0)")   // the 424 DNA's ATS and CC, but no GetVersion
    #expect(info.lockState.contains("write access FF"))
  }

  /// Every k: the tag leaves after answering k APDUs of a write; a fresh connection then reads the
  /// old message, the new one or an empty one, never an error or a partial message.
  @Test(arguments: [20, 100, 254])
  func tearingLeavesOldNewOrEmpty(newSize: Int) throws {
    let old = textRecord("the old message, still there")
    let new = message(ofSize: newSize)
    let start = try Type4VirtualTag()
    let (setup, _, _) = try platform(on: ACR122UFace(tag: start))
    try setup.writeNDEF(old, verify: true)
    let image = start.memoryImage

    // How many APDUs the whole thing takes (detection included).
    let count: Int
    do {
      let tag = try Type4VirtualTag(image: image)
      let (t4, _, transport) = try platform(on: ACR122UFace(tag: tag))
      try t4.writeNDEF(new, verify: true)
      count = transport.answered
    }
    #expect(count > 4)
    var outcomes: [String: Int] = [:]
    for k in 1...count {
      let tag = try Type4VirtualTag(image: image)
      let face = ACR122UFace(tag: tag)
      let failure = caught {
        let (t4, _, _) = try platform(on: face, removeAfter: k)
        try t4.writeNDEF(new, verify: true)
      }
      if let failure {
        let lost = (failure as? TagError)?.isTagLost ?? (failure is PollError)
        #expect(lost, "k=\(k): \(failure)")
      } else {
        #expect(k >= count, "k=\(k): the write finished before the tag left")
      }
      face.powerOn()
      let (reader, _, _) = try platform(on: face)
      let now = try reader.readNDEF()
      #expect(now == old || now == new || now == [], "k=\(k): \(now.count) bytes")
      let key = now == old ? "old" : (now == new ? "new" : "empty")
      outcomes[key, default: 0] += 1
    }
    #expect(outcomes["new"] ?? 0 >= 1)
    if newSize > 245 { #expect(outcomes["empty"] ?? 0 >= 1) }   // the multi-UPDATE path goes through NLEN 0000
  }

  /// Round trips for the largest message (254 bytes) through the ACR122U: a read needs the four
  /// discovery APDUs plus ⌈256 / 250⌉ READ BINARYs; a write four plus NLEN 0000, ⌈254 / 247⌉
  /// UPDATEs, NLEN, and the read-back.
  @Test func roundTripsForTheLargestMessage() throws {
    let tag = try Type4VirtualTag()
    let face = ACR122UFace(tag: tag)
    let largest = message(ofSize: 254)

    let transport = SimulatedAPDUTransport(card: face)
    let target = try detectTarget(on: transport)
    let writer = CountingTransceiver(target.link)
    try Type4Tag(identifier: target.identifier, link: writer, atr: target.atr).writeNDEF(largest, verify: true)

    let reader = CountingTransceiver(target.link)
    #expect(try Type4Tag(identifier: target.identifier, link: reader, atr: target.atr).readNDEF() == largest)

    let frame = APDUPassthroughLink.acr122u.maxResponseLength
    let ideal = 4 + (2 + 254 + frame - 1) / frame                       // 6
    #expect(abs(reader.count - ideal) <= 1)
    #expect(reader.count == 6)
    #expect(writer.count == 11)                                         // 4 + 1 (size probe) + 1 + 2 + 1 + 2 (read-back)
    // Naive, one 16-byte block per command as nfcpy's dump reads: SELECT app, SELECT CC, READ CCLEN,
    // READ CC, SELECT NDEF, READ NLEN, then 16 READs of 16 bytes = 22; a write of 16-byte UPDATEs:
    // 4 + NLEN 0000 + 16 UPDATEs + NLEN + 16 read-back READs = 38.
    print("Type 4 round trips (254-byte message, ACR122U): read \(reader.count) (naive 22), write \(writer.count) (naive 38)")
  }
}
