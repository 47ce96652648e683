import Foundation
import Testing

/// A MIFARE DESFire Light through the real pcscd, behind nfctag's pcsc-lite driver's Part 3 reader
/// (the ACR1552U face, docs/ifd-handler.md), each step a run of the built programs: `format` with
/// the application's key 0 from a file (the NDEF setup, docs/desfire.md, "DESFire Light"), `sdm
/// setup` on its NDEF file E104h, then 20 reads each verified by `sdm verify --counter-store` with
/// the counter one above the last each time.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .enabled(if: ifdHandlerInstalled, ifdHandlerSkipReason))
final class DriverDESFireLightEndToEnd {
  let directory: URL
  static let template = "https://sun.example/light?p={picc}&c={cmac}"

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-driver-light-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  func keyFile(_ name: String, _ hex: String) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data((hex + "\n").utf8).write(to: url)
    return url.path
  }

  @Test func formatSDMSetupThenTwentyVerifiedReads() throws {
    let zero = String(repeating: "00", count: 16)
    let key0 = try keyFile("key0", zero), meta = try keyFile("meta", zero), file = try keyFile("file", zero)
    let store = directory.appendingPathComponent("counters.txt").path
    try withDriverReader(face: "acr1552u", tag: "desfire-light") { reader, _ in
      func nfctag(_ arguments: [String], _ expected: Int32 = 0, sourceLocation: SourceLocation = #_sourceLocation) throws -> RunResult {
        let r = try runNFCTag(arguments + ["--reader", reader.name, "--timeout", "5"])
        #expect(r.status == expected, "\(arguments.prefix(2).joined(separator: " ")): \(r.stderr)", sourceLocation: sourceLocation)
        return r
      }
      let scan = try nfctag(["scan", "--json"])
      #expect(scan.stdout.contains("MIFARE DESFire Light"), "\(scan.stdout)")
      try nfctag(["format", "--picc-key-file", key0, "--picc-key-type", "aes"])
      let setup = try nfctag(["sdm", "setup", "--url", Self.template, "--auth-key-file", key0, "--meta-key-file", meta,
                              "--file-key-file", file, "--format", "json"])
      let result = try jsonObject(setup.stdout)
      #expect(result["verified"] as? Bool == true && result["counter"] as? Int == 1, "\(setup.stdout)")
      for n in 2...21 {
        let read = try nfctag(["read", "--format", "json", "--quiet"])
        let records = try #require(try jsonObject(read.stdout)["records"] as? [[String: Any]], "\(read.stdout)")
        let url = try #require(records.first?["uri"] as? String, "\(read.stdout)")
        #expect(url.hasPrefix("https://sun.example/light?p="), "\(url)")
        let v = try runNFCTag(["sdm", "verify", url, "--meta-key-file", meta, "--file-key-file", file,
                               "--counter-store", store, "--format", "json", "--quiet"])
        #expect(v.status == 0, "read \(n): \(v.stderr)")
        #expect(try jsonObject(v.stdout)["counter"] as? Int == n, "\(v.stdout)")
      }
    }
  }
}
