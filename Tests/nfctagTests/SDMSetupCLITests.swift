import Foundation
import NFCTransport
import NTAG424
import NTAG424Emulator
import NTAG424Tag
import Testing
@testable import NFCTagCLI
@testable import nfctag_provision
import ProvisionCommands

/// `nfctag sdm setup` and `nfctag keys versions|change`, in process, on a virtual NTAG 424 DNA
/// whose state lives in an image file (`sim:ntag424dna:IMAGE`: `SimulatorSpec`'s `:IMAGE`), so
/// that each command finds the tag as the previous one left it. Every URL the tag produces is
/// checked by `sdm verify`; keys come from files and variables and never show.
@Suite final class SDMSetupCLITests {
  let directory: URL
  static let template = "https://example.com/t?p={picc}&c={cmac}"

  init() throws {
    registerVirtualNTAG424()
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-sdm-setup-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  deinit { try? FileManager.default.removeItem(at: directory) }

  /// A reader of its own: a fresh tag in a new image file.
  func reader(_ name: String) -> String { "sim:ntag424dna:" + directory.appendingPathComponent("\(name).bin").path }

  func file(_ name: String, _ text: String) throws -> String {
    let url = directory.appendingPathComponent(name)
    try Data(text.utf8).write(to: url)
    return url.path
  }

  /// TotFailCtr of key 0 in the image file `name`: bytes 600–601, LSB first (`NTAG424DNAImage`).
  func failedAuthentications(ofKey0 name: String) throws -> Int {
    let image = try Data(contentsOf: directory.appendingPathComponent("\(name).bin"))
    try #require(image.count == 627)
    return Int(image[600]) | Int(image[601]) << 8
  }

  func json(_ text: String) throws -> [String: Any] { try jsonObject(text) }

  /// The URL of the tag's one URI record, read as a phone reads it (``tappedURL(_:)``).
  func tap(_ reader: String) throws -> String { try tappedURL(reader) }

  /// The longest URLs: a file of 251 to 256 bytes is read back in two ReadData, as the reader's
  /// 250-byte answers allow (NT4H2421Gx datasheet §10.8.1: no `91 AF` chain for ReadData); in one
  /// command the simulated ACR122U refused the answer and the setup failed.
  @Test func aFileOverTheReadersAnswerIsReadBackInTwo() throws {
    let reader = reader("long")
    let url = "https://example.com/t?x=" + String(repeating: "a", count: 175) + "&p={picc}&c={cmac}"
    let setup = try runTool(["sdm", "setup", "--url", url, "--reader", reader, "--format", "json", "--quiet"])
    #expect(setup.status == 0, "\(setup.stderr)")
    let result = try json(setup.stdout)
    #expect(result["verified"] as? Bool == true)
    // GetVersion (3: the chip), select, authenticate (2), four WriteData (NLEN zeroed, the message
    // in two, NLEN), ChangeFileSettings, select and two ReadData.
    #expect(result["exchanges"] as? Int == 14)
  }

  /// A fresh tag set up with the factory keys, then 20 taps: each URL authentic, its counter one
  /// above the last, recorded by --counter-store; forged and replayed URLs refused.
  @Test func setupThenTwentyVerifiedTaps() throws {
    let reader = reader("fresh")
    let setup = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--format", "json"])
    #expect(setup.status == 0, "\(setup.stderr)")
    let result = try json(setup.stdout)
    #expect(result["done"] as? Bool == true && result["verified"] as? Bool == true)
    #expect(result["counter"] as? Int == 1)
    // GetVersion (3: the chip, a DESFire EV3 or a 424 DNA), select, authenticate (2), one WriteData
    // (NLEN and message in one frame: tearing-protected), ChangeFileSettings, select and ReadData.
    #expect(result["exchanges"] as? Int == 10)
    // Three factory-key warnings; keys never in the output.
    #expect(setup.stderr.contains("no key 0 given") && setup.stderr.contains("no SDMMetaRead key given"), "\(setup.stderr)")

    let store = directory.appendingPathComponent("counters.txt").path
    var last = ""
    for n in 2...21 {
      let url = try tap(reader)
      #expect(url.hasPrefix("https://example.com/t?p=") && url.count == Self.template.count - 6 - 6 + 32 + 16)
      let v = try runTool(["sdm", "verify", url, "--counter-store", store, "--format", "json", "--quiet"])
      #expect(v.status == 0, "tap \(n): \(v.stderr)")
      #expect(try json(v.stdout)["counter"] as? Int == n, "\(v.stdout)")
      last = url
    }
    // The same URL again is a replay.
    let replay = try runTool(["sdm", "verify", last, "--counter-store", store, "--quiet"])
    #expect(replay.status == 65 && replay.stderr.contains("replayed"), "\(replay.stderr)")
    // One bit changed in each parameter.
    let p = last.range(of: "p=")!.upperBound, c = last.range(of: "&c=")!.upperBound
    for index in [p, c] {
      var forged = last
      let digit = forged[index]
      forged.replaceSubrange(index...index, with: digit == "0" ? "1" : "0")
      let r = try runTool(["sdm", "verify", forged, "--quiet"])
      #expect(r.status == 65 && r.stderr.contains("not authentic"), "\(forged): \(r.stderr)")
    }
    // The text form of a second setup: done, and the read-back counter went on.
    let again = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--quiet"])
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout.hasPrefix("done: the tag produced an authentic SUN URL\nurl:       https://example.com/t?p="), "\(again.stdout)")
    #expect(again.stdout.hasSuffix("counter:   22\n"), "\(again.stdout)")
  }

