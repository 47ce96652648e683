import Foundation
import Testing

/// An ISO/IEC 15693 UID (ICODE SLIX2, Type 5) is shown and recorded most significant byte first,
/// `E0` leading, by every command: info, scan, `{uid}` in a provisioned message and the ledger.
@Suite struct Type5UIDOrder {
  static let msbFirst = "e0040108a1b2c3d4"  // the emulator's SLIX2: E0, NXP (04), SLIX2 (01), serial

  @Test func infoScanProvisionAndTheLedgerAgree() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-t5uid-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let reader = "sim:icode-slix2:" + directory.appendingPathComponent("tag.bin").path
    let colons = stride(from: 0, to: 16, by: 2).map { i in
      String(Self.msbFirst[Self.msbFirst.index(Self.msbFirst.startIndex, offsetBy: i)...].prefix(2))
    }.joined(separator: ":")

    let info = try runTool(["info", "--reader", reader])
    #expect(info.stdout.contains("uid:             \(colons)\n"), "\(info.stdout)")
    #expect(try runTool(["info", "--format", "json", "--reader", reader]).stdout.contains(#""uid":"\#(Self.msbFirst)""#))
    #expect(try runTool(["scan", "--format", "json", "--reader", reader]).stdout.contains(#""uid":"\#(Self.msbFirst)""#))
    #expect(try runTool(["scan", "--reader", reader]).stdout.contains("uid:    \(colons)\n"))

    let ledger = directory.appendingPathComponent("l.sqlite").path
    let provision = try runTool(["provision", "--count", "1", "--url", "https://e.com/{uid}", "--json", "--timeout", "2",
                                   "--ledger", ledger, "--reader", reader])
    #expect(provision.status == 0, "\(provision.stderr)")
    #expect(provision.stdout.contains(#""uid":"\#(Self.msbFirst)""#))
    #expect(try runTool(["read", "--reader", reader]).stdout == "[0] URI: https://e.com/\(Self.msbFirst)\n")
    #expect(try runTool(["ledger", "export", ledger]).stdout.contains("\n1,\(Self.msbFirst),done,"))
  }
}
