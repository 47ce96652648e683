import Foundation
import Testing

/// Every reader face with every tag family it reads, through the real pcscd under the real
/// reader's name (nfctag's pcsc-lite driver, docs/ifd-handler.md): the tool's whole round on a
/// fresh tag — scan, format, write, read, dump, info, erase, a message too large, lock — and a
/// provisioning run of ten rows onto fed tags; and, for the families a face does not read, the
/// documented refusal. The families are docs/readers.md's "Families" column; the test fails when
/// they differ.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .enabled(if: ifdHandlerInstalled, ifdHandlerSkipReason))
struct DriverFacesEndToEnd {
  /// One face with one tag family.
  struct Cell: Sendable, CustomTestStringConvertible {
    var face: String
    var tag: String
    var testDescription: String { "\(tag) behind \(face)" }
    /// The family's platform in `scan --json`.
    var platform: String { Self.platforms[tag] ?? "?" }
    var isClassic: Bool { tag.hasPrefix("mifare-classic") }

    static let platforms = ["topaz512": "type1", "ntag215": "type2", "ultralight-ev1": "type2",
                            "felica-lite-s": "type3", "type4": "type4", "ntag424dna": "type4",
                            "icode-slix2": "type5", "mifare-classic-1k": "mifare-classic",
                            "mifare-classic-4k": "mifare-classic"]
  }

  /// The families each face reads (PC/SC Part 3 and each reader's manual: docs/readers.md).
  static let families: [(face: String, tags: [String])] = [
    ("acr122u", ["topaz512", "ntag215", "ultralight-ev1", "felica-lite-s", "type4", "ntag424dna",
                 "mifare-classic-1k", "mifare-classic-4k"]),
    ("acr1252u", ["ntag215", "ultralight-ev1", "felica-lite-s", "type4", "ntag424dna", "mifare-classic-1k",
                  "mifare-classic-4k"]),
    ("acr1552u", ["ntag215", "ultralight-ev1", "type4", "ntag424dna", "icode-slix2", "mifare-classic-1k",
                  "mifare-classic-4k"]),
    ("utrust3700f", ["ntag215", "ultralight-ev1", "felica-lite-s", "type4", "ntag424dna", "mifare-classic-1k",
                     "mifare-classic-4k"]),
    ("omnikey5022", ["ntag215", "ultralight-ev1", "type4", "ntag424dna", "icode-slix2", "mifare-classic-1k",
                     "mifare-classic-4k"]),
    ("omnikey5422", ["ntag215", "ultralight-ev1", "type4", "ntag424dna", "mifare-classic-1k", "mifare-classic-4k"]),
    ("scl3711", ["topaz512", "ntag215", "ultralight-ev1", "felica-lite-s", "type4", "ntag424dna", "mifare-classic-1k",
                 "mifare-classic-4k"]),
  ]
  /// The faces that read a Type 2 tag by READ BINARY alone (no transparent exchange, no direct
  /// transmit: docs/readers.md).
  static let readBinaryOnly: Set<String> = ["utrust3700f", "omnikey5022", "omnikey5422", "scl3711"]
  /// Every face × every family it reads in CI (``fullCounts``); in a plain `make test`, a cover:
  /// on each face the families whose path differs from face to face (a Type 2 tag: transparent
  /// exchange, direct transmit or READ BINARY alone; a Classic 1K: each reader's LOAD KEYS), and
  /// each other family on the first face that reads it.
  static var cells: [Cell] { fullCounts ? allCells : quickCells }
  static let allCells = families.flatMap { face in face.tags.map { Cell(face: face.face, tag: $0) } }
  static let quickCells: [Cell] = {
    var covered: Set<String> = []
    return families.flatMap { face in
      face.tags.filter { tag in
        defer { covered.insert(tag) }
        return tag == "ntag215" || tag == "mifare-classic-1k" || !covered.contains(tag)
      }.map { Cell(face: face.face, tag: $0) }
    }
  }()
  /// The families no face of `families` lacks a row for: each face × the ones it does not read.
  static let refusals: [Cell] = families.flatMap { face in
    Cell.platforms.keys.sorted().filter { tag in
      !face.tags.contains(tag) && !face.tags.contains { Cell.platforms[$0] == Cell.platforms[tag] }
    }.map { Cell(face: face.face, tag: $0) }
  }

