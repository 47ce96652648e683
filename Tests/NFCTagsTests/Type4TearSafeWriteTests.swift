import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private let ok = hex("90 00")
private let selectV2 = hex("00 A4 04 00 07 D2 76 00 00 85 01 01 00")
private let selectCC = hex("00 A4 00 0C 02 E1 03")
private let readCC = hex("00 B0 00 00 0F")
private let selectNDEF = hex("00 A4 00 0C 02 E1 04")

/// The ATR an ACR122U builds for a MIFARE DESFire: its whole ATS as historical bytes.
private let desfireATR: [UInt8] = {
  var atr = hex("3B 86 80 01 06 75 77 81 02 80")
  atr.append(atr.dropFirst().reduce(0, ^))
  return atr
}()
/// The CC `nfctag format` gives a DESFire (AN11004): MLe 003B, MLc 0034, file E104 of 4064 bytes.
private let desfireCC = hex("000F 20 003B 0034 0406 E104 0FE0 00 00")

private func discovery(cc: [UInt8]) -> [EmbeddedTransceiver.Step] {
  [(selectV2, .success(ok)), (selectCC, .success(ok)), (readCC, .success(cc + ok)), (selectNDEF, .success(ok))]
}

/// GetVersion naming an NTAG 424 DNA (NT4H2421Gx datasheet §10.5.2), then what `info` asks a 424
/// after it (GetFileSettings of the three files, GetKeyVersion of the five keys, Read_Sig).
private func ntag424InfoSteps() -> [EmbeddedTransceiver.Step] {
  let version = hex("04 04 02 30 00 11 05") + hex("04 04 02 01 02 11 05") + hex("04 11 22 33 44 55 66 A1 B2 C3 D4 E0 21 24")
  var steps: [EmbeddedTransceiver.Step] = [
    (hex("00 B0 00 00 02"), .success(hex("0000") + ok)),
    (hex("90 60 00 00 00"), .success(Array(version[0..<7]) + hex("91 AF"))),
    (hex("90 AF 00 00 00"), .success(Array(version[7..<14]) + hex("91 AF"))),
    (hex("90 AF 00 00 00"), .success(Array(version[14...]) + hex("91 00"))),
  ]
  for file: UInt8 in 1...3 { steps.append((hex("90 F5 00 00 01") + [file, 0x00], .success(hex("91 9D")))) }
  for key: UInt8 in 0...4 { steps.append((hex("90 64 00 00 01") + [key, 0x00], .success(hex("00 91 00")))) }
  steps.append((hex("90 3C 00 00 01 00 00"), .success(hex("91 9D"))))
  return steps
}

/// A message of `count` bytes (its content does not matter to the order of the writes).
private func message(_ count: Int) -> [UInt8] { (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) } }

/// The write order on tags that do not protect a single UPDATE BINARY against tearing: a MIFARE
/// DESFire's standard data file has no tearing protection (MF3ICDx21_41_81 §9), so even a message
/// that fits one command goes NLEN 0000, the data, then NLEN (docs/tag-types.md, "Tear-safe write").
/// Only an NTAG 424 DNA named by GetVersion gets NLEN and a short message in one command, and only
/// when that command fits one ISO/IEC 14443-4 frame of the tag (NT4H2421Gx datasheet §8.2.3.1).
@Suite struct Type4TearSafeWriteTests {
  @Test func aDESFireGetsNLENZeroTheDataThenNLEN() throws {
    let short = message(20)
    let link = EmbeddedTransceiver(discovery(cc: desfireCC) + [
      (hex("00 B0 00 15 01"), .success(hex("00") + ok)),                  // READ BINARY the message's last byte
      (hex("00 D6 00 00 02 0000"), .success(ok)),                         // UPDATE NLEN 0000: the file holds an empty message
      (hex("00 D6 00 02 14") + short, .success(ok)),                      // UPDATE the 20 bytes at 2
      (hex("00 D6 00 00 02 0014"), .success(ok)),                         // UPDATE NLEN 0014: the message is there
      (hex("00 B0 00 00 16"), .success(hex("0014") + short + ok)),        // READ BINARY 22 bytes: read-back
    ], capabilities: acr122uISODEP)
    let tag = Type4Tag(identifier: t4UID, link: link, atr: desfireATR)
    try tag.writeNDEF(short, verify: true)
    #expect(link.finish() == .clean)
    #expect(!tag.protectsSingleFrameWrites)
  }

  /// The ATS alone does not name a 424 DNA (a DESFire on a Part 3 reader shows the same byte 80h):
  /// without GetVersion's answer, the three commands.
  @Test func the424sATSAloneGetsThreeUpdates() throws {
    let link = EmbeddedTransceiver(discovery(cc: ntag424CC) + [
      (hex("00 B0 00 10 01"), .success(hex("00") + ok)),
      (hex("00 D6 00 00 02 0000"), .success(ok)),
      (hex("00 D6 00 02 0F") + elephant, .success(ok)),
      (hex("00 D6 00 00 02 000F"), .success(ok)),
    ], capabilities: acr122uISODEP)
    try Type4Tag(identifier: t4UID, link: link, atr: ntag424ATR).writeNDEF(elephant, verify: false)
    #expect(link.finish() == .clean)
  }