  /// `info` on a 424 DNA, without a key: the chip from GetVersion, the files, the key versions and
  /// the originality signature (the virtual tag's verifies with the test key only); after `sdm
  /// setup`, the SDM offsets it computed, where the URL's parameters are.
  @Test func infoNamesTheChipAndDecodesTheSDMOffsets() throws {
    let reader = reader("info")
    let fresh = try runTool(["info", "--reader", reader])
    #expect(fresh.status == 0, "\(fresh.stderr)")
    for line in ["NTAG 424 DNA (Type 4)", "key 0: 00, key 1: 00, key 2: 00, key 3: 00, key 4: 00",
                 "256 bytes, Plain; read free, write free, read&write free, change key 0; SDM off",
                 "signature valid with the test key: a virtual tag, not NXP-signed"] {
      #expect(fresh.stdout.contains(line), "\(line): \(fresh.stdout)")
    }
    let setup = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--quiet"])
    #expect(setup.status == 0, "\(setup.stderr)")
    let r = try runTool(["info", "--reader", reader, "--format", "json", "--quiet"])
    #expect(r.status == 0, "\(r.stderr)")
    let object = try json(r.stdout)
    #expect(object["chip"] as? String == "NTAG 424 DNA")
    let details = try #require(object["details"] as? [String: Any])
    let originality = try #require(details["originality"] as? [String: Any])
    #expect(originality["verdict"] as? String == "testKey")
    let file2 = try #require(details["file2Settings"] as? [String: Any])
    let sdm = try #require(file2["sdm"] as? [String: Any])
    // NLEN (2), the record's header (4) and URI prefix code (1), "example.com/t?p=" (16): the
    // PICCData's 32 digits at 23, "&c=", then the SDMMAC's 16 at 58.
    #expect(sdm["piccDataOffset"] as? Int == 23 && sdm["macOffset"] as? Int == 58, "\(sdm)")
    #expect(try json(r.stdout)["version"] as? String != nil)
  }

