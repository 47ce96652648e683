import Foundation
import Testing

/// MIFARE DESFire through the real pcscd, behind the ACR122U and a Part 3 reader (the ACR1552U),
/// under their real names (nfctag's pcsc-lite driver, docs/ifd-handler.md): NDEF as AN11004 maps
/// it on each generation, and `nfctag desfire …` (docs/desfire.md).
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .enabled(if: ifdHandlerInstalled, ifdHandlerSkipReason))
struct DriverDESFireEndToEnd {
  /// A face with a DESFire kind.
  struct Cell: Sendable, CustomTestStringConvertible {
    var face: String
    var kind: String
    var testDescription: String { "\(kind) behind \(face)" }
  }

  static let faces = ["acr122u", "acr1552u"]
  static let kinds = ["desfire-ev1-4k", "desfire-ev2-4k", "desfire-ev3-4k"]
  /// Every face with every generation in CI (``fullCounts``); in a plain `make test`, each
  /// generation once, the faces in turn.
  static var cells: [Cell] {
    fullCounts ? faces.flatMap { face in kinds.map { Cell(face: face, kind: $0) } }
      : kinds.enumerated().map { Cell(face: faces[$0.offset % faces.count], kind: $0.element) }
  }

  /// A factory card: `scan` names it, `read` says to format it (65; on an EV2 after its random
  /// FCI, docs/desfire.md), `format` gives it AN11004's NDEF application, and a URL written reads
  /// back.
  @Test(arguments: cells)
  func aFactoryCardIsFormattedWrittenAndRead(_ cell: Cell) throws {
    try withDriverReader(face: cell.face, tag: cell.kind) { reader, _ in
      func nfctag(_ arguments: String...) throws -> RunResult {
        try runNFCTag(arguments + ["--reader", reader.name, "--timeout", "5"])
      }
      let scan = try nfctag("scan", "--json")
      #expect(scan.status == 0, "\(scan.stderr)")
      let generation = cell.kind.split(separator: "-")[1].uppercased()
      #expect(scan.stdout.contains("MIFARE DESFire \(generation) 4K"), "\(scan.stdout)")
      let unformatted = try nfctag("read")
      #expect(unformatted.status == 65, "\(unformatted.stderr)")
      #expect(unformatted.stderr.contains("nfctag format"), "\(unformatted.stderr)")
      let format = try nfctag("format")
      #expect(format.status == 0, "\(format.stderr)")
      let url = "https://example.org/desfire/\(cell.face)/\(cell.kind)"
      let write = try nfctag("write", "url", url)
      #expect(write.status == 0, "\(write.stderr)")
      #expect(try nfctag("read", "--format", "json").stdout.contains(#""uri":"\#(url)""#))
    }
  }

  /// The faces `nfctag desfire …` runs on: both in CI, the Part 3 reader in a plain `make test`.
  static var commandFaces: [String] { fullCounts ? faces : ["acr1552u"] }

