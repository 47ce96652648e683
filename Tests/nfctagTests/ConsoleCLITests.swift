import Foundation
import Locking
import Testing
@testable import nfctag
@testable import NFCTagCLI
import NFCTransport

/// Runs `nfctag ARGS` under `script`, which gives it a pseudo-terminal for stdin, stdout and
/// stderr; the returned stdout holds both streams as the terminal showed them.
func runOnATerminal(_ arguments: [String], timeout: Double = 30) throws -> RunResult {
  let quoted = ([nfctagBinary().path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
  return try runProgram("/usr/bin/script", ["-qec", quoted.joined(separator: " "), "/dev/null"], timeout: timeout)
}

/// `-q/--quiet`, `-v/--verbose` and what a terminal sees, with the in-process simulator.
@Suite struct ConsoleCLI {
  static func reader(_ kind: String = "ntag215") throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-console-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return "sim:\(kind):" + directory.appendingPathComponent("t.bin").path
  }

  @Test func quietKeepsTheDataAndTheErrorsOnly() throws {
    let reader = try Self.reader()
    let write = try runTool(["write", "text", "quiet please", "-q", "--reader", reader])
    #expect(write.status == 0)
    #expect(write.stderr.isEmpty, "\(write.stderr)")
    #expect(try runTool(["write", "text", "loud", "--reader", reader]).stderr == "nfctag: wrote 11 bytes, verified\n")
    let read = try runTool(["read", "--quiet", "--reader", reader])
    #expect(read.stdout.contains("loud"))
    #expect(try runTool(["erase", "-q", "--reader", reader]).stderr.isEmpty)
    #expect(try runTool(["lock", "--yes", "-q", "--reader", reader]).stderr.isEmpty)
    // A warning is not an error: --quiet drops it too.
    let url = try runTool(["write", "url", "example.org", "-q", "--reader", try Self.reader()])
    #expect(url.status == 0 && url.stderr.isEmpty, "\(url.stderr)")
    // The failure line stays.
    let failed = try runTool(["write", "text", "no", "-q", "--reader", reader])
    #expect(failed.status == 77)
    #expect(failed.stderr.hasPrefix("nfctag: ") && failed.stderr.split(separator: "\n").count == 1, "\(failed.stderr)")
  }

  @Test func verboseSaysTheReaderPathTheTagAndThePlan() throws {
    let write = try runTool(["write", "text", "hello", "-v", "--reader", try Self.reader()])
    #expect(write.status == 0, "\(write.stderr)")
    #expect(withoutReaderNumbers(write.stderr).contains("nfctag: reader: ACS ACR122U PICC Interface (simulated ntag215) NN 00, ACR122U direct transmit"),
            "\(write.stderr)")
    #expect(write.stderr.contains("nfctag: tag: Type 2, NTAG215, UID 04:"), "\(write.stderr)")
    #expect(write.stderr.contains("nfctag: plan: 12-byte NDEF message onto a Type 2 tag (capacity 492 bytes); NDEF TLV at byte 16: pages 4–7"),
            "\(write.stderr)")
    #expect(write.stderr.contains("tear-safe: NDEF length 00 first"), "\(write.stderr)")
    #expect(write.stderr.hasSuffix("nfctag: wrote 12 bytes, verified\n"), "\(write.stderr)")

    let part3 = try runTool(["read", "--verbose", "--reader", "sim:ntag213@part3"])
    #expect(part3.stderr.contains("PC/SC Part 3 transparent exchange (FF C2, ISO 14443-3A frames)"), "\(part3.stderr)")
    let slix = try runTool(["info", "-v", "--reader", "sim:icode-slix2"])
    #expect(slix.stderr.contains("tag: Type 5, ICODE SLIX2"), "\(slix.stderr)")
    // Without -v none of it.
    #expect(try runTool(["read", "--reader", "sim:ntag213@part3"]).stderr.isEmpty)
    #expect(try runTool(["read", "-q", "-v", "--reader", "sim:ntag213"]).status == 64)
  }

  /// The simulated tag is in the field at once: no prompt flashes on a terminal.
  @Test func noPromptWhenTheTagIsAlreadyThere() throws {
    let r = try runOnATerminal(["read", "--reader", "sim:ntag215"])
    #expect(r.status == 0)
    #expect(!r.stdout.contains("Waiting for a tag"), "\(r.stdout)")
  }
}

