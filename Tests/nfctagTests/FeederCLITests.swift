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
}
