import Foundation
import Testing

/// `nfctag emulate --feed` through the real pcscd and vpcd: tags come one after another, each
/// read by the real binary until it leaves, and each one's final memory is saved.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReader)
struct FeederE2ETests {
  /// A running `nfctag emulate --feed`.
  final class Feeder {
    let process = Process()
    let stderr = Pipe()
    let directory: URL

    init(_ arguments: [String]) throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-feed-\(UUID().uuidString)")
      process.executableURL = nfctagBinary()
      process.arguments = ["emulate", "--vpcd", e2ePort, "--image-dir", directory.path] + arguments
      process.standardError = stderr
      process.standardOutput = FileHandle.nullDevice
      try process.run()
      try? stderr.fileHandleForWriting.close()
    }

    /// Waits for the exit; nil after `seconds`.
    func waitForExit(seconds: Double) -> Int32? {
      let deadline = Date().addingTimeInterval(seconds)
      while process.isRunning, Date() < deadline { usleep(20_000) }
      if process.isRunning {
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        return nil
      }
      return process.terminationStatus
    }

    var lines: [String] {
      String(decoding: stderr.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The saved images by file name.
    func images() throws -> [String: [UInt8]] {
      var out: [String: [UInt8]] = [:]
      for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] where name.hasSuffix(".bin") {
        out[name] = try Array(Data(contentsOf: directory.appendingPathComponent(name)))
      }
      return out
    }

    deinit { if process.isRunning { process.terminate() } }
  }

  /// The milliseconds between a tag leaving and the next arriving, from the feeder's lines.
  static func swapTimes(_ lines: [String]) -> [Int] {
    lines.compactMap { line -> Int? in
      guard let range = line.range(of: " ms after the last one left") else { return nil }
      return Int(line[..<range.lowerBound].split(separator: " ").last ?? "")
    }
  }

  /// Waits until the e2e slot shows (or stops showing) a card.
  static func waitForCard(present: Bool, seconds: Double = 5) -> Bool {
    CardWatch.wait(in: e2eReader, present: present, seconds: seconds) == .reached
  }

  /// The UID a Type 2 image holds (UID0–2 in page 0, UID3–6 in page 1).
  static func uid(ofImage image: [UInt8]) -> String {
    guard image.count >= 8 else { return "" }
    return (Array(image[0..<3]) + Array(image[4..<8])).map { String(format: "%02x", $0) }.joined()
  }

  @Test func threeTagsReadOneAfterAnotherLeaveThreeImages() throws {
    let scanner = try ContinuousScan()
    usleep(300_000)
    let feeder = try Feeder(["--tag", "ntag213", "--feed", "3", "--seed", "11"])
    let status = feeder.waitForExit(seconds: 40)
    let (scanStatus, scanned) = scanner.interrupt()
    let lines = feeder.lines
    #expect(status == 0, "\(lines)")
    #expect(scanStatus == 0)
    let images = try feeder.images()
    #expect(images.count == 3, "\(images.keys.sorted())")
    var uids: [String] = []
    for name in images.keys.sorted() {
      let uid = Self.uid(ofImage: images[name] ?? [])
      #expect(name.hasSuffix("-\(uid).bin"), "\(name) holds UID \(uid)")
      #expect(uid.hasPrefix("04"))
      uids.append(uid)
    }
    #expect(Set(uids).count == 3)
    #expect(images.keys.sorted().map { String($0.prefix(4)) } == ["0001", "0002", "0003"])
    // The scanner read each tag once, in the order they came.
    #expect(scanned.count == 3, "\(scanned)")
    for (line, uid) in zip(scanned, uids) { #expect(line.lowercased().contains(uid), "\(line) should name \(uid)") }
    let swaps = Self.swapTimes(lines)
    #expect(swaps.count == 2, "\(lines)")
    print("feeder: tag swap through pcscd (left → arrived) \(swaps) ms")
  }

  @Test func theLEDCommandTakesEachTagAway() throws {
    // A minute of hand time: only the LED command can take the tags away within the test.
    let feeder = try Feeder(["--tag", "ntag213,ntag210", "--feed", "2", "--seed", "12", "--hand-ms", "60000"])
    var seen: [String] = []
    var reads: [Double] = []
    for round in 0..<2 {
      // pcscd notices a departure on its next presence poll (0.4 s): a scan started before then
      // would meet the leaving tag.
      if round > 0 { #expect(Self.waitForCard(present: false), "the first tag did not leave") }
      let start = Date()
      let read = try runNFCTag(["scan", "--json", "--reader", e2eReader, "--timeout", "10"])
      reads.append(Date().timeIntervalSince(start))
      #expect(read.status == 0, "\(read.stderr)")
      seen.append(read.stdout)
      let led = try runNFCTag(["reader", "led", "--green", "--reader", e2eReader])
      #expect(led.status == 0, "\(led.stderr)")
    }
    let status = feeder.waitForExit(seconds: 15)
    let lines = feeder.lines
    #expect(status == 0, "\(lines)")
    #expect(lines.filter { $0.contains("left after the LED/buzzer command") }.count == 2, "\(lines)")
    let images = try feeder.images()
    #expect(images.count == 2)
    let uids = images.keys.sorted().map { Self.uid(ofImage: images[$0] ?? []) }
    #expect(Set(uids).count == 2)
    for (output, uid) in zip(seen, uids) { #expect(output.lowercased().contains(uid), "\(output) should name \(uid)") }
    #expect(seen.last?.contains("NTAG210") == true)
    print("feeder: scan waited \(reads.map { Int($0 * 1000) }) ms for each tag; swaps \(Self.swapTimes(lines)) ms")
  }
}
