import Foundation
import Testing

/// `nfctag lock --yes` on an NTAG 424 DNA: ChangeFileSettings of the NDEF file with Write,
/// Read&Write and Change never (NT4H2421Gx datasheet §10.7.1, §8.2.3.3), authenticated with the
/// Change key (key 0: `--auth-key-file`/`--auth-key-env`, the factory key by default), in process
/// with a `sim:ntag424dna:IMAGE` reader (docs/ntag-424-dna.md, "Locking").
@Suite struct NTAG424LockCLI {
  static func image() throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-424lock-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return directory.appendingPathComponent("tag.bin").path
  }

  /// Locked for good: a write is refused (77), `info` says read-only, a second lock finds it so.
  @Test func lockMakesTheNDEFFileReadOnly() throws {
    registerVirtualNTAG424()
    let reader = "sim:ntag424dna:" + (try Self.image())
    #expect(try runTool(["write", "text", "before", "--reader", reader]).status == 0)
    let lock = try runTool(["lock", "--yes", "--reader", reader])
    #expect(lock.status == 0, "\(lock.stderr)")
    #expect(lock.stderr.contains("the tag is now read-only"), "\(lock.stderr)")

    let write = try runTool(["write", "text", "after", "--reader", reader])
    #expect(write.status == 77, "\(write.stderr)")
    #expect(write.stderr.split(separator: "\n").count == 1, "\(write.stderr)")
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("before"))

    let info = try runTool(["info", "--format", "json", "--reader", reader])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains(#""status":"readOnly""#), "\(info.stdout)")

    let again = try runTool(["lock", "--yes", "--reader", reader])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stderr.contains("already read-only"), "\(again.stderr)")
  }

  /// A wrong key 0: one line, 77, and the tag is as it was (still writable).
  @Test func aWrongKeyChangesNothing() throws {
    registerVirtualNTAG424()
    let reader = "sim:ntag424dna:" + (try Self.image())
    #expect(try runTool(["write", "text", "before", "--reader", reader]).status == 0)
    let lock = try runTool(["lock", "--yes", "--auth-key-env", "K0", "--reader", reader],
                           environment: ["K0": String(repeating: "11", count: 16)])
    #expect(lock.status == 77, "\(lock.stderr)")
    #expect(lock.stderr.split(separator: "\n").count == 1, "\(lock.stderr)")
    #expect(!lock.stderr.contains(String(repeating: "11", count: 16)))
    #expect(try runTool(["write", "text", "after", "--reader", reader]).status == 0)
  }
}
