import Foundation
import Testing

/// `nfctag provision` end to end: the real binary, the real pcscd, tags fed one after another by
/// `nfctag emulate --feed` on "Virtual PCD 00 01", a real SQLite ledger.
@Suite(.serialized, .enabled(if: e2eEnabled, e2eSkipReason))
struct ProvisionEndToEnd {
  /// A scratch directory with a rows file of `count` rows.
  func job(rows count: Int, name: String = "rows.csv") throws -> (dir: URL, rows: URL) {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-prov-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir.appendingPathComponent("images"), withIntermediateDirectories: true)
    var csv = "id,slug\n"
    for i in 1...count { csv += "r\(i),item-\(i)\n" }
    let rows = dir.appendingPathComponent(name)
    try csv.write(to: rows, atomically: true, encoding: .utf8)
    return (dir, rows)
  }

  /// Starts a feeder of `count` tags (kinds in turn) saving images into `dir/images`.
  func feeder(_ dir: URL, count: Int, kinds: String = "ntag213", seed: Int = 1) throws -> Process {
    let process = Process()
    process.executableURL = nfctagBinary()
    process.arguments = ["emulate", "--tag", kinds, "--feed", String(count), "--image-dir",
                         dir.appendingPathComponent("images").path, "--seed", String(seed), "--vpcd", e2ePort]
    process.standardError = FileHandle.nullDevice
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    return process
  }

  func stopFeeder(_ process: Process) {
    if process.isRunning { kill(process.processIdentifier, SIGINT) }
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { usleep(20_000) }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    // pcscd must see the last card leave before the next test's emulator arrives.
    let until = Date().addingTimeInterval(5)
    while Date() < until {
      if let r = try? runNFCTag(["readers", "--json"]), r.stdout.contains(#""name":"\#(e2eReader)","card":false"#) { break }
      usleep(100_000)
    }
  }

  /// The images the feeder saved: UID (from the name) → file.
  func images(_ dir: URL) throws -> [(uid: String, file: URL)] {
    let names = try FileManager.default.contentsOfDirectory(atPath: dir.appendingPathComponent("images").path).sorted()
    return names.filter { $0.hasSuffix(".bin") }.compactMap { name in
      let stem = name.dropLast(4)
      guard let dash = stem.firstIndex(of: "-") else { return nil }
      return (String(stem[stem.index(after: dash)...]), dir.appendingPathComponent("images").appendingPathComponent(name))
    }
  }

  /// The NDEF message an image holds, as hex, read by the real tool through the in-process
  /// simulator; nil when it holds none (empty or torn).
  func messageHex(in image: URL, kind: String = "ntag213") throws -> String? {
    let r = try runNFCTag(["read", "--reader", "sim:\(kind):\(image.path)", "--format", "hex", "--timeout", "5"])
    guard r.status == 0 else { return nil }
    let hex = r.stdout.filter { $0.isHexDigit }
    return hex.isEmpty ? nil : hex.lowercased()
  }

  /// `ledger export --format csv` as rows of fields (header dropped).
  func export(_ ledger: URL) throws -> [[String]] {
    let r = try runNFCTag(["ledger", "export", ledger.path, "--format", "csv"])
    #expect(r.status == 0, "\(r.stderr)")
    return r.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
  }

  /// Every done row's tag holds exactly its message; no row on two tags; no tag with two rows.
  func checkInvariants(_ dir: URL, ledger: URL, expectDone: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let rows = try export(ledger).filter { !$0[0].isEmpty }
    let done = rows.filter { $0[2] == "done" }
    if let expectDone { #expect(done.count == expectDone, sourceLocation: sourceLocation) }
    let boundUIDs = rows.map { $0[1] }.filter { !$0.isEmpty }
    #expect(Set(boundUIDs).count == boundUIDs.count, "a UID holds two rows", sourceLocation: sourceLocation)
    let imageByUID = Dictionary(try images(dir).map { ($0.uid, $0.file) }, uniquingKeysWith: { a, _ in a })
    let rowByMessage = Dictionary(rows.compactMap { $0[3].isEmpty ? nil : ($0[3], $0) }, uniquingKeysWith: { a, _ in a })
    for row in done {
      guard let image = imageByUID[row[1]] else {
        Issue.record("row \(row[0]) is done on \(row[1]), which has no image", sourceLocation: sourceLocation)
        continue
      }
      #expect(try messageHex(in: image) == row[3], "row \(row[0]) on \(row[1])", sourceLocation: sourceLocation)
    }
    // A tag that holds a row's message is the tag the ledger bound that row to.
    for (uid, image) in imageByUID {
      guard let hex = try messageHex(in: image), let row = rowByMessage[hex] else { continue }
      #expect(row[1] == uid, "tag \(uid) holds row \(row[0])'s message, bound to \(row[1])", sourceLocation: sourceLocation)
    }
  }

  @Test func fiftyTagsFromFiftyRowsEachHoldTheirRow() throws {
    let (dir, rows) = try job(rows: 50)
    let feed = try feeder(dir, count: 50)
    defer { stopFeeder(feed) }
    let ledger = dir.appendingPathComponent("ledger.sqlite")
    let r = try runNFCTag(["provision", rows.path, "--url", "https://example.com/{slug}?id={id}&n={n:04}",
                           "--ledger", ledger.path, "--reader", e2eReader, "--timeout", "20", "--json"], timeout: 300)
    #expect(r.status == 0, "\(r.stderr)")
    let events = r.stdout.split(separator: "\n")
    #expect(events.filter { $0.contains(#""status":"done""#) }.count == 50)
    #expect(events.last?.contains(#""event":"summary","done":50,"failed":0"#) == true, "\(events.last ?? "")")
    try checkInvariants(dir, ledger: ledger, expectDone: 50)
    let uids = try export(ledger).map { $0[1] }
    #expect(Set(uids).count == 50)
    #expect(try images(dir).count == 50)
  }
}
