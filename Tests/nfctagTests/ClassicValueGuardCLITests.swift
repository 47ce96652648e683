import Foundation
import NFCTags
import Testing

extension ClassicCLI {
  /// `value --init` on a card with a MAD: a block of the MAD's sectors (0; 16 on a 4K) or of a
  /// sector the MAD gives to an application (NDEF or another AID) is refused with 64 and nothing
  /// written, the sector and its holder named; `--yes` writes it; a free sector and a card without
  /// a MAD need no confirmation.
  @Test func valueInitOverAMADSectorNeedsYes() throws {
    let (reader, image) = try simulator("mifare-classic-1k-ndef")
    #expect(try runTool(["write", "text", "kept", "--reader", reader]).status == 0)
    // Sector 2 to an application of its own (AID 4801), sector 3 free.
    var card = try bytes(image)
    var mad = MIFAREApplicationDirectory.ndef(for: .classic1K)
    mad.sectors[2] = MIFAREApplicationID(functionCluster: 0x48, applicationCode: 0x01)
    mad.sectors[3] = .free
    card.replaceSubrange(16..<48, with: mad.sector0Blocks)
    try Data(card).write(to: URL(fileURLWithPath: image))
    for (block, holder) in [(1, "sector 0, which holds the MIFARE Application Directory"),
                            (5, "sector 1, which the MIFARE Application Directory gives to NDEF (AID 03E1)"),
                            (9, "sector 2, which the MIFARE Application Directory gives to AID 0148")] {
      let refused = try runTool(["value", "\(block)", "--init", "7", "--reader", reader])
      #expect(refused.status == 64, "block \(block): \(refused.stderr)")
      #expect(refused.stderr.hasPrefix("nfctag: ") && refused.stderr.split(separator: "\n").count == 1
              && refused.stderr.contains("block \(block) is in \(holder): add --yes to overwrite it; nothing was written"),
              "block \(block): \(refused.stderr)")
      #expect(try bytes(image) == card, "block \(block)")
    }
    let free = try runTool(["value", "13", "--init", "3", "--reader", reader])
    #expect(free.status == 0 && free.stdout == "3\n", "\(free.stderr)")
    let confirmed = try runTool(["value", "9", "--init=-2", "--yes", "--reader", reader])
    #expect(confirmed.status == 0 && confirmed.stdout == "-2\n", "\(confirmed.stderr)")
    #expect(MIFAREClassicValueBlock(block: Array(try bytes(image)[144..<160])) == MIFAREClassicValueBlock(value: -2, address: 9))
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("kept"))
    // --yes belongs to --init.
    #expect(try runTool(["value", "9", "--yes", "--reader", reader]).status == 64)
    // A MAD whose CRC is wrong says nothing that can be trusted: refused too.
    card = try bytes(image)
    card[16] ^= 0xFF
    try Data(card).write(to: URL(fileURLWithPath: image))
    let untrusted = try runTool(["value", "13", "--init", "4", "--reader", reader])
    #expect(untrusted.status == 64, "\(untrusted.stderr)")
    #expect(untrusted.stderr.contains("not trusted") && untrusted.stderr.contains("--yes"), "\(untrusted.stderr)")
    #expect(try bytes(image) == card)
  }

  /// On a 4K the MAD2 sector (16) is the MAD's too; a factory card (no MAD) is not checked.
  @Test func valueInitOnA4KMADSectorAndAFactoryCard() throws {
    let (reader, image) = try simulator("mifare-classic-4k-ndef")
    let before = try runTool(["value", "65", "--init", "1", "--reader", reader])
    #expect(before.status == 64, "\(before.stderr)")
    #expect(before.stderr.contains("sector 16, which holds the MIFARE Application Directory"), "\(before.stderr)")
    let card = try bytes(image)
    #expect(try runTool(["value", "65", "--init", "1", "--yes", "--reader", reader]).stdout == "1\n")
    #expect(Array(try bytes(image)[1040..<1056]) != Array(card[1040..<1056]))
    let (factory, _) = try simulator("mifare-classic-4k")
    #expect(try runTool(["value", "1", "--init", "1", "--reader", factory]).stdout == "1\n")
  }
}
