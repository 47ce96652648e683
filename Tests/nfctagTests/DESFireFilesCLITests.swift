import DESFireEmulator
import Foundation
import Testing

/// `nfctag desfire create-file --kind …`, `read-file`/`write-file` in MAC and full mode, `value …`
/// and `records …`, in process on `sim:desfire-ev1-4k` image readers (docs/desfire.md, "Command
/// line"; docs/exit-codes.md, "desfire").
@Suite struct DESFireFilesCLI {
  let directory: URL
  let aesKey: String

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-desfire-files-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    aesKey = directory.appendingPathComponent("aes.key").path
    try Data((String(repeating: "00", count: 16) + "\n").utf8).write(to: URL(fileURLWithPath: aesKey))
  }

  /// A fresh factory card kept in an image, with application 00A0B0 of two AES keys.
  func cardWithApplication() throws -> String {
    let reader = "sim:desfire-ev1-4k:" + directory.appendingPathComponent("card-\(UUID().uuidString).img").path
    try desfireOK(["create-app", "--reader", reader, "--aid", "00A0B0", "--key-count", "2", "--key-type", "aes"])
    return reader
  }

  var key0: [String] { ["--key-file", aesKey, "--key-type", "aes", "--key-no", "0"] }

  @Test func eachKindIsCreated() throws {
    let reader = try cardWithApplication()
    let app = ["--reader", reader, "--aid", "00A0B0"]
    try desfireOK(["create-file"] + app + ["--file", "1", "--size", "32"])
    try desfireOK(["create-file"] + app + ["--file", "2", "--kind", "backup", "--size", "16"])
    try desfireOK(["create-file"] + app + ["--file", "3", "--kind", "value", "--lower", "-10", "--upper", "100", "--value", "5",
                                    "--limited-credit"])
    try desfireOK(["create-file"] + app + ["--file", "4", "--kind", "linear-record", "--record-size", "4", "--records", "3"])
    try desfireOK(["create-file"] + app + ["--file", "5", "--kind", "cyclic-record", "--record-size", "2", "--records", "3"])
    let files = try desfireOK(["files"] + app).stdout
    #expect(files.contains("file 1: standard data, 32 bytes"), "\(files)")
    #expect(files.contains("file 2: backup data, 16 bytes"), "\(files)")
    #expect(files.contains("file 3: value, value -10 to 100"), "\(files)")
    #expect(files.contains("file 4: linear record, records of 4 bytes, 0 of 3"), "\(files)")
    #expect(files.contains("file 5: cyclic record, records of 2 bytes, 0 of 3"), "\(files)")
    #expect(try desfireOK(["value", "get"] + app + ["--file", "3"]).stdout == "5\n")
  }

  @Test func createFileOptionsThatDoNotFitTheKindAre64() throws {
    let reader = try cardWithApplication()
    let app = ["create-file", "--reader", reader, "--aid", "00A0B0", "--file", "1"]
    try desfireRefused(app, 64, "--size")
    try desfireRefused(app + ["--kind", "value", "--size", "8"], 64, "--size does not go with --kind value")
    try desfireRefused(app + ["--kind", "value", "--lower", "10", "--upper", "5"], 64, "in that order")
    try desfireRefused(app + ["--kind", "value", "--upper", "2147483648"], 64, "--upper")
    try desfireRefused(app + ["--kind", "linear-record", "--record-size", "4"], 64, "--records")
    try desfireRefused(app + ["--kind", "cyclic-record", "--record-size", "4", "--records", "1"], 64, "--records is 2")
    try desfireRefused(app + ["--kind", "backup", "--size", "8", "--records", "2"], 64, "--records does not go")
    #expect(!(try desfireOK(["files", "--reader", reader, "--aid", "00A0B0"]).stdout.contains("file 1")))
  }

  /// Files in each mode whose rights are key 1: written and read with key 1 in the file's mode; a
  /// full-mode file's bytes never in clear in the trace; MAC mode's in clear with their CMAC.
  @Test(arguments: ["plain", "mac", "full"])
  func eachModeIsReadAndWritten(mode: String) throws {
    let reader = try cardWithApplication()
    let app = ["--reader", reader, "--aid", "00A0B0"]
    let key1 = ["--key-file", aesKey, "--key-type", "aes", "--key-no", "1"]
    for (number, kind) in [("1", "standard"), ("2", "backup")] {
      try desfireOK(["create-file"] + app + ["--file", number, "--kind", kind, "--size", "64", "--comm", mode,
                                      "--read", "1", "--write", "1", "--read-write", "1"])
      let secret = "5EC2E75EC2E75EC2E75EC2E75EC2E7" + number + number
      let write = try runTool(["desfire", "write-file"] + app + ["--file", number, "--hex", secret, "--offset", "3", "--trace"] + key1)
      #expect(write.status == 0, "\(write.stderr)")
      let read = try runTool(["desfire", "read-file"] + app + ["--file", number, "--offset", "3", "--length", "16", "--trace"] + key1)
      #expect(read.status == 0, "\(read.stderr)")
      #expect(read.stdout == secret.lowercased() + "\n", "\(read.stdout)")
      let trace = (write.stderr + read.stderr).uppercased().replacingOccurrences(of: " ", with: "")
      #expect(trace.contains("5EC2E75EC2E7") == (mode != "full"), "\(mode): \(trace)")
      // Without the key: 77 (the right is key 1).
      try desfireRefused(["read-file"] + app + ["--file", number], 77, "91 ae")
    }
  }

  @Test func aValueFileCreditsDebitsAndKeepsItsLimits() throws {
    let reader = try cardWithApplication()
    let app = ["--reader", reader, "--aid", "00A0B0", "--file", "3"]
    try desfireOK(["create-file", "--reader", reader, "--aid", "00A0B0", "--file", "3", "--kind", "value", "--upper", "100",
            "--value", "10", "--limited-credit", "--comm", "full", "--read", "0", "--write", "0", "--read-write", "0"])
    try desfireOK(["value", "credit"] + app + ["--amount", "50"] + key0)
    try desfireOK(["value", "debit"] + app + ["--amount", "20"] + key0)
    #expect(try desfireOK(["value", "get"] + app + key0).stdout == "40\n")
    // Past the upper limit, below the lower: 91 BE, 65, nothing changed.
    try desfireRefused(["value", "credit"] + app + ["--amount", "61"] + key0, 65, "the value would pass the file's limits")
    try desfireRefused(["value", "debit"] + app + ["--amount", "41"] + key0, 65, "91 be")
    // LimitedCredit: at most the last committed Debit (20), once.
    try desfireRefused(["value", "limited-credit"] + app + ["--amount", "21"] + key0, 65, "LimitedCredit adds at most")
    try desfireOK(["value", "limited-credit"] + app + ["--amount", "15"] + key0)
    try desfireRefused(["value", "limited-credit"] + app + ["--amount", "1"] + key0, 65, "91 be")
    let json = try desfireOK(["value", "get"] + app + key0 + ["--format", "json"]).stdout
    #expect(json == "{\"aid\":\"00a0b0\",\"file\":3,\"value\":55}\n", "\(json)")
    // Without the key: 77; a negative amount: 64; a data file: 65.
    try desfireRefused(["value", "get"] + app, 77, "91 ae")
    try desfireRefused(["value", "credit"] + app + ["--amount", "-1"] + key0, 64, "--amount")
    try desfireOK(["create-file", "--reader", reader, "--aid", "00A0B0", "--file", "4", "--size", "8"])
    try desfireRefused(["value", "get", "--reader", reader, "--aid", "00A0B0", "--file", "4"], 65, "not a value file")
  }

  @Test func recordFilesAddReadAndClear() throws {
    let reader = try cardWithApplication()
    let linear = ["--reader", reader, "--aid", "00A0B0", "--file", "6"]
    let cyclic = ["--reader", reader, "--aid", "00A0B0", "--file", "7"]
    try desfireOK(["create-file", "--reader", reader, "--aid", "00A0B0", "--file", "6", "--kind", "linear-record",
            "--record-size", "4", "--records", "2", "--comm", "mac", "--read", "1", "--write", "1", "--read-write", "1"])
    try desfireOK(["create-file", "--reader", reader, "--aid", "00A0B0", "--file", "7", "--kind", "cyclic-record",
            "--record-size", "3", "--records", "3", "--comm", "full", "--read", "1", "--write", "1", "--read-write", "1"])
    let key1 = ["--key-file", aesKey, "--key-type", "aes", "--key-no", "1"]
    #expect(try desfireOK(["records", "read"] + linear + key1).stdout == "")
    try desfireOK(["records", "write"] + linear + ["--hex", "0102"] + key1)
    try desfireOK(["records", "write"] + linear + ["--hex", "AA", "--offset", "3"] + key1)
    #expect(try desfireOK(["records", "read"] + linear + key1).stdout == "01020000\n000000aa\n")
    // A full linear file: 91 BE, 65; past the record: 65.
    try desfireRefused(["records", "write"] + linear + ["--hex", "05"] + key1, 65, "full linear record file")
    try desfireOK(["records", "clear"] + linear + key1)
    try desfireRefused(["records", "write"] + linear + ["--hex", "0102030405"] + key1, 65, "91 be")
    #expect(try desfireOK(["records", "read"] + linear + key1).stdout == "")
    // A cyclic file keeps maximum - 1 records, the oldest dropped.
    for record in ["111111", "222222", "333333"] { try desfireOK(["records", "write"] + cyclic + ["--hex", record] + key1) }
    let json = try desfireOK(["records", "read"] + cyclic + key1 + ["--format", "json"]).stdout
    #expect(json == "{\"aid\":\"00a0b0\",\"file\":7,\"records\":[\"222222\",\"333333\"]}\n", "\(json)")
    #expect(try desfireOK(["records", "read"] + cyclic + key1 + ["--count", "1"]).stdout == "333333\n")
    let traced = try runTool(["desfire", "records", "read", "--trace"] + cyclic + key1)
    #expect(traced.status == 0 && !traced.stderr.replacingOccurrences(of: " ", with: "").contains("333333"), "\(traced.stderr)")
    try desfireRefused(["records", "read"] + cyclic, 77, "91 ae")
    try desfireRefused(["records", "read", "--reader", reader, "--aid", "00A0B0", "--file", "9"], 65, "91 f0")
  }
}