  /// `keys change --all`: the five keys in one session of 8 exchanges (select, authentication,
  /// five ChangeKey), from a file of five lines, then again from variables with the current keys
  /// given; the tag holds every new key with its version; keys never in the output; the forms
  /// that do not go together refused before any reader is opened.
  @Test func keysChangeAllInOneSession() throws {
    let reader = reader("all")
    let first = ["00112233445566778899aabbccddeeff", "11111111111111111111111111111111", "22222222222222222222222222222222",
                 "33333333333333333333333333333333", "44444444444444444444444444444444"]
    let keys = try file("keys.txt", first.joined(separator: "\n") + "\n")
    let r = try runTool(["keys", "change", "--all", "--new-keys-file", keys, "--version", "7", "--yes",
                         "--reader", reader, "--format", "json", "--verbose"])
    #expect(r.status == 0, "\(r.stderr)")
    let result = try json(r.stdout)
    #expect(result["exchanges"] as? Int == 8)
    #expect((result["keys"] as? [[String: Any]])?.compactMap { $0["version"] as? Int } == [7, 7, 7, 7, 7], "\(r.stdout)")
    #expect(r.stderr.contains("no current values of keys 1-4 given"), "\(r.stderr)")
    for value in first { #expect(!(r.stdout + r.stderr).contains(value)) }
    let image = try Data(contentsOf: directory.appendingPathComponent("all.bin"))
    let tag = try NTAG424DNAVirtualTag(image: Array(image))
    for (n, value) in first.enumerated() {
      #expect(tag.keyVersion(n) == 7)
      #expect(tag.keyEquals(n, try #require(parseHex(value))), "key \(n)")
    }

    // Again, from variables, with the current keys given: key 0 authenticates with its new value.
    let second = (0...4).map { String(repeating: "\($0)a", count: 16) }
    var environment: [String: String] = [:]
    for n in 0...4 { environment["OLD\(n)"] = first[n]; environment["NEW\(n)"] = second[n] }
    let again = try runTool(["keys", "change", "--all", "--old-keys-env", "OLD", "--new-keys-env", "NEW", "--version", "8", "--yes",
                             "--reader", reader, "--quiet"], environment: environment)
    #expect(again.status == 0, "\(again.stderr)")
    #expect(again.stdout == "keys 0-4 changed: version 08\n" && again.stderr.isEmpty, "\(again.stdout)\(again.stderr)")
    let versions = try runTool(["keys", "versions", "--reader", reader])
    #expect(versions.stdout == "key 0: version 08\nkey 1: version 08\nkey 2: version 08\nkey 3: version 08\nkey 4: version 08\n")

    for (arguments, line) in [
      (["--all", "--new-keys-file", keys, "--version", "1"], "--all changes key 0, which needs --yes"),
      (["--all", "--key", "1", "--new-keys-file", keys, "--version", "1", "--yes"], "give --key N or --all, not both"),
      (["--all", "--new-key-file", keys, "--version", "1", "--yes"], "--new-key-file is for one key"),
      (["--all", "--version", "1", "--yes"], "--all needs the new keys"),
      (["--all", "--new-keys-file", keys, "--old-keys-file", keys, "--auth-key-file", keys, "--version", "1", "--yes"], "not both"),
      (["--key", "1", "--new-keys-file", keys, "--version", "1"], "--new-keys-file goes with --all"),
      (["--new-key-file", keys, "--version", "1"], "give the key to change with --key N, or --all"),
    ] {
      let refused = try runTool(["keys", "change"] + arguments + ["--reader", reader])
      #expect(refused.status == 64 && refused.stderr.contains(line), "\(arguments): \(refused.stderr)")
    }
    let short = try file("short.txt", first.prefix(3).joined(separator: "\n") + "\n")
    let missing = try runTool(["keys", "change", "--all", "--new-keys-file", short, "--version", "1", "--yes", "--reader", reader])
    #expect(missing.status == 64 && missing.stderr.contains("line 4, key 3, must be 32 hex digits"), "\(missing.stderr)")
    #expect(!missing.stderr.contains(first[0]))
  }

  /// Keys 1–4 then 0 changed (files and variables), versions before and after; key 0 without
  /// --yes refused; then `sdm setup` with the new keys, a tap verified with them, and a wrong key 0
  /// refused once with 77, after which the right key still works (the failed-authentication
  /// counter is far from its limit).
  @Test func keysChangeThenSetupWithTheNewKeys() throws {
    let reader = reader("keys")
    let before = try runTool(["keys", "versions", "--reader", reader, "--format", "json"])
    #expect(before.status == 0, "\(before.stderr)")
    #expect(before.stdout.contains(#"{"key":0,"version":0},{"key":1,"version":0},{"key":2,"version":0},{"key":3,"version":0},{"key":4,"version":0}"#))

    let values = ["00112233445566778899aabbccddeeff", "11111111111111111111111111111111", "0c3b25d92b38ae443229dd59ad34b85d",
                  "33333333333333333333333333333333", "44444444444444444444444444444444"]
    let files = try values.enumerated().map { try file("key\($0.offset).txt", $0.element + "\n") }
    for n in 1...4 {
      let r = try runTool(["keys", "change", "--key", "\(n)", "--new-key-file", files[n], "--version", "\(n)",
                           "--reader", reader, "--format", "json", "--quiet"])
      #expect(r.status == 0, "key \(n): \(r.stderr)")
      #expect(r.stdout.hasPrefix(#"{"key":\#(n),"version":\#(n),"exchanges":"#), "\(r.stdout)")
    }
    // Key 0 without --yes: refused before any reader is opened.
    let refused = try runTool(["keys", "change", "--key", "0", "--new-key-env", "NEW_KEY0", "--version", "9", "--reader", reader],
                              environment: ["NEW_KEY0": values[0]])
    #expect(refused.status == 64 && refused.stderr.contains("needs --yes"), "\(refused.stderr)")
    let key0 = try runTool(["keys", "change", "--key", "0", "--new-key-env", "NEW_KEY0", "--version", "9", "--yes",
                            "--reader", reader, "--verbose"], environment: ["NEW_KEY0": values[0]])
    #expect(key0.status == 0, "\(key0.stderr)")
    #expect(key0.stdout == "key 0 changed: version 09\n")
    #expect(key0.stderr.contains("exchanges: 5"), "\(key0.stderr)")
    for value in values { #expect(!(key0.stdout + key0.stderr).contains(value)) }

    let after = try runTool(["keys", "versions", "--reader", reader])
    #expect(after.stdout == "key 0: version 09\nkey 1: version 01\nkey 2: version 02\nkey 3: version 03\nkey 4: version 04\n",
            "\(after.stdout)\(after.stderr)")

    // A wrong key 0 (the factory key): 77 with its line, once.
    let wrong = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--quiet"])
    #expect(wrong.status == 77, "\(wrong.stderr)")
    #expect(wrong.stderr.contains("91ae") && wrong.stderr.contains("--auth-key-file"), "\(wrong.stderr)")
    // One attempt, one failure on the tag's counter for key 0 (TotFailCtr, NT4H2421Gx datasheet
    // §10.5.1; the image's bytes 600–601, LSB first), far below its limit (1000 as shipped).
    #expect(try failedAuthentications(ofKey0: "keys") == 1)
    let wrongChange = try runTool(["keys", "change", "--key", "1", "--new-key-file", files[1], "--version", "1",
                                   "--reader", reader, "--quiet"])
    #expect(wrongChange.status == 77, "\(wrongChange.stderr)")
    #expect(try failedAuthentications(ofKey0: "keys") == 2)

    // The right keys: key 0 to authorise, key 2 (meta-read) and key 1 (file-read) to verify.
    let setup = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--auth-key-file", files[0],
                             "--meta-key-env", "META", "--file-key-file", files[1], "--format", "json"],
                            environment: ["META": values[2]])
    #expect(setup.status == 0, "\(setup.stderr)")
    #expect(setup.stderr.isEmpty, "no warning with every key given: \(setup.stderr)")
    for value in values { #expect(!(setup.stdout + setup.stderr).contains(value)) }
    // A successful authentication takes the counter down again (by TotFailCtrDecr, 10 as shipped).
    #expect(try failedAuthentications(ofKey0: "keys") == 0)
    let url = try tap(reader)
    let v = try runTool(["sdm", "verify", url, "--meta-key-file", files[2], "--file-key-file", files[1], "--quiet"])
    #expect(v.status == 0, "\(v.stderr)")
    // With the factory keys the same URL is not authentic.
    #expect(try runTool(["sdm", "verify", url, "--quiet"]).status == 65)
    // Setup checks the keys it is given: the meta and file keys swapped are named as such.
    let swapped = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--auth-key-file", files[0],
                               "--meta-key-file", files[1], "--file-key-file", files[2], "--quiet"])
    #expect(swapped.status == 65 && swapped.stderr.contains("wrong key role"), "\(swapped.stderr)")
  }

  /// --trace shows every APDU of a key change and a set-up with non-factory keys, and no key
  /// (in any case, spaced or not) in them.
  @Test func theTraceHoldsNoKey() throws {
    let reader = reader("trace")
    let values = ["00112233445566778899aabbccddeeff", "b45775776cb224c75bcde7ca3704e933"]
    let k0 = try file("trace0.hex", values[0]), k1 = try file("trace1.hex", values[1])
    let change1 = try runTool(["keys", "change", "--key", "1", "--new-key-file", k1, "--version", "1", "--reader", reader,
                               "--trace", "--quiet"])
    let change0 = try runTool(["keys", "change", "--key", "0", "--new-key-file", k0, "--version", "1", "--yes",
                               "--reader", reader, "--trace", "--quiet"])
    let setup = try runTool(["sdm", "setup", "--url", Self.template, "--reader", reader, "--trace", "--auth-key-file", k0,
                             "--file-key-file", k1, "--quiet"])
    for r in [change1, change0, setup] {
      #expect(r.status == 0, "\(r.stderr)")
      #expect(r.stderr.uppercased().contains("90 C4") || r.stderr.uppercased().contains("90C4") || r.stderr.uppercased().contains("90 5F")
              || r.stderr.uppercased().contains("905F"), "a trace: \(r.stderr.prefix(400))")
      let flat = r.stderr.lowercased().filter { $0.isHexDigit }
      for value in values { #expect(!flat.contains(value), "a key in the trace") }
    }
  }

  /// A tag that is not a 424 DNA: a plain Type 4 tag has no 424 DNA application (65), a Type 2
  /// tag is not ISO 7816 at all (65).
  @Test(arguments: ["sim:type4", "sim:ntag215"]) func notA424DNA(_ reader: String) throws {
    let r = try runTool(["keys", "versions", "--reader", reader + ":" + directory.appendingPathComponent("other.bin").path,
                         "--timeout", "5"])
    #expect(r.status == 65 && r.stderr.contains("not an NTAG 424 DNA"), "\(r.stderr)")
  }

  /// The command line: a template the planner refuses, a key option given twice, a bad version.
  @Test func usage() throws {
    #expect(try runTool(["sdm", "setup", "--url", "https://example.com/{nope}", "--reader", reader("u1")]).status == 64)
    #expect(try runTool(["sdm", "setup", "--url", "https://example.com/", "--reader", reader("u2")]).status == 64)
    #expect(try runTool(["keys", "change", "--key", "5", "--new-key-env", "X", "--version", "1"]).status == 64)
    #expect(try runTool(["keys", "change", "--key", "1", "--new-key-env", "X", "--version", "256"]).status == 64)
    #expect(try runTool(["keys", "change", "--key", "1", "--version", "1"]).status == 64)
    let bad = try runTool(["keys", "change", "--key", "1", "--new-key-env", "X", "--version", "1", "--reader", reader("u3")],
                          environment: ["X": "not a key"])
    #expect(bad.status == 64 && !bad.stderr.contains("not a key"), "\(bad.stderr)")
  }
}

