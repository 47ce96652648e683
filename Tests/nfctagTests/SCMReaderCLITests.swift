import Foundation
import Testing

/// FeliCa Lite-S and Topaz behind the SCM/Identiv readers' own pseudo-APDUs (FeliCa `FF 40`–`FF 4A`
/// on the uTrust 3700 F and SCL3711, Type 1 `FF 50`–`FF 60` on the SCL3711): the tag commands run
/// end to end on the `sim:` reader faces. A family a face does not read is refused when the face is
/// made, with one line naming the reader and a face that reads it: a `sim:` spec no reader can be
/// (64, docs/exit-codes.md "bad `--reader sim:` spec"); on a real reader the tag's link refuses
/// it (65: NFCReadersTests' `TopazOnAPartThreeReader`, NFCSessionTests' `AReaderThatCannotCarryACommand`).
@Suite struct SCMReaderCLI {
  func simulator(_ kind: String, _ face: String) throws -> String {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-scm-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return "sim:\(kind)@\(face):" + directory.appendingPathComponent("tag.bin").path
  }

  @Test(arguments: [("felica-lite-s", "utrust3700f"), ("felica-lite-s", "scl3711"), ("topaz512", "scl3711")])
  func writeReadDumpInfoEraseFormatLock(kind: String, face: String) throws {
    let reader = try simulator(kind, face)
    let url = "https://example.com/\(kind)/\(face)"
    let write = try runTool(["write", "url", url, "--reader", reader])
    #expect(write.status == 0, "\(write.stderr)")
    let read = try runTool(["read", "--reader", reader])
    #expect(read.status == 0 && read.stdout.contains(url), "\(read.stdout) \(read.stderr)")
    let dump = try runTool(["dump", "--memory", "--format", "raw", "--reader", reader])
    #expect(dump.status == 0 && dump.stdoutBytes.range(of: Data("example.com/\(kind)".utf8)) != nil, "\(dump.stderr)")
    let info = try runTool(["info", "--reader", reader])
    #expect(info.status == 0, "\(info.stderr)")
    let erase = try runTool(["erase", "--reader", reader])
    #expect(erase.status == 0, "\(erase.stderr)")
    #expect(try runTool(["read", "--format", "json", "--reader", reader]).stdout == "{\"records\":[]}\n")
    let format = try runTool(["format", "--reader", reader])
    #expect(format.status == 0, "\(format.stderr)")
    #expect(try runTool(["write", "text", "kept", "--reader", reader]).status == 0)
    let lock = try runTool(["lock", "--yes", "--reader", reader])
    #expect(lock.status == 0, "\(lock.stderr)")
    #expect(try runTool(["write", "text", "not allowed", "--reader", reader]).status == 77)
    #expect(try runTool(["read", "--reader", reader]).stdout.contains("kept"))
  }

  /// The families these faces still do not read: FeliCa on the OMNIKEY 5022, Topaz on the uTrust.
  @Test(arguments: [("felica-lite-s", "omnikey5022", "OMNIKEY 5022"), ("topaz512", "utrust3700f", "uTrust 3700 F")])
  func aFamilyTheFaceDoesNotReadIsRefused(kind: String, face: String, product: String) throws {
    let r = try runTool(["read", "--reader", "sim:\(kind)@\(face)"])
    #expect(r.status == 64, "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.contains(product) && r.stderr.contains("@acr122u"), "\(r.stderr)")
  }
}