  /// `nfctag desfire …` on a factory EV1 through pcscd: an application of each key type with a
  /// standard file in MAC or full mode written and read with key 1; in the AES application a
  /// backup, a value and two record files in the three modes, committed; the PICC master key to
  /// AES and back to DES (docs/desfire.md, "Command line").
  @Test(arguments: commandFaces)
  func theDESFireCommandsThroughPcscd(_ face: String) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-driver-desfire-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func keyFile(_ name: String, _ hex: String) throws -> String {
      let url = directory.appendingPathComponent(name)
      try Data((hex + "\n").utf8).write(to: url)
      return url.path
    }
    let zero = ["des": 8, "2k3des": 16, "3k3des": 24, "aes": 16]
    try withDriverReader(face: face, tag: "desfire-ev1-4k") { reader, _ in
      @discardableResult
      func desfire(_ arguments: [String], _ expected: Int32 = 0, file: String = #fileID, line: Int = #line) throws -> RunResult {
        let r = try runNFCTag(["desfire"] + arguments + ["--reader", reader.name, "--timeout", "5"])
        #expect(r.status == expected, "\(arguments.prefix(2).joined(separator: " ")): \(r.stderr)",
                sourceLocation: SourceLocation(fileID: file, filePath: file, line: line, column: 1))
        return r
      }
      let rights = ["--read", "1", "--write", "1", "--read-write", "1"]
      for (index, type) in ["des", "2k3des", "3k3des", "aes"].enumerated() {
        let aid = ["--aid", "0000A\(index + 1)"]
        let key1 = ["--key-file", try keyFile("\(type).key", String(repeating: "00", count: zero[type] ?? 16)),
                    "--key-type", type, "--key-no", "1"]
        try desfire(["create-app"] + aid + ["--key-count", "2", "--key-type", type])
        let mode = index % 2 == 0 ? "mac" : "full"
        try desfire(["create-file"] + aid + ["--file", "1", "--size", "40", "--comm", mode] + rights)
        let data = "C0FFEE0\(index)" + String(repeating: "5A", count: 20)
        try desfire(["write-file"] + aid + ["--file", "1", "--hex", data] + key1)
        let read = try desfire(["read-file"] + aid + ["--file", "1", "--length", "24"] + key1)
        #expect(read.stdout == data.lowercased() + "\n", "\(type) \(mode): \(read.stdout)")
        try desfire(["read-file"] + aid + ["--file", "1"], 77)  // the right is key 1
      }
      // The AES application: the other kinds, each in its mode, committed at the end of each command.
      let aes = ["--aid", "0000A4"]
      let key1 = ["--key-file", try keyFile("aes1.key", String(repeating: "00", count: 16)), "--key-type", "aes", "--key-no", "1"]
      try desfire(["create-file"] + aes + ["--file", "2", "--kind", "backup", "--size", "16", "--comm", "full"] + rights)
      try desfire(["write-file"] + aes + ["--file", "2", "--hex", "0102030405060708"] + key1)
      #expect(try desfire(["read-file"] + aes + ["--file", "2", "--length", "8"] + key1).stdout == "0102030405060708\n")
      try desfire(["create-file"] + aes + ["--file", "3", "--kind", "value", "--upper", "100", "--value", "10", "--comm", "mac"] + rights)
      try desfire(["value", "credit"] + aes + ["--file", "3", "--amount", "25"] + key1)
      try desfire(["value", "debit"] + aes + ["--file", "3", "--amount", "5"] + key1)
      #expect(try desfire(["value", "get"] + aes + ["--file", "3"] + key1).stdout == "30\n")
      try desfire(["value", "credit"] + aes + ["--file", "3", "--amount", "71"] + key1, 65)  // past the upper limit
      try desfire(["create-file"] + aes + ["--file", "4", "--kind", "linear-record", "--record-size", "2", "--records", "2",
                   "--comm", "plain"] + rights)
      try desfire(["create-file"] + aes + ["--file", "5", "--kind", "cyclic-record", "--record-size", "2", "--records", "3",
                   "--comm", "full"] + rights)
      for file in ["4", "5"] {
        try desfire(["records", "write"] + aes + ["--file", file, "--hex", "ABCD"] + key1)
        #expect(try desfire(["records", "read"] + aes + ["--file", file] + key1).stdout == "abcd\n", "file \(file)")
      }
      // The PICC master key to AES and back to DES.
      let aesKey = try keyFile("picc.key", "00112233445566778899AABBCCDDEEFF")
      try desfire(["keys", "change", "--picc", "--new-key-file", aesKey, "--new-key-type", "aes", "--new-key-version", "2", "--yes"])
      try desfire(["format-card", "--yes"], 77)  // the factory key no longer opens it
      #expect(try desfire(["keys", "versions"]).stdout.contains("version 02"))
      try desfire(["keys", "change", "--picc", "--key-file", aesKey, "--key-type", "aes",
                   "--new-key-file", try keyFile("des.key", String(repeating: "00", count: 8)), "--yes"])
      try desfire(["format-card", "--yes"])
      #expect(try desfire(["apps"]).stdout.split(separator: "\n").filter { $0.contains("0000A") }.isEmpty)
    }
  }

  /// EV2 authentication (`--auth ev2`: AuthenticateEV2First and EV2 secure messaging) and
  /// Full-mode reads and writes through pcscd on an EV2 and an EV3, a MAC-mode file and a
  /// wrong key's 77 beside them (docs/desfire.md, "EV2 secure messaging").
  @Test(arguments: ["desfire-ev2-4k", "desfire-ev3-4k"])
  func ev2AuthenticationAndFullModeThroughPcscd(_ kind: String) throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-driver-desfire-ev2-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    func keyFile(_ name: String, _ hex: String) throws -> String {
      let url = directory.appendingPathComponent(name)
      try Data((hex + "\n").utf8).write(to: url)
      return url.path
    }
    let face = Self.commandFaces.last ?? "acr1552u"
    try withDriverReader(face: face, tag: kind) { reader, _ in
      @discardableResult
      func desfire(_ arguments: [String], _ expected: Int32 = 0, file: String = #fileID, line: Int = #line) throws -> RunResult {
        let r = try runNFCTag(["desfire"] + arguments + ["--reader", reader.name, "--timeout", "5"])
        #expect(r.status == expected, "\(arguments.prefix(2).joined(separator: " ")): \(r.stderr)",
                sourceLocation: SourceLocation(fileID: file, filePath: file, line: line, column: 1))
        return r
      }
      let aid = ["--aid", "00E201"]
      let key = ["--key-file", try keyFile("aes.key", String(repeating: "00", count: 16)), "--key-type", "aes", "--key-no", "1",
                 "--auth", "ev2"]
      let rights = ["--read", "1", "--write", "1", "--read-write", "1"]
      try desfire(["create-app"] + aid + ["--key-count", "2", "--key-type", "aes"])
      try desfire(["create-file"] + aid + ["--file", "1", "--size", "120", "--comm", "full"] + rights)
      try desfire(["create-file"] + aid + ["--file", "2", "--size", "16", "--comm", "mac"] + rights)
      let data = (0..<100).map { String(format: "%02x", ($0 * 29 + 7) & 0xFF) }.joined()  // chained frames both ways
      try desfire(["write-file"] + aid + ["--file", "1", "--hex", data] + key)
      #expect(try desfire(["read-file"] + aid + ["--file", "1", "--length", "100"] + key).stdout == data + "\n")
      try desfire(["write-file"] + aid + ["--file", "2", "--hex", "0102030405060708"] + key)
      #expect(try desfire(["read-file"] + aid + ["--file", "2", "--length", "8"] + key).stdout == "0102030405060708\n")
      let wrong = ["--key-file", try keyFile("wrong.key", String(repeating: "11", count: 16)), "--key-type", "aes", "--key-no", "1",
                   "--auth", "ev2"]
      try desfire(["read-file"] + aid + ["--file", "1", "--length", "4"] + wrong, 77)
    }
  }
}
