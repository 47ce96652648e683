import Foundation
import Testing

extension ClassicCLI {
  /// A dump restored with `write image --all` onto a factory card (keys FF…FF): its dump equals
  /// the first, the message reads back, and key B, which the dump shows as zeros (not readable
  /// through AN1304's access bits), stays the factory key the card had.
  @Test(arguments: [("mifare-classic-1k", 16), ("mifare-classic-4k", 40)])
  func aDumpRestoresOntoAFactoryCard(kind: String, sectors: Int) throws {
    let (source, _) = try simulator("\(kind)-ndef")
    #expect(try runTool(["write", "uri", "https://example.org/restored", "--reader", source]).status == 0)
    let dump = try runTool(["dump", "--memory", "--format", "raw", "--reader", source])
    #expect(dump.status == 0, "\(dump.stderr)")
    let (target, image) = try simulator(kind)
    let dumpFile = URL(fileURLWithPath: image).deletingLastPathComponent().appendingPathComponent("dump.mfd")
    try dump.stdoutBytes.write(to: dumpFile)
    let restore = try runTool(["write", "image", dumpFile.path, "--all", "--reader", target])
    #expect(restore.status == 0, "\(restore.stderr)")
    #expect(!restore.stderr.contains("000000000000"), "\(restore.stderr)")
    #expect(try runTool(["dump", "--memory", "--format", "raw", "--reader", target]).stdoutBytes == dump.stdoutBytes)
    #expect(try runTool(["read", "--reader", target]).stdout.contains("https://example.org/restored"))
    let card = try bytes(image)
    for sector in 0..<sectors {
      let trailer = sector < 32 ? sector * 64 + 48 : 2048 + (sector - 32) * 256 + 240
      #expect(Array(card[trailer + 10 ..< trailer + 16]) == [UInt8](repeating: 0xFF, count: 6), "key B of sector \(sector)")
    }
  }
}
