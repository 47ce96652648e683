import Foundation
import Testing

/// `erase` and `format` overwrite the bytes the old message used, on every tag
/// type; `--fast` keeps the length-only behaviour.
@Suite struct EraseOverwrites {
  static let kinds = ["topaz512", "ntag215", "felica-lite-s", "type4", "icode-slix2"]

  func simulator(_ kind: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-erase-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return "sim:\(kind):" + directory.appendingPathComponent("tag.bin").path
  }

  /// True when the memory image holds "secretkey123" (what `strings` would find).
  func memoryHoldsTheKey(_ reader: String) throws -> Bool {
    let dump = try runTool(["dump", "--memory", "--format", "raw", "--reader", reader])
    return dump.stdoutBytes.range(of: Data("secretkey123".utf8)) != nil
  }

  func writeTheKey(_ reader: String) throws {
    let text = try runTool(["write", "text", "wifi key secretkey123 here", "--reader", reader])
    #expect(text.status == 0, "\(text.stderr)")
    #expect(try memoryHoldsTheKey(reader))
  }

  @Test(arguments: kinds)
  func eraseLeavesNothingOfTheOldMessage(kind: String) throws {
    let reader = try simulator(kind)
    try writeTheKey(reader)
    let erase = try runTool(["erase", "--reader", reader])
    #expect(erase.status == 0, "\(erase.stderr)")
    #expect(!(try memoryHoldsTheKey(reader)), "\(kind)")
    #expect(try runTool(["read", "--format", "json", "--reader", reader]).stdout == "{\"records\":[]}\n")
    #expect(try runTool(["write", "text", "after", "--reader", reader]).status == 0)
  }

  @Test(arguments: kinds)
  func formatLeavesNothingOfTheOldMessage(kind: String) throws {
    let reader = try simulator(kind)
    try writeTheKey(reader)
    let format = try runTool(["format", "--reader", reader])
    #expect(format.status == 0, "\(format.stderr)")
    #expect(!(try memoryHoldsTheKey(reader)), "\(kind)")
  }

  @Test func fastEraseOnlyEmptiesTheLength() throws {
    let reader = try simulator("ntag215")
    try writeTheKey(reader)
    #expect(try runTool(["erase", "--fast", "--reader", reader]).status == 0)
    #expect(try memoryHoldsTheKey(reader))
    #expect(try runTool(["read", "--format", "json", "--reader", reader]).stdout == "{\"records\":[]}\n")
  }

  @Test func helpSaysWhichIsTheDefault() throws {
    #expect(try runTool(["erase", "--help"]).stdout.contains("default: overwrite them"))
    #expect(try runTool(["format", "--help"]).stdout.contains("default: overwrite them"))
  }
}
