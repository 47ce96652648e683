import Foundation
import Testing

/// The feeder's command lines: `emulate --feed` refusals, and the in-process feed behind
/// `--reader sim:KIND+feed=N` driven by the real binary (no pcscd).
@Suite struct FeederCommandLines {
  @Test(arguments: [
    ["emulate", "--tag", "ntag213,ntag215"], ["emulate", "--tag", "ntag213", "--feed", "0"],
    ["emulate", "--tag", "ntag213", "--feed", "2", "--image", "x.bin"], ["emulate", "--tag", "ntag213", "--feed", "2", "--uid", "04112233445566"],
    ["emulate", "--tag", "ntag213", "--seed", "3"], ["emulate", "--tag", "ntag213,nope", "--feed", "2"],
    ["emulate", "--tag", "ntag213", "--feed", "2", "--hand-ms", "-5"], ["scan", "--reader", "sim:ntag213+feed=2,seed=x"],
  ])
  func refusedWithExit64(arguments: [String]) throws {
    let r = try runNFCTag(arguments)
    #expect(r.status == 64, "\(arguments): \(r.stderr)")
    #expect(r.stderr.hasPrefix("nfctag: "), "\(arguments): \(r.stderr)")
  }

  @Test func aContinuousScanReadsEachFedTagOnceAndTheImagesAreSaved() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-simfeed-\(UUID().uuidString)").path
    let r = try runNFCTag(["scan", "--continuous", "--json", "--timeout", "2",
                           "--reader", "sim:ntag213/ntag210+feed=2,seed=4,hand-ms=100,images=\(directory)"], timeout: 30)
    #expect(r.status == 0, "\(r.stderr)")
    let lines = r.stdout.split(separator: "\n")
    #expect(lines.count == 2, "\(r.stdout)")
    #expect(lines.last?.contains("NTAG210") == true)
    let names = try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
    #expect(names.count == 2 && names.first?.hasPrefix("0001-04") == true, "\(names)")
    for (line, name) in zip(lines, names) {
      let uid = String(name.dropFirst(5).prefix(14))
      #expect(line.lowercased().contains(uid), "\(line) should name \(uid)")
    }
  }

  /// The tag still in the field when a command ends is saved (`NNNN-UID.bin`), as `emulate
  /// --feed` saves it on Ctrl-C: `write` on a feed of one, in process.
  @Test func aWriteSavesTheFedTagItLeavesInTheField() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-simfeed-\(UUID().uuidString)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let r = try runTool(["write", "text", "hi", "--reader", "sim:ntag215+feed=1,seed=9,images=\(directory)"])
    #expect(r.status == 0, "\(r.stderr)")
    let names = try FileManager.default.contentsOfDirectory(atPath: directory)
    #expect(names.count == 1 && names.first?.hasPrefix("0001-04") == true, "\(names)")
    let name = try #require(names.first)
    let image = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
    #expect(image.range(of: Data("enhi".utf8)) != nil, "the image holds the text written")
  }

  /// `provision` of as many rows as the feed has tags: the run ends with its last row while the
  /// last tag is still in the field, and every tag is saved (five images, not four).
  @Test func aProvisionRunThatEndsWithItsLastRowSavesEveryTag() throws {
    registerVirtualNTAG424()
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-simfeed-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let images = directory.appendingPathComponent("img").path
    let r = try runTool(["provision", "--count", "5", "--url", "https://example.com/{n}", "--json", "--timeout", "5",
                         "--ledger", directory.appendingPathComponent("l.sqlite").path,
                         "--reader", "sim:ntag424dna+feed=5,seed=4,images=\(images)"])
    #expect(r.status == 0, "\(r.stderr)")
    let names = try FileManager.default.contentsOfDirectory(atPath: images).sorted()
    #expect(names.map { String($0.prefix(5)) } == ["0001-", "0002-", "0003-", "0004-", "0005-"], "\(names)")
  }
}
