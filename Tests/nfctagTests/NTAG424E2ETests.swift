import Foundation
import NFCTransport
import NTAG424Emulator
import Testing

/// The NTAG 424 DNA through the machine's pcscd and vpcd, with the built programs only:
/// `nfctag emulate --tag ntag424dna` (which nfctag hands over to nfctag-provision) shows the
/// virtual tag in the slot the test holds, and `nfctag sdm setup`, `read`, `sdm verify` and
/// `keys` (handed over too) run against it as against a tag on a real reader.
///
/// - A fresh tag set up with `sdm setup`, then 100 reads (30 in a plain `make test`), each URL verified by `sdm verify
///   --counter-store` with the counter one above the last; a URL with one bit changed in each
///   parameter refused (65, bad PICCData or bad CMAC), and a URL seen before refused (65, replayed).
/// - A removal at every command of `sdm setup` and of `keys change` (`emulate --remove-after k`
///   for k = 1…n − 1, n counted from a `--trace` of the same command on `sim:ntag424dna:IMAGE`;
///   k = n with the tag left in place, see `cut`): the tool ends with one line and 74 (0 for
///   k = n), and `keys versions`
///   then tells where the tag stands and a rerun on the same image finishes it, leaving each key
///   with the value that goes with its version (the image keeps the keys in clear: test material).
///
/// `.serialized` and early (`.virtualReaderEarly`): one test at a time, from the start of the run.
/// A cut on one slot used to leave pcscd unable to show a card on either slot for half a minute:
/// the tool reset, on release, a card that was gone, and vpcd stalls on that. The session no
/// longer resets a card that left in a command (NFCSession's `CardRelease` tests), and `cut`
/// keeps the tag in place for k = n; one test at a time still keeps any such stall to this suite.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .virtualReaderEarly, .serialized)
final class NTAG424EndToEnd {
  static let template = "https://example.com/t?p={picc}&c={cmac}"
  static let uid = "04424d1a9b6e80"  // the virtual tag's default UID (NTAG424DNAVirtualTag.defaultUID)
  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-e2e-424-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  func json(_ text: String) -> [String: Any]? {
    (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
  }

  /// The tag's URL as a phone reads it (`nfctag read`: ISOSelectFile, ISOReadBinary; the tag fills
  /// the mirrors and raises its counter), through pcscd.
  func tap() throws -> String? {
    let r = try runNFCTag(["read", "--reader", e2eReader, "--format", "json", "--quiet", "--timeout", "5"])
    #expect(r.status == 0, "\(r.stderr)")
    let records = json(r.stdout)?["records"] as? [[String: Any]]
    return records?.first?["uri"] as? String
  }

  /// `url` with one bit of the hex digit at `offset` (counted from the start of parameter
  /// `name`'s value) flipped, the digit's case kept.
  func flipped(_ url: String, parameter name: String, digit offset: Int = 5) -> String? {
    guard let start = url.range(of: "\(name)=")?.upperBound,
          let at = url.index(start, offsetBy: offset, limitedBy: url.endIndex), at < url.endIndex,
          let value = url[at].hexDigitValue else { return nil }
    let digit = String(value ^ 1, radix: 16, uppercase: url[at].isUppercase)
    return String(url[..<at]) + digit + String(url[url.index(after: at)...])
  }

  /// `nfctag info` itself (no hand-over, no key) on the virtual 424 DNA through pcscd: the chip from
  /// GetVersion, the key versions, and the originality signature checked by OpenSSL, loaded at
  /// run time: the virtual tag's verifies with the test key, not NXP's.
  @Test func infoNamesTheChipAndChecksTheSignature() throws {
    let emulator = try Emulator(tag: "ntag424dna", image: directory.appendingPathComponent("info.bin"))
    defer { emulator.stop() }
    let r = try runNFCTag(["info", "--reader", e2eReader, "--format", "json", "--quiet", "--timeout", "10"])
    #expect(r.status == 0, "\(r.stderr)")
    let object = json(r.stdout)
    #expect(object?["chip"] as? String == "NTAG 424 DNA", "\(r.stdout)")
    let details = object?["details"] as? [String: Any]
    #expect(details?["keyVersions"] as? [Int] == [0, 0, 0, 0, 0], "\(r.stdout)")
    let originality = details?["originality"] as? [String: Any]
    #expect(originality?["verdict"] as? String == "testKey", "\(r.stdout)")
    #expect(originality?["uid"] as? String == Self.uid, "\(r.stdout)")
  }

  /// `sdm setup` on a fresh virtual 424 DNA through pcscd, then 100 reads (30 in a plain
  /// `make test`: ``repetitions(full:quick:tsan:)``), each verified with the counter one above the
  /// last; then a forged URL for each parameter, and replays.
  @Test func setupThenVerifiedReads() throws {
    let reads = repetitions(full: 100, quick: 30, tsan: 30)
    let emulator = try Emulator(tag: "ntag424dna", image: directory.appendingPathComponent("tag.bin"))
    defer { emulator.stop() }
    let setup = try runNFCTag(["sdm", "setup", "--url", Self.template, "--reader", e2eReader, "--format", "json", "--quiet",
                               "--timeout", "10"])
    #expect(setup.status == 0, "\(setup.stderr)")
    let done = json(setup.stdout)
    #expect(done?["verified"] as? Bool == true && done?["counter"] as? Int == 1, "\(setup.stdout)")
    #expect(done?["exchanges"] as? Int == 10, "\(setup.stdout)")  // GetVersion (3) and the 7 steps

    let store = directory.appendingPathComponent("counters.txt").path
    var urls: [String] = []
    for expected in 2...(reads + 1) {
      guard let url = try tap() else {
        Issue.record("read \(expected - 1): no URL")
        return
      }
      let verify = try runNFCTag(["sdm", "verify", url, "--counter-store", store, "--format", "json", "--quiet"])
      #expect(verify.status == 0, "read \(expected - 1): \(url): \(verify.stderr)")
      let message = json(verify.stdout)
      #expect(message?["authentic"] as? Bool == true)
      #expect(message?["uid"] as? String == Self.uid, "\(verify.stdout)")
      #expect(message?["counter"] as? Int == expected, "read \(expected - 1): \(verify.stdout)")
      if message?["counter"] as? Int != expected { return }
      urls.append(url)
    }
    #expect(urls.count == reads && Set(urls).count == reads)
    #expect((try String(contentsOfFile: store, encoding: .utf8)) == "\(Self.uid) \(reads + 1)\n")

    // One bit changed in each parameter: refused on the cryptography alone (no counter store).
    guard let last = urls.last else { return }
    for (parameter, reason) in [("p", "bad PICCData"), ("c", "bad CMAC")] {
      guard let forged = flipped(last, parameter: parameter) else {
        Issue.record("no parameter \(parameter) in \(last)")
        continue
      }
      #expect(forged != last && forged.count == last.count)
      let r = try runNFCTag(["sdm", "verify", forged, "--format", "json", "--quiet"])
      #expect(r.status == 65, "\(forged): \(r.stderr)")
      #expect(r.stdout.hasPrefix(#"{"authentic":false,"reason":"not authentic: \#(reason):"#), "\(parameter): \(r.stdout)")
    }
    // The last URL again, and the first one: replays, once the store has seen them.
    for (which, url) in [("the last URL", last), ("the first URL", urls[0])] {
      let replay = try runNFCTag(["sdm", "verify", url, "--counter-store", store, "--quiet"])
      #expect(replay.status == 65, "\(which): \(replay.stderr)")
      #expect(replay.stderr.contains("replayed") && replay.stderr.split(separator: "\n").count == 1, "\(which): \(replay.stderr)")
      // Without the store, the same URL is authentic: only the counter tells the replay.
      #expect(try runNFCTag(["sdm", "verify", url, "--quiet"]).status == 0)
    }
  }

  /// The APDUs (reader commands included) `arguments` sends to a fresh tag in process: how many
  /// `emulate --remove-after` can count to.
  func commandCount(_ arguments: [String], environment: [String: String] = [:]) throws -> Int {
    let probe = directory.appendingPathComponent("probe-\(UUID().uuidString).bin")
    let r = try runNFCTag(arguments + ["--trace", "--reader", "sim:ntag424dna:" + probe.path], environment: environment)
    #expect(r.status == 0, "\(arguments): \(r.stderr)")
    return r.stderr.split(separator: "\n").filter { $0.hasPrefix("trace: > ") }.count
  }

  /// Runs `arguments` against a fresh virtual tag in image `name` that leaves after answering `k`
  /// commands; checks one line and 74; returns the image. For k = n the tag stays: the command
  /// ends with 0 and the emulator is stopped after it. (A tag that left right after the last
  /// answer would be one the tool then releases with a reset, as after every raw command; vpcd,
  /// asked to reset a card whose connection is gone, keeps pcscd from showing any card on either
  /// slot for 30 s and more: measured here, 46 s.)
  func cut(_ arguments: [String], after k: Int, of n: Int, name: String, environment: [String: String] = [:]) throws -> URL {
    let image = directory.appendingPathComponent(name)
    let tag = try Emulator(tag: "ntag424dna", image: image, extra: k < n ? ["--remove-after", String(k)] : [], appearWithin: 10)
    let r = try runNFCTag(arguments + ["--reader", e2eReader, "--timeout", "5"], environment: environment)
    if k < n {
      #expect(tag.waitForExit() == 0, "the emulator after \(k) commands")
      #expect(r.status == 74, "\(arguments[0]) \(arguments[1]), cut after command \(k) of \(n): \(r.stderr)")
      #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.hasPrefix("nfctag: "), "cut after \(k): \(r.stderr)")
    } else {
      #expect(r.status == 0, "\(arguments[0]) \(arguments[1]), all \(n) commands: \(r.stderr)")
    }
    tag.stop()
    return image
  }

  /// The tag in an image file, as the last program left it.
  func tag(in image: URL) throws -> NTAG424DNAVirtualTag {
    try NTAG424DNAVirtualTag(image: Array(try Data(contentsOf: image)))
  }

  /// `keys versions` on the image: the five versions, or nil when they cannot be read.
  func versions(_ image: URL) throws -> [Int]? {
    let r = try runNFCTag(["keys", "versions", "--reader", "sim:ntag424dna:" + image.path, "--format", "json"])
    #expect(r.status == 0, "\(r.stderr)")
    return (json(r.stdout)?["keys"] as? [[String: Any]])?.compactMap { $0["version"] as? Int }
  }

  /// A removal after every command of `sdm setup`: 74 and one line; keys versions are untouched
  /// (all 00), and a rerun on the same image finishes the set-up, its URL verified.
  @Test func aRemovalAtEveryCommandOfSdmSetup() throws {
    let setup = ["sdm", "setup", "--url", Self.template, "--quiet"]
    let n = try commandCount(setup)
    #expect(n >= 7)
    for k in 1...n {
      let image = try cut(setup, after: k, of: n, name: "setup-\(k).bin")
      #expect(try versions(image) == [0, 0, 0, 0, 0], "after a cut at \(k)")
      let rerun = try runNFCTag(setup + ["--reader", "sim:ntag424dna:" + image.path, "--format", "json"])
      #expect(rerun.status == 0, "rerun after a cut at \(k): \(rerun.stderr)")
      #expect(json(rerun.stdout)?["verified"] as? Bool == true, "rerun after a cut at \(k): \(rerun.stdout)")
      let tag = try tag(in: image)
      #expect(tag.keyEquals(0, Array(repeating: 0, count: 16)))
    }
  }

  static let newKey1 = "0c3b25d92b38ae443229dd59ad34b85d"

  /// A removal after every command of `keys change --key 1`: 74 and one line; `keys versions`
  /// tells whether the change was made (version 05, with the new key) or not (00, the factory
  /// key), and a rerun of the same command finishes it in the second case.
  @Test func aRemovalAtEveryCommandOfKeysChange() throws {
    let change = ["keys", "change", "--key", "1", "--new-key-env", "NEW_KEY1", "--version", "5", "--quiet"]
    let environment = ["NEW_KEY1": Self.newKey1]
    let n = try commandCount(change, environment: environment)
    #expect(n >= 5)
    guard let newKey = parseLenientHex(Array(Self.newKey1.utf8)) else { return }
    var changedAtCut = 0
    for k in 1...n {
      let image = try cut(change, after: k, of: n, name: "key1-\(k).bin", environment: environment)
      guard let before = try versions(image) else { continue }
      #expect(before == [0, 0, 0, 0, 0] || before == [0, 5, 0, 0, 0], "after a cut at \(k): \(before)")
      let cutTag = try tag(in: image)
      #expect(cutTag.keyEquals(1, before[1] == 5 ? newKey : Array(repeating: 0, count: 16)),
              "after a cut at \(k): key 1 goes with version \(before[1])")
      if before[1] == 5 {
        changedAtCut += 1
      } else {
        let rerun = try runNFCTag(change + ["--reader", "sim:ntag424dna:" + image.path], environment: environment)
        #expect(rerun.status == 0, "rerun after a cut at \(k): \(rerun.stderr)")
        #expect(!(rerun.stdout + rerun.stderr).contains(Self.newKey1))
      }
      #expect(try versions(image) == [0, 5, 0, 0, 0], "finished after a cut at \(k)")
      let finished = try tag(in: image)
      #expect(finished.keyEquals(1, newKey) && finished.keyEquals(0, Array(repeating: 0, count: 16)), "after a cut at \(k)")
    }
    // The cuts after ChangeKey was answered (before or at GetKeyVersion) find the change made.
    #expect(changedAtCut >= 1 && changedAtCut < n, "\(changedAtCut) of \(n)")
  }