/// A terminal on the end-to-end reader: the waiting prompt with no card (shown and cleared; not
/// in a pipe, not with --quiet) and the progress line of a long write.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct TerminalEndToEnd {
  static var prompt: String { "Waiting for a tag on \(e2eReader)… (Ctrl-C to stop)" }

  func expectNoCard() throws {
    let readers = try runNFCTag(["readers", "--json"])
    try #require(readers.stdout.contains(#""name":"\#(e2eReader)","card":false"#), "a card is in \(e2eReader): \(readers.stdout)")
  }

  @Test func aTerminalSeesThePromptAndAPipeDoesNot() throws {
    try expectNoCard()
    let tty = try runOnATerminal(["read", "--reader", e2eReader, "--timeout", "1"])
    #expect(tty.status == 75, "\(tty.stdout)")
    #expect(tty.stdout.contains(Self.prompt), "\(tty.stdout)")
    #expect(tty.stdout.contains(Self.prompt + "\r\u{1B}[Knfctag: "), "the prompt is cleared before the failure line: \(tty.stdout)")

    let pipe = try runNFCTag(["read", "--reader", e2eReader, "--timeout", "1"])
    #expect(pipe.status == 75)
    #expect(!pipe.stderr.contains("Waiting"), "\(pipe.stderr)")

    let quiet = try runOnATerminal(["read", "-q", "--reader", e2eReader, "--timeout", "1"])
    #expect(quiet.status == 75)
    #expect(!quiet.stdout.contains("Waiting"), "\(quiet.stdout)")
  }

  /// 210 page writes behind an emulated ACR122U's latency take about 1.8 s here: the progress
  /// line shows after the first second, on a terminal only.
  @Test func aLongWriteShowsItsProgressOnATerminal() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-progress-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let source = "sim:ntag216:" + directory.appendingPathComponent("source.bin").path
    #expect(try runNFCTag(["write", "text", String(repeating: "p", count: 820), "--reader", source]).status == 0)
    let image = directory.appendingPathComponent("dump.img")
    try runNFCTag(["dump", "--memory", "--format", "raw", "--reader", source]).stdoutBytes.write(to: image)

    let emulator = try Emulator(tag: "ntag216", extra: ["--latency", "acr122u"])
    defer { emulator.stop() }
    let tty = try runOnATerminal(["write", "image", image.path, "--reader", e2eReader], timeout: 60)
    #expect(tty.status == 0, "\(tty.stdout)")
    #expect(tty.stdout.contains("\r\u{1B}[Kwritten "), "\(tty.stdout)")
    #expect(tty.stdout.contains("/840 bytes"), "\(tty.stdout)")
    #expect(tty.stdout.contains("\r\u{1B}[Knfctag: restored the image"), "cleared before the last line: \(tty.stdout)")
    let again = try runNFCTag(["dump", "--memory", "--reader", e2eReader])
    #expect(again.status == 0)
    #expect(!again.stderr.contains("read "), "no progress in a pipe: \(again.stderr)")
  }

  @Test func continuousScanAndTypedCommandsPromptToo() throws {
    try expectNoCard()
    let scan = try runOnATerminal(["scan", "--continuous", "--reader", e2eReader, "--timeout", "1"])
    #expect(scan.status == 75, "\(scan.stdout)")
    #expect(scan.stdout.contains(Self.prompt), "\(scan.stdout)")
    let send = try runOnATerminal(["send", "30 04", "--reader", e2eReader, "--timeout", "1"])
    #expect(send.status == 75, "\(send.stdout)")
    #expect(send.stdout.contains(Self.prompt), "\(send.stdout)")
  }
}

/// The progress line's own rules, with its output collected instead of written to a terminal:
/// the bytes as the hook hears them, nothing before the delay, cleared at the end.
@Suite struct ProgressLineRules {
  final class Collected: Sendable {
    let lines = Locked<[String]>([])
    let cleared = Locked(0)
  }

  func run(delay: UInt64, steps: [(TransferProgress.Direction, Int)], total: Int, pause: UInt32 = 0) throws -> Collected {
    let collected = Collected()
    let line = ProgressLine(enabled: true, delay: delay, show: { text in collected.lines.withLock { $0.append(text) } },
                            clear: { collected.cleared.withLock { $0 += 1 } })
    try line.around {
      for (direction, bytes) in steps {
        var counter = TransferProgress.Counter(direction, total: total)
        counter.advance(by: bytes)
        if pause > 0 { usleep(pause) }
      }
    }
    return collected
  }

  @Test func showsTheBytesAfterTheDelayAndClearsAtTheEnd() throws {
    let collected = try run(delay: 0, steps: [(.writing, 540)], total: 540)
    #expect(collected.lines.withLock { $0 } == ["written 540/540 bytes"])
    #expect(collected.cleared.withLock { $0 } == 1)
    let read = try run(delay: 0, steps: [(.reading, 888)], total: 888)
    #expect(read.lines.withLock { $0 } == ["read 888/888 bytes"])
  }

  @Test func aQuickOperationShowsNothing() throws {
    let collected = try run(delay: 1_000_000_000, steps: [(.writing, 100), (.writing, 540)], total: 540)
    #expect(collected.lines.withLock { $0 }.isEmpty)
    #expect(collected.cleared.withLock { $0 } == 0)
  }

  @Test func atMostTenLinesASecondButAlwaysTheLast() throws {
    var counter = TransferProgress.Counter(.writing, total: 1000)
    let collected = Collected()
    let line = ProgressLine(enabled: true, delay: 0, show: { text in collected.lines.withLock { $0.append(text) } }, clear: {})
    try line.around { for _ in 0 ..< 100 { counter.advance(by: 10) } }
    let lines = collected.lines.withLock { $0 }
    #expect(lines.first == "written 10/1000 bytes")
    #expect(lines.last == "written 1000/1000 bytes")
    #expect(lines.count <= 3, "\(lines)")
  }
}
