import Foundation
import Testing

/// `info` says whether the NTAG21x dynamic lock bytes are none, some or all set, judged on the
/// bits the data sheet defines (RFUI bits are not looked at).
@Suite struct DynamicLockReport {
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-dynlock-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  /// A simulated `kind` whose dynamic lock bytes (at `page`) hold `bytes`.
  func tag(_ kind: String, page: Int, _ bytes: [UInt8], name: String) throws -> String {
    var image = try runTool(["dump", "--memory", "--format", "raw", "--reader", "sim:\(kind)"]).stdoutBytes
    image.replaceSubrange(page * 4 ..< page * 4 + 3, with: bytes)
    let file = directory.appendingPathComponent("\(name).bin")
    try image.write(to: file)
    return "sim:\(kind):\(file.path)"
  }

  func dynamicLine(_ reader: String) throws -> String {
    let r = try runTool(["info", "--reader", reader])
    #expect(r.status == 0, "\(r.stderr)")
    return r.stdout.split(separator: "\n").first { $0.hasPrefix("locks:") }.map(String.init) ?? r.stdout
  }

  @Test func lockSetsThemAll() throws {
    for kind in ["ntag213", "ntag215", "ntag216"] {
      let reader = "sim:\(kind):" + directory.appendingPathComponent("\(kind).bin").path
      #expect(try runTool(["lock", "--yes", "--reader", reader]).status == 0)
      #expect(try dynamicLine(reader).contains("dynamic lock bytes ff ff ff (all set)"), "\(kind)")
      #expect(try runTool(["info", "--format", "json", "--reader", reader]).stdout
        .contains(#""dynamicLock":{"bytes":"ffffff","set":"all"}"#))
    }
  }

  @Test func allIsJudgedOnTheDefinedBits() throws {
    // NTAG213: 12 page-lock bits (byte 0, byte 1 bits 0-3) and 6 block-locking bits (byte 2 bits 0-5).
    #expect(try dynamicLine(tag("ntag213", page: 0x28, [0xFF, 0x0F, 0x3F], name: "a")).contains("ff 0f 3f (all set)"))
    #expect(try dynamicLine(tag("ntag213", page: 0x28, [0xFF, 0x0F, 0x1F], name: "b")).contains("ff 0f 1f (some set)"))
    #expect(try dynamicLine(tag("ntag213", page: 0x28, [0x00, 0xF0, 0xC0], name: "c")).contains("00 f0 c0 (none set)"))
    // NTAG215: 8 page-lock bits (byte 0), 4 block-locking bits (byte 1 bits 0-3), byte 2 RFUI.
    #expect(try dynamicLine(tag("ntag215", page: 0x82, [0xFF, 0x0F, 0x00], name: "d")).contains("ff 0f 00 (all set)"))
    // NTAG216: 14 page-lock bits (byte 0, byte 1 bits 0-5), 7 block-locking bits (byte 2 bits 0-6).
    #expect(try dynamicLine(tag("ntag216", page: 0xE2, [0xFF, 0x3F, 0x7F], name: "e")).contains("ff 3f 7f (all set)"))
    #expect(try dynamicLine(tag("ntag216", page: 0xE2, [0xFF, 0x3F, 0x3F], name: "f")).contains("(some set)"))
  }
}
