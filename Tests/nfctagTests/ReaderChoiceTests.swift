import Foundation
import Testing

/// How the tool chooses its reader: as a session does (NFCSession's `SessionReaders`, the one
/// place that chooses readers): `--reader`, else `NFC_READER`, else the first PC/SC reader with a
/// tag; a `sim:` name is one reader per command.
@Suite struct ReaderChoiceTests {
  @Test func nfcReaderNamesTheReaderWhenNoReaderIsGiven() throws {
    let r = try runTool(["info", "--timeout", "2"], environment: ["NFC_READER": "sim:ntag215"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("NTAG215"))
  }

  @Test func theReaderOptionBeatsNFCReader() throws {
    let r = try runTool(["info", "--reader", "sim:ntag213", "--timeout", "2"], environment: ["NFC_READER": "sim:ntag215"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.contains("NTAG213") && !r.stdout.contains("NTAG215"))
  }

  @Test func aBadSimulatorInNFCReaderIsAUsageError() throws {
    let r = try runTool(["info", "--timeout", "2"], environment: ["NFC_READER": "sim:nope"])
    #expect(r.status == 64)
    #expect(r.stderr.hasPrefix("nfctag: bad simulator reader 'sim:nope': "), "\(r.stderr)")
  }

  @Test func aSimulatorIsOneReaderPerCommandNotPerProcess() throws {
    #expect(try runTool(["write", "text", "left by the first command", "--reader", "sim:ntag216"]).status == 0)
    let read = try runTool(["read", "--reader", "sim:ntag216", "--timeout", "2"])
    #expect(!read.stdout.contains("left by the first command"))
  }

  @Test func aProvisionRunOnNFCReadersSimulatorDoesNotWatchPCSCReaders() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-reader-choice-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    // Two tags for three rows: the run waits (past the reader watch's first look) for a third.
    let feed = "sim:ntag213+feed=2,seed=5,images=\(dir.appendingPathComponent("img").path)"
    let r = try runTool(["provision", "--count", "3", "--url", "https://example.com/{n}", "--json", "--timeout", "2",
                         "--ledger", dir.appendingPathComponent("l.sqlite").path], environment: ["NFC_READER": feed])
    #expect(r.stdout.contains(#""done":2"#), "\(r.stdout)\(r.stderr)")
    #expect(!(r.stdout + r.stderr).contains("unplugged"), "\(r.stdout)\(r.stderr)")
  }
}
