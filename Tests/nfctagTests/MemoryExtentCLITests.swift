import Foundation
import Testing

/// `dump --memory` of a Type 2 tag whose chip the reader cannot name (READ BINARY only, no
/// GET_VERSION): the pages past the CC's data area are read one by one until one is refused, and
/// the dump says that its size was found so (docs/readers.md, "Memory size without GET_VERSION").
@Suite struct MemoryExtentCLI {
  static func scratch() throws -> URL {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-extent-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory
  }

  /// The whole NTAG215 (135 pages) through an OMNIKEY 5022, byte for byte what the ACR122U
  /// (GET_VERSION) dumps, with the one-line warning on stderr.
  @Test func anNTAG215DumpThroughAnOMNIKEY5022IsWhole() throws {
    let image = try Self.scratch().appendingPathComponent("tag.bin").path
    #expect(try runTool(["write", "text", "whole", "--reader", "sim:ntag215:" + image]).status == 0)
    let known = try runTool(["dump", "--memory", "--format", "raw", "--reader", "sim:ntag215:" + image])
    #expect(known.status == 0, "\(known.stderr)")
    #expect(known.stdoutBytes.count == 540)
    #expect(!known.stderr.contains("warning"), "\(known.stderr)")

    let r = try runTool(["dump", "--memory", "--format", "raw", "--reader", "sim:ntag215@omnikey5022:" + image])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdoutBytes.count == 540)
    #expect(r.stdoutBytes == known.stdoutBytes)
    let lines = r.stderr.split(separator: "\n")
    #expect(lines.count == 1, "\(r.stderr)")
    #expect(r.stderr.hasPrefix("nfctag: warning: "), "\(r.stderr)")
    #expect(r.stderr.contains("page 135"), "\(r.stderr)")
  }

  /// An Ultralight EV1 (MF0UL11, 20 pages) through a uTrust 3700 F: 80 bytes, and the JSON says
  /// how the size was found.
  @Test func anUltralightEV1DumpThroughAUTrust3700FIsWhole() throws {
    let raw = try runTool(["dump", "--memory", "--format", "raw", "--reader", "sim:ultralight-ev1@utrust3700f"])
    #expect(raw.status == 0, "\(raw.stderr)")
    #expect(raw.stdoutBytes.count == 80)
    #expect(raw.stderr.contains("page 20"), "\(raw.stderr)")

    let json = try runTool(["dump", "--memory", "--format", "json", "--reader", "sim:ultralight-ev1@utrust3700f"])
    #expect(json.status == 0, "\(json.stderr)")
    #expect(json.stdout.contains("\"length\":80"), "\(json.stdout)")
    #expect(json.stdout.contains("\"size\":{\"known\":false,\"refusedAt\":80}"), "\(json.stdout)")
  }

  /// With GET_VERSION the size is the chip's: the JSON says it is known and stderr stays quiet.
  @Test func aDumpOfAKnownChipSaysItsSizeIsKnown() throws {
    let json = try runTool(["dump", "--memory", "--format", "json", "--reader", "sim:ultralight-ev1"])
    #expect(json.status == 0, "\(json.stderr)")
    #expect(json.stdout.contains("\"length\":80"), "\(json.stdout)")
    #expect(json.stdout.contains("\"size\":{\"known\":true}"), "\(json.stdout)")
    #expect(json.stderr.isEmpty, "\(json.stderr)")
  }
}