  @Test(arguments: cells)
  func theToolsWholeRoundOnAFreshTag(_ cell: Cell) throws {
    try withDriverReader(face: cell.face, tag: cell.tag) { reader, emulator in
      func nfctag(_ arguments: String...) throws -> RunResult {
        try runNFCTag(arguments + ["--reader", reader.name, "--timeout", "5"])
      }
      let scan = try nfctag("scan", "--json")
      #expect(scan.status == 0, "\(scan.stderr)")
      #expect(scan.stdout.contains(#""platform":"\#(cell.platform)""#), "\(scan.stdout)")
      #expect(scan.stdout.contains(#""reader":"\#(reader.name)""#), "\(scan.stdout)")

      let format = try nfctag("format")
      #expect(format.status == 0, "\(format.stderr)")
      let url = "https://example.org/\(cell.face)/\(cell.tag)"
      let write = try nfctag("write", "url", url)
      #expect(write.status == 0, "\(write.stderr)")
      #expect(write.stderr.contains("verified"), "\(write.stderr)")
      let read = try nfctag("read", "--format", "json")
      #expect(read.stdout.contains(#""uri":"\#(url)""#), "\(read.stdout) \(read.stderr)")

      // The whole memory: a Type 1–5 dump loads as a virtual tag that holds the same message (a
      // MIFARE Classic dump reads its keys as zeros; a 424 DNA's is its files, not an image). On a
      // reader with READ BINARY only (no GET_VERSION), a Type 2 dump ends where the CC's data area
      // does (docs/readers.md): it is then the image's first bytes.
      let memory = try nfctag("dump", "--memory", "--format", "raw")
      #expect(memory.status == 0, "\(memory.stderr)")
      #expect(!memory.stdoutBytes.isEmpty)
      if !cell.isClassic && cell.tag != "ntag424dna" {
        let image = try Data(contentsOf: emulator.image)
        let whole = memory.stdoutBytes.count == image.count - (cell.platform == "type4" ? 7 : 0)
        if whole {
          let dumped = emulator.image.deletingLastPathComponent().appendingPathComponent("dumped.bin")
          try memory.stdoutBytes.write(to: dumped)
          let reloaded = try runNFCTag(["read", "--format", "json", "--reader", "sim:\(cell.tag)@\(cell.face):\(dumped.path)"])
          #expect(reloaded.stdout.contains(#""uri":"\#(url)""#), "\(reloaded.stderr)")
        } else {
          #expect(cell.platform == "type2" && Self.readBinaryOnly.contains(cell.face), "a short dump: \(memory.stdoutBytes.count) of \(image.count)")
          #expect(memory.stdoutBytes == image.prefix(memory.stdoutBytes.count))
        }
      }

      let info = try nfctag("info", "--json")
      #expect(info.status == 0, "\(info.stderr)")
      #expect(info.stdout.contains(#""status":"readWrite""#), "\(info.stdout)")

      let erase = try nfctag("erase")
      #expect(erase.status == 0, "\(erase.stderr)")
      #expect(try nfctag("read", "--format", "json").stdout == "{\"records\":[]}\n")

      #expect(try nfctag("write", "text", "kept").status == 0)
      // Too large for any of them: 73, and nothing written.
      let before = try Data(contentsOf: emulator.image)
      let big = try nfctag("write", "text", String(repeating: "x", count: 9000))
      #expect(big.status == 73, "\(big.stderr)")
      #expect(big.stderr.contains("nothing was written"), "\(big.stderr)")
      #expect(try Data(contentsOf: emulator.image) == before)
      try checkLock(cell, emulator: emulator, nfctag: { try runNFCTag($0 + ["--reader", reader.name, "--timeout", "5"]) })
    }
  }

  /// `lock` needs `--yes`, then makes the tag read-only: a write after it is 77 and changes
  /// nothing. (An NTAG 424 DNA's lock is ChangeFileSettings with its factory key 0, performed by
  /// nfctag-provision: docs/ntag-424-dna.md.)
  private func checkLock(_ cell: Cell, emulator: Emulator, nfctag: ([String]) throws -> RunResult) throws {
    let unconfirmed = try nfctag(["lock"])
    #expect(unconfirmed.status == 64, "\(unconfirmed.stderr)")
    let lock = try nfctag(["lock", "--yes"])
    #expect(lock.status == 0, "\(lock.stderr)")
    let locked = try Data(contentsOf: emulator.image)
    let refused = try nfctag(["write", "text", "not allowed"])
    #expect(refused.status == 77, "\(refused.stderr)")
    #expect(try Data(contentsOf: emulator.image) == locked)
    #expect(try nfctag(["read"]).stdout.contains("kept"))
    #expect(try nfctag(["info", "--json"]).stdout.contains(#""status":"readOnly""#))
  }

