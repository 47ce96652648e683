import Foundation
import Testing

// The three example programs, run as a Core NFC program's user runs them: the reader from
// NFC_READER in their environment (a simulator whose tag is kept in a file, so that the write
// and the read, two processes, see one tag), their lines on standard output, their status.

/// An example program built next to the test bundle.
private func example(_ name: String) -> URL {
  URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(name)
}

/// Runs `name` with `arguments` and `NFC_READER=reader`; its status and standard output. A
/// program still running after 30 s is terminated.
private func run(_ name: String, _ arguments: [String] = [], reader: String) throws -> (status: Int32, lines: [String]) {
  let process = Process()
  process.executableURL = example(name)
  process.arguments = arguments
  var environment = ProcessInfo.processInfo.environment
  environment["NFC_READER"] = reader
  process.environment = environment
  let output = Pipe()
  process.standardOutput = output
  process.standardError = FileHandle.nullDevice
  try process.run()
  let watchdog = DispatchWorkItem { [process] in if process.isRunning { process.terminate() } }
  DispatchQueue.global().asyncAfter(deadline: .now() + 30, execute: watchdog)
  let bytes = output.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  watchdog.cancel()
  return (process.terminationStatus, String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init))
}

@Suite struct CoreNFCExampleProgramTests {
  @Test func writeThenReadThroughNFCReader() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("corenfc-examples-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let reader = "sim:ntag215:" + directory.appendingPathComponent("tag.bin").path

    let empty = try run("CoreNFCRead", reader: reader)
    #expect(empty.status == 1)
    #expect(empty.lines.last == "Session Invalidated: the tag holds no NDEF message")

    let written = try run("CoreNFCWrite", ["Hello", "Linux"], reader: reader)
    #expect(written.status == 0)
    #expect(written.lines.last == "Write NDEF message successful.")

    let read = try run("CoreNFCRead", reader: reader)
    #expect(read.status == 0)
    #expect(Array(read.lines.dropFirst()) == ["Message with 1 record(s):", "  Text (en) Hello Linux"])
  }

  @Test func tagCommandsOnType4AndNTAG() throws {
    let type4 = try run("CoreNFCTagCommands", reader: "sim:type4")
    #expect(type4.status == 0)
    #expect(type4.lines.contains { $0.hasPrefix("Capability container: 00 ") })

    let ntag = try run("CoreNFCTagCommands", reader: "sim:ntag215")
    #expect(ntag.status == 0)
    #expect(ntag.lines.contains { $0.hasPrefix("MIFARE tag 04 ") && $0.hasSuffix("family ultralight") })
    #expect(ntag.lines.contains("GET_VERSION: 00 04 04 02 01 00 11 03"))
  }

  @Test func noReaderIsReportedAsCoreNFCsSampleDoes() throws {
    let result = try run("CoreNFCRead", reader: "sim:no-such-tag")
    #expect(result.status == 69)
    #expect(result.lines.first?.hasPrefix("Scanning Not Supported") == true)
  }
}
