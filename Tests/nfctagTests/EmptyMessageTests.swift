import Foundation
import Testing

/// The empty NDEF message (length 0 on the tag) goes through every command and back: JSON
/// `{"records":[]}`, an empty hex line, zero raw bytes, "(empty NDEF message)" in text.
@Suite struct EmptyMessage {
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-empty-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  /// A simulated tag of `kind` kept in an image file, holding a Text record.
  func tagWithText(_ kind: String = "ntag215", name: String = "tag") throws -> String {
    let reader = "sim:\(kind):" + directory.appendingPathComponent("\(name).bin").path
    let write = try runTool(["write", "text", "hello", "--reader", reader])
    #expect(write.status == 0, "\(write.stderr)")
    return reader
  }

  @Test(arguments: ["topaz512", "ntag215", "felica-lite-s", "type4", "icode-slix2"])
  func writeJSONOfNoRecordsWritesWhatEraseFastWrites(kind: String) throws {
    let written = try tagWithText(kind, name: "json")
    let erased = try tagWithText(kind, name: "erased")
    let write = try runTool(["write", "json", "-", "--reader", written], stdin: Data(#"{"records":[]}"#.utf8))
    #expect(write.status == 0, "\(write.stderr)")
    #expect(write.stderr.contains("wrote 0 bytes, verified"), "\(write.stderr)")
    #expect(try runTool(["erase", "--fast", "--reader", erased]).status == 0)
    let memory = { (reader: String) in try runTool(["dump", "--memory", "--format", "raw", "--reader", reader]).stdoutBytes }
    #expect(try memory(written) == memory(erased), "\(kind)")
    #expect(try runTool(["read", "--format", "json", "--reader", written]).stdout == "{\"records\":[]}\n")
  }

  @Test func readJSONOfAnEmptyTagWritesBack() throws {
    let reader = try tagWithText()
    #expect(try runTool(["erase", "--reader", reader]).status == 0)
    let json = try runTool(["read", "--format", "json", "--reader", reader])
    #expect(json.stdout == "{\"records\":[]}\n")
    let other = try tagWithText(name: "other")
    let write = try runTool(["write", "json", "-", "--reader", other], stdin: Data(json.stdout.utf8))
    #expect(write.status == 0, "\(write.stderr)")
    #expect(try runTool(["read", "--format", "json", "--reader", other]).stdout == "{\"records\":[]}\n")
  }

  @Test func dumpOfAnEmptyTagDecodesAndWritesBack() throws {
    let reader = try tagWithText()
    #expect(try runTool(["erase", "--reader", reader]).status == 0)
    let dump = try runTool(["dump", "--reader", reader])
    #expect(dump.status == 0)
    #expect(dump.stdout == "\n")
    let text = try runTool(["ndef", "decode"], stdin: Data(dump.stdout.utf8))
    #expect(text.status == 0, "\(text.stderr)")
    #expect(text.stdout == "(empty NDEF message)\n")
    #expect(try runTool(["ndef", "decode", "--format", "json"], stdin: Data(dump.stdout.utf8)).stdout == "{\"records\":[]}\n")
    let raw = try runTool(["dump", "--format", "raw", "--reader", reader])
    #expect(raw.stdoutBytes.isEmpty)
    #expect(try runTool(["ndef", "decode", "--input", "raw"], stdin: raw.stdoutBytes).stdout == "(empty NDEF message)\n")
    let other = try tagWithText(name: "other")
    let write = try runTool(["write", "ndef", "-", "--reader", other], stdin: Data(dump.stdout.utf8))
    #expect(write.status == 0, "\(write.stderr)")
    #expect(try runTool(["read", "--reader", other]).stdout == "(empty NDEF message)\n")
  }

  @Test func noInputAtAllIsRefused() throws {
    for arguments in [["ndef", "decode"], ["ndef", "decode", "--input", "base64"], ["write", "ndef", "-", "--reader", "sim:ntag215"]] {
      let r = try runTool(arguments, stdin: Data())
      #expect(r.status == 65, "\(arguments)")
      #expect(r.stderr.hasPrefix("nfctag: no input"), "\(r.stderr)")
      #expect(r.stderr.split(separator: "\n").count == 1)
    }
  }

  @Test func encodeJSONOfNoRecordsIsAnEmptyLine() throws {
    let r = try runTool(["ndef", "encode", "json"], stdin: Data(#"{"records":[]}"#.utf8))
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout == "\n")
  }

  @Test func readAndScanSayTheSameInText() throws {
    let read = try runTool(["read", "--reader", "sim:ntag215"])
    #expect(read.status == 0)
    #expect(read.stdout == "(empty NDEF message)\n")
    #expect(try runTool(["scan", "--reader", "sim:ntag215"]).stdout.hasSuffix("\n(empty NDEF message)\n"))
  }

  @Test func aD0EmptyRecordIsAMessageOfOneRecord() throws {
    let r = try runTool(["ndef", "decode", "d00000", "--format", "json"])
    #expect(r.status == 0)
    #expect(r.stdout.hasPrefix(#"{"records":[{"tnf":"empty""#), "\(r.stdout)")
  }
}
