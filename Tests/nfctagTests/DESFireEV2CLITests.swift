import DESFireEmulator
import Foundation
import Testing

/// MIFARE DESFire EV2 and EV3 through the CLI, in process, on `sim:` readers: their names, and the
/// EV2's random FCI never misread (docs/desfire.md, "EV2 and EV3").
@Suite struct DESFireEV2CLI {
  init() { DESFireEmulator.register() }   // the in-process runner calls no `main`

  @Test(arguments: [("sim:desfire-ev2-4k", "MIFARE DESFire EV2 4K"), ("sim:desfire-ev2-2k@acr1552u", "MIFARE DESFire EV2 2K"),
                    ("sim:desfire-ev3-8k", "MIFARE DESFire EV3 8K"), ("sim:desfire-ev3-4k@acr1552u", "MIFARE DESFire EV3 4K")])
  func scanAndInfoNameTheGeneration(reader: String, name: String) throws {
    let scan = try runTool(["scan", "--reader", reader])
    #expect(scan.status == 0, "\(scan.stderr)")
    #expect(scan.stdout.contains("chip:   \(name) (Type 4)"), "\(scan.stdout)")
    #expect(scan.stdout.contains("not NDEF formatted"), "\(scan.stdout)")
    let info = try runTool(["info", "--reader", reader])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains(name), "\(info.stdout)")
  }

  @Test(arguments: ["sim:desfire-ev2-4k", "sim:desfire-ev2-4k@acr1552u", "sim:desfire-ev3-4k"])
  func aFactoryCardIsNotFormattedThenFormats(reader: String) throws {
    let image = FileManager.default.temporaryDirectory
      .appendingPathComponent("desfire-ev2-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).img").path
    defer { try? FileManager.default.removeItem(atPath: image) }
    let card = "\(reader):\(image)"
    let read = try runTool(["read", "--reader", card])
    #expect(read.status == 65, "\(read.stderr)")
    #expect(read.stderr.contains("not NDEF formatted"), "\(read.stderr)")
    #expect(read.stderr.split(separator: "\n").count == 1)
    let format = try runTool(["format", "--reader", card])
    #expect(format.status == 0, "\(format.stderr)")
    let write = try runTool(["write", "url", "https://example.com/ev2", "--reader", card])
    #expect(write.status == 0, "\(write.stderr)")
    let back = try runTool(["read", "--reader", card])
    #expect(back.status == 0, "\(back.stderr)")
    #expect(back.stdout.contains("https://example.com/ev2"), "\(back.stdout)")
  }
}
