import Foundation
import Testing

/// Round trips are what a user waits for: `scan` reads what it shows once.
struct RoundTripCLITests {
  func commands(_ arguments: [String]) throws -> Int {
    let r = try runTool(arguments + ["--trace"])
    #expect(r.status == 0, "\(r.stderr)")
    return r.stderr.split(separator: "\n").filter { $0.hasPrefix("trace: >") }.count
  }

  @Test(arguments: ["ntag213", "ntag215", "ntag216"])
  func scanSendsNoMoreCommandsThanRead(kind: String) throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-rt-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let reader = "sim:\(kind):\(dir.appendingPathComponent("tag.bin").path)"
    #expect(try runTool(["write", "url", "https://example.com/round-trips", "--reader", reader]).status == 0)
    let read = try commands(["read", "--reader", reader])
    let scan = try commands(["scan", "--reader", reader])
    #expect(scan == read, "scan sent \(scan) commands, read \(read)")
  }
}
