import Foundation
import Testing

/// A MIFARE Classic operation opens every sector it will write before its first write: a sector
/// no key opens, first, middle or last among the NDEF sectors, leaves the card byte for byte as it
/// was, with exit 77, whatever the operation (`format`, `erase`, `write`, `lock`, `write image`).
/// A lock cut short is finished by running it again; `write image --all` keeps the card's key B
/// and opens a sector whose keys it changed.
extension ClassicCLI {
  /// Trailer offset of `sector` in a 1K image.
  func trailer1K(_ sector: Int) -> Int { sector * 64 + 48 }

  /// A 1K NDEF card whose message fills every NDEF sector, then `sector`'s keys A and B
  /// replaced by a key nobody knows.
  func fullCardWithClosedSector(_ sector: Int) throws -> (reader: String, image: String, card: [UInt8]) {
    let (reader, image) = try simulator("mifare-classic-1k-ndef")
    let text = String(repeating: "m", count: 700)
    let written = try runTool(["write", "text", text, "--reader", reader])
    #expect(written.status == 0, "\(written.stderr)")
    var card = try bytes(image)
    #expect(card[trailer1K(15) - 48 ..< trailer1K(15)].contains(UInt8(ascii: "m")), "the message reaches sector 15")
    let secret: [UInt8] = [0x5A, 0x6B, 0x7C, 0x8D, 0x9E, 0xAF]
    card.replaceSubrange(trailer1K(sector) ..< trailer1K(sector) + 6, with: secret)
    card.replaceSubrange(trailer1K(sector) + 10 ..< trailer1K(sector) + 16, with: secret)
    try Data(card).write(to: URL(fileURLWithPath: image))
    return (reader, image, card)
  }

  @Test(arguments: ["format", "erase", "write", "lock", "write image"], [1, 8, 15])
  func aSectorNoKeyOpensLeavesTheCardAsItWas(operation: String, sector: Int) throws {
    let (reader, image, card) = try fullCardWithClosedSector(sector)
    var arguments: [String]
    switch operation {
    case "write": arguments = ["write", "text", String(repeating: "n", count: 700)]
    case "lock": arguments = ["lock", "--yes"]
    case "write image":
      var other = card
      for block in 4..<64 where block % 4 != 3 { other[block * 16] ^= 0x55 }
      let file = URL(fileURLWithPath: image).deletingLastPathComponent().appendingPathComponent("other.mfd")
      try Data(other).write(to: file)
      arguments = ["write", "image", file.path]
    default: arguments = [operation]
    }
    let result = try runTool(arguments + ["--reader", reader])
    #expect(result.status == 77, "\(operation): \(result.stderr)")
    #expect(result.stderr.contains("no key opened sector \(sector)"), "\(operation): \(result.stderr)")
    #expect(try bytes(image) == card, "\(operation) changed the card")
  }