  /// A removal after every command of `keys change --all`: 74 and one line; each key then has its
  /// old value and version or its new ones, key 0 last; `keys versions` tells which, and
  /// `keys change --key N` for each key still old (key 0 last) finishes the tag.
  @Test func aRemovalAtEveryCommandOfKeysChangeAll() throws {
    let values = ["00112233445566778899aabbccddeeff", "11111111111111111111111111111111", "22222222222222222222222222222222",
                  "33333333333333333333333333333333", "44444444444444444444444444444444"]
    var environment: [String: String] = [:]
    for (n, value) in values.enumerated() { environment["NEW\(n)"] = value }
    let all = ["keys", "change", "--all", "--new-keys-env", "NEW", "--version", "3", "--yes", "--quiet"]
    let n = try commandCount(all, environment: environment)
    #expect(n >= 8)
    let keys = values.compactMap { parseLenientHex(Array($0.utf8)) }
    guard keys.count == 5 else { return }
    let factory = [UInt8](repeating: 0, count: 16)
    for k in 1...n {
      let image = try cut(all, after: k, of: n, name: "all-\(k).bin", environment: environment)
      guard let before = try versions(image), before.count == 5 else { continue }
      let cutTag = try tag(in: image)
      for key in 0...4 {
        #expect(before[key] == 0 || before[key] == 3, "after a cut at \(k): \(before)")
        #expect(cutTag.keyEquals(key, before[key] == 3 ? keys[key] : factory), "after a cut at \(k): key \(key)")
      }
      // Key 0 changes last: a new key 0 means every key is new.
      if before[0] == 3 { #expect(before == [3, 3, 3, 3, 3], "after a cut at \(k): \(before)") }
      for key in [1, 2, 3, 4, 0] where before[key] != 3 {
        let finish = try runNFCTag(["keys", "change", "--key", "\(key)", "--new-key-env", "NEW\(key)", "--version", "3", "--yes",
                                    "--quiet", "--reader", "sim:ntag424dna:" + image.path], environment: environment)
        #expect(finish.status == 0, "finishing key \(key) after a cut at \(k): \(finish.stderr)")
      }
      #expect(try versions(image) == [3, 3, 3, 3, 3], "finished after a cut at \(k)")
      let finished = try tag(in: image)
      for key in 0...4 { #expect(finished.keyEquals(key, keys[key]), "key \(key) after a cut at \(k)") }
    }
  }
}