  /// Once GetVersion named a 424 DNA (`info`), NLEN and the message go in one UPDATE BINARY while
  /// the command fits one 128-byte frame (FSCI 7) with PCB, CID and CRC: 119 bytes of data, NLEN
  /// and a 117-byte message; 118 bytes take the three commands.
  @Test(arguments: [(117, 1), (118, 3)])
  func a424NamedByGetVersionGetsOneUpdateWithinOneFrame(count: Int, updates: Int) throws {
    let body = message(count)
    let nlen = [UInt8(count >> 8), UInt8(count & 0xFF)]
    var steps = discovery(cc: ntag424CC) + ntag424InfoSteps()
    steps.append((hex("00 B0 00") + [UInt8(count + 1), 0x01], .success(hex("00") + ok)))
    if updates == 1 {
      steps.append((hex("00 D6 00 00") + [UInt8(count + 2)] + nlen + body, .success(ok)))
    } else {
      steps += [(hex("00 D6 00 00 02 0000"), .success(ok)),
                (hex("00 D6 00 02") + [UInt8(count)] + body, .success(ok)),
                (hex("00 D6 00 00 02") + nlen, .success(ok))]
    }
    let link = EmbeddedTransceiver(steps, capabilities: acr122uISODEP)
    let tag = Type4Tag(identifier: t4UID, link: link, atr: ntag424ATR)
    #expect(!tag.protectsSingleFrameWrites)
    #expect(try tag.info().chip == "NTAG 424 DNA")
    #expect(tag.protectsSingleFrameWrites)
    try tag.writeNDEF(body, verify: false)
    #expect(link.finish() == .clean)
    #expect(link.received.filter { $0.count > 1 && $0[1] == 0xD6 }.count == updates)
  }

  /// An empty message is NLEN 0000 alone, the first step of the order: one UPDATE on any tag.
  @Test func anEmptyMessageIsOneUpdate() throws {
    let link = EmbeddedTransceiver(discovery(cc: desfireCC) + [
      (hex("00 D6 00 00 02 0000"), .success(ok)),
      (hex("00 B0 00 00 02"), .success(hex("0000") + ok)),
    ], capabilities: acr122uISODEP)
    try Type4Tag(identifier: t4UID, link: link, atr: desfireATR).writeNDEF([], verify: true)
    #expect(link.finish() == .clean)
  }

  /// A tag without tearing protection torn at every point of a write: before each UPDATE BINARY,
  /// and inside each one after every data byte (the card left with part of the command written).
  /// A 2-byte length is taken as written whole (every tear-safe order here assumes it, as Type 2's
  /// one-byte TLV length). Read on a new connection, the file holds the old message, an empty one
  /// or the new one; never a length over bytes of another.
  @Test(arguments: [12, 40, 52, 120])
  func aTornWriteLeavesTheOldTheEmptyOrTheNewMessage(count: Int) throws {
    let old = message(60).map { $0 ^ 0x5A }, new = message(count)
    var cuts: [TornType4File.Cut] = []
    for index in 0..<8 {
      cuts.append(.init(update: index, bytes: 0))
      for bytes in 1..<(count + 2) { cuts.append(.init(update: index, bytes: bytes)) }
    }
    var outcomes: Set<String> = []
    for cut in cuts {
      let file = TornType4File(nlenAndMessage: [0x00, UInt8(old.count)] + old)
      file.cut = cut
      _ = tagError { () throws(TagError) in
        try Type4Tag(identifier: t4UID, link: file, atr: desfireATR).writeNDEF(new, verify: true)
      }
      file.cut = nil
      let after = try Type4Tag(identifier: t4UID, link: file, atr: desfireATR).readNDEF()
      #expect(after == old || after == [] || after == new, "\(count) bytes, \(cut): read \(after.count) bytes")
      outcomes.insert(after == old ? "old" : after == [] ? "empty" : after == new ? "new" : "other")
    }
    #expect(outcomes == ["old", "empty", "new"])
  }
}

/// A Type 4 tag's NDEF file in memory (the DESFire's CC: MLc 52), with no tearing protection: a
/// cut removes the card before UPDATE BINARY number `update`, after `bytes` of its data were written.
final class TornType4File: Transceiver {
  struct Cut: CustomStringConvertible {
    var update: Int, bytes: Int
    var description: String { "cut in UPDATE \(update) after \(bytes) bytes" }
  }
  var file: [UInt8]
  var cut: Cut?
  private var updates = 0
  private var selected: [UInt8] = []
  let capabilities = acr122uISODEP
  private let cc = hex("000F 20 003B 0034 0406 E104 0100 00 00")

  init(nlenAndMessage: [UInt8]) {
    file = nlenAndMessage + [UInt8](repeating: 0, count: 256 - nlenAndMessage.count)
  }

  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard command.count >= 5 else { return hex("67 00") }
    let offset = Int(command[2]) << 8 | Int(command[3])
    switch (command[0], command[1]) {
    case (0x00, 0xA4):
      selected = command[2] == 0x04 ? [] : Array(command[5...])
      return ok
    case (0x00, 0xB0):
      let content = selected == hex("E1 03") ? cc : selected == hex("E1 04") ? file : []
      let length = command[4] == 0 ? 256 : Int(command[4])
      guard offset < content.count else { return hex("6B 00") }
      return Array(content[offset..<min(content.count, offset + length)]) + ok
    case (0x00, 0xD6):
      guard selected == hex("E1 04") else { return hex("69 86") }
      let data = Array(command[5...])
      guard offset + data.count <= file.count else { return hex("6B 00") }
      defer { updates += 1 }
      if let cut, cut.update == updates {
        // A 2-byte length field is written whole or not at all.
        let written = data.count <= 2 && cut.bytes > 0 ? data.count : min(cut.bytes, data.count)
        file.replaceSubrange(offset..<(offset + written), with: data.prefix(written))
        self.cut = nil
        throw .tagRemoved
      }
      file.replaceSubrange(offset..<(offset + data.count), with: data)
      return ok
    default:
      return hex("6D 00")
    }
  }
}
