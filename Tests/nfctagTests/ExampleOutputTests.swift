import Foundation
import Testing

/// The examples write a line at a time, also into a pipe (`ScanTags | tee log`): a multi-read
/// session's first tag is seen while the program still runs, not when it ends.
@Suite struct ExampleOutputTests {
  @Test func scanTagsPrintsEachTagWhileItRuns() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-scantags-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let reader = "sim:ntag215:" + directory.appendingPathComponent("tag.bin").path
    #expect(try runNFCTag(["write", "text", "buffered?", "--reader", reader]).status == 0)

    let process = Process()
    process.executableURL = nfctagBinary().deletingLastPathComponent().appendingPathComponent("ScanTags")
    process.arguments = ["--reader", reader, "--timeout", "30"]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    defer { if process.isRunning { process.terminate() }; process.waitUntilExit() }
    // Read until the record's line comes (or 10 s pass); the session waits 30 s for more tags.
    var text = ""
    let deadline = Date().addingTimeInterval(10)
    let handle = output.fileHandleForReading
    while !text.contains("Text (en): buffered?"), Date() < deadline {
      var poll = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
      guard Glibc.poll(&poll, 1, 100) > 0 else { continue }
      let chunk = handle.availableData
      if chunk.isEmpty { break }
      text += String(decoding: chunk, as: UTF8.self)
    }
    #expect(text.contains("Text (en): buffered?"), "got \(text.debugDescription)")
    #expect(process.isRunning, "the line came only when ScanTags ended")
  }
}
