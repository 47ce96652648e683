import Foundation
import Testing

/// `info --json` gives programs structured values (no sentences for the lock
/// state and the details, no empty version), and no message shows a Swift range (`160..<162`).
@Suite struct InfoJSON {
  /// Every kind of tag the simulator has, each written first so that its TLVs are walked.
  static let kinds = ["ntag213", "ntag216", "ultralight", "topaz96", "topaz512", "felica-lite-s", "type4", "icode-slix2"]

  func info(_ kind: String, json: Bool) throws -> RunResult {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-info-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let reader = "sim:\(kind):" + dir.appendingPathComponent("t.bin").path
    let write = try runTool(["write", "text", "hello", "--reader", reader])
    #expect(write.status == 0, "\(kind): \(write.stderr)")
    return try runTool(["info", "--reader", reader] + (json ? ["--json"] : []))
  }

  /// The keys whose values are names or sentences by nature.
  static let prose: Set<String> = ["reader", "chip", "ndefProblem", "error"]

  /// Every string leaf under a key that is not a name or a reason: one word, no spaces.
  func proseLeaves(_ value: Any, key: String, path: String) -> [String] {
    switch value {
    case let object as [String: Any]:
      return object.flatMap { proseLeaves($0.value, key: $0.key, path: path + "." + $0.key) }
    case let list as [Any]:
      return list.enumerated().flatMap { proseLeaves($0.element, key: key, path: path + "[\($0.offset)]") }
    case let text as String:
      return !Self.prose.contains(key) && text.contains(" ") ? ["\(path) = \(text)"] : []
    default:
      return []
    }
  }

  @Test(arguments: kinds)
  func hasNoSentencesAndNoEmptyVersion(kind: String) throws {
    let r = try info(kind, json: true)
    #expect(r.status == 0, "\(kind): \(r.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any], "\(kind): \(r.stdout)")
    #expect(object["lockState"] == nil, "\(kind)")
    #expect(object["locks"] is [String: Any], "\(kind): \(r.stdout)")
    #expect(object["details"] is [String: Any], "\(kind): \(r.stdout)")
    #expect(proseLeaves(object, key: "", path: "").isEmpty, "\(kind): \(proseLeaves(object, key: "", path: ""))")
    #expect(!r.stdout.contains(#""version":"""#), "\(kind)")
  }

  @Test func anNTAG213SaysItsLocksAndLayoutAsValues() throws {
    let r = try info("ntag213", json: true)
    let object = try #require(try JSONSerialization.jsonObject(with: r.stdoutBytes) as? [String: Any])
    let locks = try #require(object["locks"] as? [String: Any])
    let staticLock = try #require(locks["staticLock"] as? [String: Any])
    #expect(staticLock["bytes"] as? String == "0000")
    #expect(staticLock["locked"] as? String == "none")
    let access = try #require(locks["ccWriteAccess"] as? [String: Any])
    #expect(access["value"] as? Int == 0)
    #expect(access["meaning"] as? String == "granted")
    let details = try #require(object["details"] as? [String: Any])
    let area = try #require(details["dataArea"] as? [String: Any])
    #expect(area["start"] as? Int == 16)
    #expect(area["size"] as? Int == 144)
    let tlvs = try #require(details["tlvs"] as? [String: Any])
    let lockBytes = try #require(tlvs["lockBytes"] as? [[String: Any]])
    #expect(lockBytes.first?["start"] as? Int == 160)
    #expect(lockBytes.first?["size"] as? Int == 2)
    #expect(details["userMemory"] as? Int == 144)
    let protection = try #require(details["passwordProtection"] as? [String: Any])
    #expect(protection["protects"] as? String == "nothing")
  }

  /// The text output keeps its sentences, with byte ranges as people write them.
  @Test(arguments: kinds)
  func textShowsNoSwiftRanges(kind: String) throws {
    let r = try info(kind, json: false)
    #expect(r.status == 0, "\(kind): \(r.stderr)")
    #expect(!r.stdout.contains("..<"), "\(kind): \(r.stdout)")
    #expect(r.stdout.contains("locks:"), "\(kind)")
  }

  @Test func topazTextNamesItsBytesInclusively() throws {
    let r = try info("topaz512", json: false)
    #expect(r.stdout.contains("Data area:  bytes 12–511 (CC), 500 bytes"), "\(r.stdout)")
    #expect(r.stdout.contains("lock bytes 122–127; reserved bytes 120–121"), "\(r.stdout)")
  }
}
