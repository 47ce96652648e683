import Foundation
import Testing

/// A CC that claims more memory than the chip has does not lose the old message:
/// the write that does not fit is 73 and changes nothing.
@Suite struct CapacityFromTheChip {
  /// A factory image of `kind` holding "old", with `patch` applied to the image bytes.
  func image(_ kind: String, patch: (inout Data) -> Void) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-cap-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let path = directory.appendingPathComponent("t.bin")
    #expect(try runTool(["write", "text", "old", "--reader", "sim:\(kind):\(path.path)"]).status == 0)
    var bytes = try Data(contentsOf: path)
    patch(&bytes)
    try bytes.write(to: path)
    return "sim:\(kind):\(path.path)"
  }

  func expectUntouchedAfterATooLargeWrite(_ reader: String, size: Int) throws {
    let write = try runTool(["write", "text", String(repeating: "x", count: size), "--reader", reader])
    #expect(write.status == 73, "\(write.stderr)")
    #expect(write.stderr.contains("nothing was written"))
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("old"))
  }

  @Test func aTopaz512WhoseCCClaims2048Bytes() throws {
    let reader = try image("topaz512") { $0[10] = 0xFF }  // TMS FFh: (255 + 1) × 8 = 2048 bytes
    try expectUntouchedAfterATooLargeWrite(reader, size: 700)
  }

  @Test func aType4TagWhoseCCClaimsAHugeFile() throws {
    let reader = try image("type4") { $0[11] = 0x7F; $0[12] = 0xFF }  // NDEF file size 7FFFh over a 256-byte file
    try expectUntouchedAfterATooLargeWrite(reader, size: 300)
    #expect(try runTool(["write", "text", "still fits", "--reader", reader]).status == 0)
  }
}