  /// Ten rows onto ten fed tags of the face's families in turn, one `provision` run: each done
  /// row's tag holds its message (read back from the saved image), no tag holds two rows. On the
  /// faces with ACS's escapes, the run's feedback (LED, then buzzer, through `SCardControl`) is what
  /// sends each tag away, as on the ACR122U its `FF 00 40`; elsewhere the tag leaves after the hand
  /// time.
  @Test(arguments: families.map(\.face))
  func tenRowsOntoFedTags(_ face: String) throws {
    let tags = try #require(Self.families.first { $0.face == face }?.tags)
    let base = ProvisionEndToEnd()
    let count = 10
    let (dir, rows) = try base.job(rows: count)
    defer { try? FileManager.default.removeItem(at: dir) }
    let signals = Self.escapeFeedback.contains(face)
    try holdingDriverReader(face: face) { reader in
      let feed = try base.feeder(dir, count: count, kinds: tags.joined(separator: ","), quiet: false,
                                 handMilliseconds: signals ? 5000 : 1000, driver: reader)
      defer { base.stopFeeder(feed) }
      let ledger = dir.appendingPathComponent("ledger.sqlite")
      let r = try runNFCTag(["provision", rows.path, "--url", "https://example.com/{slug}?id={id}", "--ledger", ledger.path,
                             "--reader", reader.name, "--timeout", "20", "--json"], timeout: 240)
      #expect(r.status == 0, "\(r.stderr)")
      #expect(waitForExit(feed) == 0)
      let events = r.stdout.split(separator: "\n")
      #expect(events.filter { $0.contains(#""status":"done""#) }.count == count, "\(r.stdout)")
      let log = (try? String(contentsOf: dir.appendingPathComponent("feeder-1.log"), encoding: .utf8)) ?? ""
      let signalled = log.components(separatedBy: "left after the LED/buzzer command").count - 1
      #expect(signalled == (signals ? count : 0), "\(log)")

      let done = try base.export(ledger).filter { $0.count > 3 && $0[2] == "done" }
      #expect(done.count == count)
      #expect(Set(done.map { $0[1] }).count == count, "a tag holds two rows")
      let images = try base.images(dir)
      for row in done {
        guard let image = images.first(where: { $0.uid == row[1] }),
              let index = Int(image.file.lastPathComponent.prefix(4)) else {
          Issue.record("row \(row[0]) is done on \(row[1]), which has no image: \(images.map(\.uid))")
          continue
        }
        let kind = tags[(index - 1) % tags.count]
        #expect(try base.messageHex(in: image.file, kind: "\(kind)@\(face)") == row[3], "row \(row[0]) on \(kind) \(row[1])")
      }
    }
  }

  /// The faces whose feedback makes a fed tag leave: the ACR122U's `FF 00 40`, ACS's LED and
  /// buzzer escapes (docs/readers.md).
  static let escapeFeedback: Set<String> = ["acr122u", "acr1252u", "acr1552u"]

  /// A family the face does not read: `nfctag emulate` says so in one line and shows no card (the
  /// real reader does not poll for it, or has no command path to it: docs/readers.md), and the
  /// tool waiting on that reader says no tag came (75).
  @Test(arguments: refusals)
  func aFamilyTheFaceDoesNotReadIsRefused(_ cell: Cell) throws {
    try holdingDriverReader(face: cell.face) { reader in
      let emulate = try runProgram(nfctagBinary().path, ["emulate", "--tag", cell.tag, "--reader", cell.face, "--vpcd", reader.address],
                                   timeout: 10)
      #expect(emulate.status == 64, "\(emulate.stderr)")
      #expect(emulate.stderr.split(separator: "\n").count == 1, "\(emulate.stderr)")
      #expect(emulate.stderr.contains("does not handle") || emulate.stderr.contains("cannot read"), "\(emulate.stderr)")
      // The card of the test before on this reader may still be leaving (pcscd polls every 0.4 s).
      _ = CardWatch.wait(in: reader.name, present: false, seconds: 3)
      let scan = try runNFCTag(["scan", "--reader", reader.name, "--timeout", "1"])
      #expect(scan.status == 75, "\(scan.stderr)")
    }
  }

  /// The quick cover leaves no face and no family out.
  @Test func theQuickCellsCoverEveryFaceAndFamily() {
    #expect(Set(Self.quickCells.map(\.face)) == Set(Self.families.map(\.face)))
    #expect(Set(Self.quickCells.map(\.tag)) == Set(Self.families.flatMap(\.tags)))
    #expect(Self.quickCells.count < Self.allCells.count / 2)
  }

  /// docs/readers.md's Families column says what `families` says.
  @Test func theFamiliesAreDocsReadersTable() throws {
    let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/readers.md"), encoding: .utf8)
    let numbers = ["type1": "1", "type2": "2", "type3": "3", "type4": "4", "type5": "5", "mifare-classic": "Classic"]
    for (face, tags) in Self.families {
      let row = try #require(text.split(separator: "\n").first { $0.hasPrefix("| `\(face)`") }, "no row for \(face)")
      let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
      let expected = Set(tags.compactMap { Cell.platforms[$0] }).compactMap { numbers[$0] }
      // Each family as its number or "Classic", perhaps followed by how: "3 (SCM `FF 40`–`FF 4A`)".
      let documented = Set(cells.count > 3 ? cells[3].split(separator: ",").compactMap { $0.split(separator: " ").first.map(String.init) } : [])
      #expect(documented == Set(expected), "\(face): docs/readers.md says \(documented.sorted()), the test \(expected.sorted())")
    }
  }
}