/// `sdm setup`'s commands in order, on the virtual tag directly: the tear-safe write (NLEN zeroed,
/// the message, NLEN), ChangeFileSettings, then a new selection and an unauthenticated read.
@Suite struct SDMSetupOrderTests {
  /// A link straight to the virtual tag that keeps every command.
  final class RecordingLink: Transceiver {
    let tag: NTAG424DNAVirtualTag
    var commands: [[UInt8]] = []
    init(_ tag: NTAG424DNAVirtualTag) { self.tag = tag }
    var capabilities: LinkCapabilities { LinkCapabilities(maxResponseLength: 250, maxCommandLength: 250, rawCommands: true) }
    func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
      commands.append(command)
      guard case .data(let answer) = tag.respond(to: command) else { throw .timeout }
      return answer
    }
  }

  @Test func theCommandsAndTheirOrder() throws {
    let virtual = try NTAG424DNAVirtualTag()
    let link = RecordingLink(virtual)
    let plan = try SDMPlan.plan(template: "https://example.com/t?p={picc}&c={cmac}")
    let context = CommandContext(output: CapturedOutput(), errors: CapturedOutput(), inputDescriptor: -1, environment: { _ in nil })
    let read = try SDMCommand.Setup.write(plan, on: NTAG424DNA(link: link), authKey: .factory, console: context.console)
    // CLA and INS of each command: SELECT, AuthenticateEV2First (two parts), one WriteData (the
    // file fits one frame: tearing-protected), ChangeFileSettings, SELECT, ReadData.
    #expect(link.commands.map { [$0[0], $0[1]] } == [[0x00, 0xA4], [0x90, 0x71], [0x90, 0xAF], [0x90, 0x8D],
                                                    [0x90, 0x5F], [0x00, 0xA4], [0x90, 0xAD]])
    // WriteData's header: file 02, offset (3 bytes LE), length (3 bytes LE), then NLEN and the message.
    let writes = link.commands.filter { $0[1] == 0x8D }
    #expect(writes.count == 1)
    #expect(Array(writes[0].dropFirst(5).prefix(7)) == [0x02, 0, 0, 0, UInt8(plan.ndefFile.count), 0, 0])
    #expect(Array(writes[0].dropFirst(12).prefix(plan.ndefFile.count)) == plan.ndefFile)
    // The whole command fits one 128-byte ISO-DEP frame with its PCB and CRC.
    #expect(writes[0].count + 3 <= 128, "\(writes[0].count)")
    #expect(read.count == plan.ndefFile.count && read.prefix(2) == plan.ndefFile.prefix(2))
    #expect(virtual.readCounter(file: 2) == 1)
  }

  /// A file too long for one frame keeps the tear-safe order: NLEN zeroed, the message, NLEN.
  @Test func aLongFileIsWrittenInTheTearSafeOrder() throws {
    let virtual = try NTAG424DNAVirtualTag()
    let link = RecordingLink(virtual)
    let plan = try SDMPlan.plan(template: "https://example.com/a-rather-long-path/for-a-product-page/with-more-words?p={picc}&c={cmac}")
    #expect(plan.ndefFile.count > SDMCommand.Setup.singleFrameWrite)
    let context = CommandContext(output: CapturedOutput(), errors: CapturedOutput(), inputDescriptor: -1, environment: { _ in nil })
    let read = try SDMCommand.Setup.write(plan, on: NTAG424DNA(link: link), authKey: .factory, console: context.console)
    let writes = link.commands.filter { $0[1] == 0x8D }.map { Array($0[5...]) }
    #expect(writes.count == 3)
    guard writes.count == 3 else { return }
    #expect(Array(writes[0].prefix(9)) == [0x02, 0, 0, 0, 2, 0, 0, 0x00, 0x00])
    #expect(Array(writes[1].prefix(7)) == [0x02, 2, 0, 0, UInt8(plan.ndefFile.count - 2), 0, 0])
    #expect(Array(writes[2].prefix(9)) == [0x02, 0, 0, 0, 2, 0, 0] + Array(plan.ndefFile.prefix(2)))
    #expect(read.count == plan.ndefFile.count && read.prefix(2) == plan.ndefFile.prefix(2))
  }
}

/// `text` as a JSON object.
func jsonObject(_ text: String) throws -> [String: Any] {
  try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

/// The URL of the tag's one URI record on `reader`, read as a phone reads it (`nfctag read`:
/// ISOSelectFile, ISOReadBinary, SDM applied).
func tappedURL(_ reader: String) throws -> String {
  let r = try runTool(["read", "--reader", reader, "--format", "json", "--quiet"])
  #expect(r.status == 0, "\(r.stderr)")
  let records = try #require(try jsonObject(r.stdout)["records"] as? [[String: Any]])
  return try #require(records.first?["uri"] as? String)
}
