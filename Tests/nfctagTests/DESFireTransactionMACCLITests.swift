import DESFireEmulator
import Foundation
import Testing

/// `nfctag desfire read-file --transaction-mac-key-file` on `sim:desfire-light`, in process: the
/// read, CommitTransaction with option 01h and the card's TMV checked (docs/desfire.md,
/// "Transaction MAC"); another key is 74, a key that is not AES 64 before the card is touched.
@Suite struct DESFireTransactionMACCLI {
  let directory: URL

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-desfire-tmac-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  func keyFile(_ hexDigits: String) throws -> String {
    let path = directory.appendingPathComponent("\(UUID().uuidString).key").path
    try Data((hexDigits + "\n").utf8).write(to: URL(fileURLWithPath: path))
    return path
  }

  @Test func readFileShowsTheTMCAndTMVVerified() throws {
    let reader = "sim:desfire-light:" + directory.appendingPathComponent("light.img").path
    let app = ["desfire", "read-file", "--reader", reader, "--aid", "000001", "--file", "31"]
    let zero = try keyFile(String(repeating: "00", count: 16))
    let first = try runTool(app + ["--transaction-mac-key-file", zero])
    #expect(first.status == 0, "\(first.stderr)")
    #expect(first.stdout == String(repeating: "00", count: 32) + "\n")
    #expect(first.stderr == "nfctag: transaction MAC: TMC 1, TMV verified\n", "\(first.stderr)")
    // The image keeps the card's counter: the next transaction is the second.
    let second = try runTool(app + ["--length", "16", "--transaction-mac-key-file", zero])
    #expect(second.status == 0 && second.stderr == "nfctag: transaction MAC: TMC 2, TMV verified\n", "\(second.stderr)")
    // Another key: the TMV does not verify, 74, one line without a digit of the key.
    let wrong = try runTool(app + ["--transaction-mac-key-file", try keyFile(String(repeating: "5A", count: 16))])
    #expect(wrong.status == 74, "\(wrong.stderr)")
    #expect(wrong.stderr.split(separator: "\n").count == 1 && wrong.stderr.contains("TMV does not verify"), "\(wrong.stderr)")
    #expect(!wrong.stderr.lowercased().contains("5a5a"), "\(wrong.stderr)")
    #expect(wrong.stdout.isEmpty)
    // A key that is not AES: 64 before the card is touched.
    let des = try runTool(app + ["--transaction-mac-key-file", try keyFile(String(repeating: "00", count: 8))])
    #expect(des.status == 64, "\(des.stderr)")
    #expect(des.stderr.split(separator: "\n").count == 1, "\(des.stderr)")
  }
}