  /// A lock that stopped after sector 1 (its trailer already `07 8F 0F 43`) is finished by the
  /// next `lock --yes`; "already read-only" only once every sector is.
  @Test func aLockCutShortIsFinishedByTheNextLock() throws {
    let (reader, image) = try simulator("mifare-classic-1k-ndef")
    #expect(try runTool(["write", "text", "kept", "--reader", reader]).status == 0)
    var card = try bytes(image)
    card.replaceSubrange(trailer1K(1) + 6 ..< trailer1K(1) + 10, with: [0x07, 0x8F, 0x0F, 0x43])
    try Data(card).write(to: URL(fileURLWithPath: image))
    let lock = try runTool(["lock", "--yes", "--reader", reader])
    #expect(lock.status == 0, "\(lock.stderr)")
    #expect(lock.stderr.contains("now read-only"), "\(lock.stderr)")
    let locked = try bytes(image)
    for sector in 0..<16 {
      #expect(Array(locked[trailer1K(sector) + 6 ..< trailer1K(sector) + 9]) == [0x07, 0x8F, 0x0F], "sector \(sector)")
      #expect(Array(locked[trailer1K(sector) + 10 ..< trailer1K(sector) + 16]) == [UInt8](repeating: 0xFF, count: 6),
              "sector \(sector) keeps key B")
    }
    let again = try runTool(["lock", "--yes", "--reader", reader])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("already read-only"), "\(again.stderr)")
    #expect(try bytes(image) == locked)
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("kept"))
  }

  /// `write image --all` of a dump whose sector 2 has a new key A: key B, unreadable in the dump,
  /// is the card's (found by authenticating with it), no note for the sectors it does not write,
  /// one block written; then new keys A and B for sector 2: written, read back with them.
  @Test func writeImageKeepsTheCardsKeyBAndOpensWithNewKeys() throws {
    let (reader, image) = try simulator("mifare-classic-1k-ndef")
    #expect(try runTool(["write", "text", "restored", "--reader", reader]).status == 0)
    let dump = try runTool(["dump", "--memory", "--format", "raw", "--reader", reader])
    #expect(dump.status == 0, "\(dump.stderr)")
    var wanted = [UInt8](dump.stdoutBytes)
    let newKeyA: [UInt8] = [0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
    wanted.replaceSubrange(trailer1K(2) ..< trailer1K(2) + 6, with: newKeyA)
    let file = URL(fileURLWithPath: image).deletingLastPathComponent().appendingPathComponent("keys.mfd")
    try Data(wanted).write(to: file)
    let restore = try runTool(["write", "image", file.path, "--all", "--reader", reader])
    #expect(restore.status == 0, "\(restore.stderr)")
    #expect(!restore.stderr.contains("written as 000000000000"), "\(restore.stderr)")
    #expect(restore.stderr.contains("1 block write"), "\(restore.stderr)")
    var card = try bytes(image)
    #expect(Array(card[trailer1K(2) ..< trailer1K(2) + 6]) == newKeyA)
    #expect(Array(card[trailer1K(2) + 10 ..< trailer1K(2) + 16]) == [UInt8](repeating: 0xFF, count: 6), "key B kept")
    // The same image again: nothing to write, and no note.
    let keys = URL(fileURLWithPath: image).deletingLastPathComponent().appendingPathComponent("keys.txt")
    try Data("112233445566\n".utf8).write(to: keys)
    let again = try runTool(["write", "image", file.path, "--all", "--keys", keys.path, "--reader", reader])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(!again.stderr.contains("written as 000000000000"), "\(again.stderr)")
    #expect(again.stderr.contains("0 block writes"), "\(again.stderr)")
    // New keys A and B: the trailer is written, and the read-back opens the sector with them.
    let newKeyB: [UInt8] = [0x66, 0x55, 0x44, 0x33, 0x22, 0x11]
    wanted.replaceSubrange(trailer1K(2) + 10 ..< trailer1K(2) + 16, with: newKeyB)
    wanted.replaceSubrange(trailer1K(2) ..< trailer1K(2) + 6, with: [0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F])
    try Data(wanted).write(to: file)
    let both = try runTool(["write", "image", file.path, "--all", "--keys", keys.path, "--reader", reader])
    #expect(both.status == 0, "\(both.stderr)")
    card = try bytes(image)
    #expect(Array(card[trailer1K(2) ..< trailer1K(2) + 6]) == [0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F])
    #expect(Array(card[trailer1K(2) + 10 ..< trailer1K(2) + 16]) == newKeyB)
  }

  /// `info` describes each data block group of a sector whose groups differ (sector 0 as
  /// libfreefare's `mifare-classic-format` leaves it: `000 100 100 011`), as the JSON does.
  @Test func infoDescribesEachDataGroup() throws {
    let (reader, image) = try simulator("mifare-classic-1k-ndef")
    #expect(try runTool(["scan", "--reader", reader]).status == 0)  // the image file is made
    var card = try bytes(image)
    // Groups 0–3 as C1C2C3 000, 100, 100, 011: C1 = 0110, C2 = C3 = 1000 from group 3 down to
    // group 0, each byte's low or high half inverted (MF1S50yyX §8.7.1, Figure 10).
    card.replaceSubrange(48 + 6 ..< 48 + 9, with: [0x79, 0x67, 0x88])
    try Data(card).write(to: URL(fileURLWithPath: image))
    let info = try runTool(["info", "--reader", reader])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains("block 0 read key A or B, write key A or B; blocks 1–2 read key A or B, write key B"),
            "\(info.stdout)")
    #expect(!info.stdout.contains("sector 0: key A: the MAD public key A0A1A2A3A4A5; data read"), "\(info.stdout)")
  }

  /// A write a locked Classic refuses names the keys file, never a tag password (a Classic has keys).
  @Test func aRefusedWriteOnAClassicNamesTheKeysFile() throws {
    let (reader, _) = try simulator("mifare-classic-1k-ndef")
    #expect(try runTool(["lock", "--yes", "--reader", reader]).status == 0)
    let refused = try runTool(["value", "4", "--init", "5", "--yes", "--reader", reader])
    #expect(refused.status == 77, "\(refused.stderr)")
    #expect(refused.stderr.contains("--keys FILE"), "\(refused.stderr)")
    #expect(!refused.stderr.contains("password"), "\(refused.stderr)")
  }
}
