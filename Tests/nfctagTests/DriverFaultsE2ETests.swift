import Foundation
import Testing

/// The fault table (docs/faults.md) on every reader face but the ACR122U's (``FaultsEndToEnd``
/// runs that one through vpcd): an NTAG213 holding a message behind each face of nfctag's
/// pcsc-lite driver, under the real reader's name (docs/ifd-handler.md), shown by
/// `nfctag emulate --reader FACE --fault KIND@N`. Each face reaches a Type 2 tag its own way
/// (direct transmit `FF 00 00 00`, transparent exchange `FF C2`, READ BINARY `FF B0` and UPDATE
/// BINARY `FF D6`), so the APDU that gets the fault is picked per face from a trace of the same
/// command on `sim:ntag213@FACE`, by the step of the command it carries ("the first write",
/// "the first read of the data area"), never by its number. The checks are FaultsEndToEnd's: one
/// line on stderr, the exit status, no hang, and what the tag holds afterwards; the rows must be
/// docs/faults.md's table of that face (`NFCTAG_UPDATE_FAULTS=1` rewrites them).
///
/// CI (`NFCTAG_FULL_COUNTS=1`) runs every face's whole table; a plain `make test` runs
/// ``quickTargets`` with ``quickKinds`` on every face (docs/faults.md says which).
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .enabled(if: ifdHandlerInstalled, ifdHandlerSkipReason))
struct DriverFaultsEndToEnd {
  static let faces = ["acr1252u", "acr1552u", "utrust3700f", "omnikey5022", "omnikey5422", "scl3711"]
  static let oldText = FaultsEndToEnd.oldText, newText = FaultsEndToEnd.newText
  /// The tag memory a traced APDU touches: the pages it reads or writes (nil: it reaches no
  /// page, as GET DATA, a probe or a session command).
  enum Step: Equatable, Sendable {
    case read(ClosedRange<Int>)
    case write(Int)

    var isWrite: Bool { if case .write = self { true } else { false } }

    func reads(_ page: Int) -> Bool { if case .read(let pages) = self { pages.contains(page) } else { false } }
  }

  /// A traced APDU (hex with spaces) and its answer → its step and the short form the table
  /// shows: the tag command with its address inside a direct transmit or a transparent exchange
  /// (`a2 05`, `3a 00 27`), the header of a READ or UPDATE BINARY (`ff d6 00 05`).
  static func step(_ apdu: String, answer: String) -> (step: Step, shown: String)? {
    let bytes = apdu.split(separator: " ").compactMap { UInt8($0, radix: 16) }.map(Int.init)
    guard bytes.count >= 5, bytes[0] == 0xFF else { return nil }
    let page = bytes[2] << 8 | bytes[3]
    let header = bytes.prefix(4).map { String(format: "%02x", $0) }.joined(separator: " ")
    switch bytes[1] {
    case 0xB0:
      // READ BINARY from block P1 P2 (PC/SC Part 3 §3.2.2.1): the pages the answer holds
      // (a reader may answer fewer bytes than Le asks, or more), else the Le asked for.
      let answered = answer.split(separator: " ").count - 2
      let length = answered > 0 ? answered : bytes[4] == 0 ? 256 : bytes[4]
      return (.read(page...(page + max(1, length / 4) - 1)), header)
    case 0xD6: return (.write(page), header)  // UPDATE BINARY (PC/SC Part 3 §3.2.2.1)
    default: break
    }
    let tagCommand: ArraySlice<Int>
    if bytes.starts(with: [0xFF, 0x00, 0x00, 0x00]), bytes.count >= 7, bytes[5] == 0xD4, bytes[6] == 0x42 {
      tagCommand = bytes[7...]  // the ACR122U's PN532 InCommunicateThru
    } else if bytes.starts(with: [0xFF, 0xC2, 0x00, 0x01]), let data = transceiveData(bytes.dropFirst(5)) {
      tagCommand = data  // transparent exchange: the Transceive data object (95; PC/SC Part 3 supplement)
    } else {
      return nil
    }
    guard let command = tagCommand.first, tagCommand.count >= 2 else { return nil }
    let address = tagCommand[tagCommand.startIndex + 1]
    let shown = { (n: Int) in tagCommand.prefix(n).map { String(format: "%02x", $0) }.joined(separator: " ") }
    switch command {
    case 0x3A where tagCommand.count >= 3: return (.read(address...max(address, tagCommand[tagCommand.startIndex + 2])), shown(3))
    case 0x30: return (.read(address...(address + 3)), shown(2))
    case 0xA2: return (.write(address), shown(2))
    default: return nil
    }
  }

  /// The value of the BER-TLV data object 95 (Transceive) among `objects`.
  static func transceiveData(_ objects: ArraySlice<Int>) -> ArraySlice<Int>? {
    var i = objects.startIndex
    while i < objects.endIndex {
      var tag = objects[i]
      i += 1
      if tag & 0x1F == 0x1F {  // a tag of more bytes: each but the last has bit 8 set
        while i < objects.endIndex, objects[i] & 0x80 != 0 { i += 1 }
        guard i < objects.endIndex else { return nil }
        tag = tag << 8 | objects[i]
        i += 1
      }
      guard i < objects.endIndex else { return nil }
      var length = objects[i]
      i += 1
      if length == 0x81, i < objects.endIndex {  // BER: one length byte follows
        length = objects[i]
        i += 1
      } else if length >= 0x80 {
        return nil
      }
      guard i + length <= objects.endIndex else { return nil }
      if tag == 0x95 { return objects[i..<(i + length)] }
      i += length
    }
    return nil
  }

  /// One row group: a command and the step of it that gets the fault, the same on every face.
  struct Target: Sendable {
    var command: [String]
    var what: String
    /// The steps of the command's APDUs (nil where an APDU reaches no page) → the 0-based index
    /// of the one to spoil; nil when the command has no such step on this face.
    var pick: @Sendable ([Step?]) -> Int?
    var allowed: Set<String>
  }

  /// The `k`th (1-based; 0 the last) APDU whose step matches.
  static func nth(_ k: Int, _ matches: @escaping @Sendable (Step) -> Bool) -> @Sendable ([Step?]) -> Int? {
    { steps in
      let hits = steps.indices.filter { steps[$0].map(matches) ?? false }
      return k > 0 ? (hits.count >= k ? hits[k - 1] : nil) : hits.last
    }
  }

  static func write(_ step: Step) -> Bool { step.isWrite }
  /// NTAG213: the data area starts at page 4, the dynamic lock bytes are page 40 (NXP
  /// NTAG213/215/216 data sheet §8.5).
  static func dataArea(_ step: Step) -> Bool { step.reads(4) }
  static func dynamicLock(_ step: Step) -> Bool { step.reads(0x28) }

  /// FaultsEndToEnd's targets, each described by its step rather than by its bytes.
  static let targets: [Target] = [
    Target(command: ["read"], what: "the first read of the data area", pick: nth(1, dataArea), allowed: ["old"]),
    Target(command: ["info"], what: "the first read of the data area", pick: nth(1, dataArea), allowed: ["old"]),
    Target(command: ["info"], what: "the read of the dynamic lock page (an optional fact)", pick: nth(1, dynamicLock),
           allowed: ["old"]),
    Target(command: ["write", "text", newText], what: "the first write (the NDEF length zeroed)", pick: nth(1, write),
           allowed: ["old", "empty"]),
    Target(command: ["write", "text", newText], what: "the third write (message data)", pick: nth(3, write), allowed: ["empty"]),
    Target(command: ["write", "text", newText], what: "the last write (the NDEF length)", pick: nth(0, write),
           allowed: ["empty", "new"]),
    Target(command: ["erase"], what: "the first write (the NDEF length zeroed)", pick: nth(1, write), allowed: ["old", "empty"]),
    Target(command: ["erase"], what: "the second write (old bytes overwritten)", pick: nth(2, write), allowed: ["empty"]),
    Target(command: ["format"], what: "the first write (the NDEF length zeroed)", pick: nth(1, write), allowed: ["old", "empty"]),
    Target(command: ["lock", "--yes"], what: "the first write (CC write access)", pick: nth(1, write),
           allowed: ["old", "old, read-only"]),
    Target(command: ["lock", "--yes"], what: "the last write (static lock bytes)", pick: nth(0, write),
           allowed: ["old, read-only"]),
  ]

  /// A plain `make test`'s subset, on every face: the write command's three targets (its first,
  /// third and last write: at the first and the last, what the tag holds afterwards depends on
  /// whether it ran the command), with a fault the tag ran (`garbage`) and one it did not
  /// (`drop`, the reader gone).
  static let quickTargets = [3, 4, 5]
  static let quickKinds = ["garbage", "drop"]
  static var kinds: [String] { fullCounts ? FaultsEndToEnd.kinds : quickKinds }

  /// One test case: a face and a target.
  struct Case: Sendable, CustomTestStringConvertible {
    var face: String
    var target: Int
    var testDescription: String {
      let t = DriverFaultsEndToEnd.targets[target]
      return "\(face): \(t.command.first ?? "") at \(t.what)"
    }
  }

  static let cases: [Case] = faces.flatMap { face in
    (fullCounts ? Array(targets.indices) : quickTargets).map { Case(face: face, target: $0) }
  }

  let directory: URL

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-driver-faults-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
  }

  /// A fresh NTAG213 image holding the old message.
  func freshImage(_ name: String) throws -> URL {
    try FaultsEndToEnd.freshImage(directory.appendingPathComponent(name))
  }

  /// The APDUs `command` sends through `face` to a tag holding the old message, each with its
  /// answer (the simulator's trace: `trace: > APDU`, then `trace: < ANSWER (T ms)`).
  func apdus(_ command: [String], face: String) throws -> [(apdu: String, answer: String)] {
    let image = try freshImage("dry-\(face).bin")
    let r = try runNFCTag(command + ["--trace", "--reader", "sim:ntag213@\(face):" + image.path])
    guard r.status == 0 else { throw EmulatorFailure(message: "\(command) on sim:ntag213@\(face): \(r.stderr)") }
    var sent: [(apdu: String, answer: String)] = []
    for line in r.stderr.split(separator: "\n") {
      if line.hasPrefix("trace: > ") {
        sent.append((String(line.dropFirst(9)), ""))
      } else if line.hasPrefix("trace: < "), !sent.isEmpty {
        sent[sent.count - 1].answer = String(line.dropFirst(9).prefix { $0 != "(" })
      }
    }
    return sent
  }

  /// The target's APDU in `sent` (a trace of its command): its 1-based number and its table
  /// cell; nil when the command has no such step on that face.
  static func pick(_ target: Target, in sent: [(apdu: String, answer: String)]) -> (n: Int, cell: String)? {
    let steps = sent.map { step($0.apdu, answer: $0.answer) }
    guard let i = target.pick(steps.map { $0?.step }), let shown = steps[i]?.shown else { return nil }
    return (i + 1, "\(i + 1): \(target.what), `\(shown)`")
  }

  static func commandCell(_ target: Target) -> String {
    target.command.first == "write" ? "write text …" : target.command.joined(separator: " ")
  }

  /// What one case gave: its rows, and what went wrong on the way (recorded as issues by the test).
  struct Outcome: Sendable {
    var rows: [FaultsEndToEnd.Row] = []
    var problems: [String] = []
  }

  /// Each face and target is a test case of its own and checks its rows of the face's table;
  /// ``eachFacesTableHoldsARowPerTargetAndFault`` checks that nothing else is there. A case
  /// mostly waits (on pcscd's presence polls, on an emulator, on a slow answer), and the faces
  /// have a reader each: so the case waits on a thread of its own, not on one of the few that
  /// run the tests, and the faces' tables run side by side (one reader of a face, one case).
  @Test(arguments: cases)
  func everyFaultOnEveryFaceGivesOneLineAnExitStatusAndAWholeMessage(_ c: Case) async throws {
    let target = Self.targets[c.target]
    let outcome = try await Self.onThread { [self] in try run(target, on: c.face) }
    for problem in outcome.problems { Issue.record(Comment(rawValue: problem)) }
    try checkTable(face: c.face, command: Self.commandCell(target), what: target.what, rows: outcome.rows)
  }

  /// Runs `body` on a thread of its own and gives its result to the task that waits for it.
  static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
      Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
  }

  /// The target's command on a driver reader of `face`, once per fault kind, each on a fresh
  /// tag: FaultsEndToEnd's checks, as problems (this runs outside the test's task).
  func run(_ target: Target, on face: String) throws -> Outcome {
    try holdingDriverReader(face: face) { reader in
      var outcome = Outcome()
      // No such step on this face (a reader that reads no dynamic lock page): no rows.
      guard let (n, cell) = Self.pick(target, in: try apdus(target.command, face: face)) else { return outcome }
      for kind in Self.kinds {
        let fault = "\(kind)@\(n)"
        let image = try freshImage("tag-\(face).bin")
        let emulator = try Emulator(tag: "ntag213", image: image, extra: ["--reader", face, "--fault", fault], driver: reader)
        let start = Date()
        let r = try runNFCTag(target.command + ["--reader", reader.name, "--timeout", "5", "--exchange-timeout", "1"], timeout: 30)
        let elapsed = Date().timeIntervalSince(start)
        emulator.stop()
        let label = "\(face): \(target.command.joined(separator: " ")) with \(fault)"
        func check(_ ok: Bool, _ problem: @autoclosure () -> String) { if !ok { outcome.problems.append("\(label): \(problem())") } }
        let said = emulator.stderrText()
        check(said.contains("fault \(fault) injected"), "the emulator said \(said)")
        check(elapsed < 8, "took \(elapsed) s")
        let lines = r.stderr.split(separator: "\n")
        if r.status != 0 {
          check(lines.count == 1 && lines.first?.hasPrefix("nfctag: ") == true, "stderr is not one line: \(r.stderr)")
        }
        check([0, 74, 77].contains(r.status), "exit status \(r.status): \(r.stderr)")
        let after = try FaultsEndToEnd.content(of: image)
        check(target.allowed.contains(after), "the tag holds \(after)")
        outcome.rows.append(FaultsEndToEnd.Row(command: Self.commandCell(target), apdu: cell, fault: kind, status: r.status,
                                               content: after, line: r.status == 0 ? "" : String(lines.first ?? "")))
      }
      return outcome
    }
  }

  /// Each face's table holds the rows of its targets and nothing else: a row group per target
  /// the face has, one row per fault kind.
  @Test(arguments: faces)
  func eachFacesTableHoldsARowPerTargetAndFault(_ face: String) throws {
    let rows = try Self.table(face).rows
    var expected: [String] = []
    var traces: [[String]: [(apdu: String, answer: String)]] = [:]
    for target in Self.targets {
      let sent = try traces[target.command] ?? apdus(target.command, face: face)
      traces[target.command] = sent
      guard let (_, cell) = Self.pick(target, in: sent) else { continue }
      expected += FaultsEndToEnd.kinds.map { "| `\(Self.commandCell(target))` | \(cell) | \($0) |" }
    }
    let documented = rows.map { row in row.split(separator: "|", omittingEmptySubsequences: false).prefix(4).joined(separator: "|") + "|" }
    #expect(documented == expected, "docs/faults.md's \(face) table:\n\(documented.joined(separator: "\n"))")
  }

  static func begin(_ face: String) -> String {
    "<!-- fault-table \(face): generated by Tests/nfctagTests/DriverFaultsE2ETests.swift; do not edit -->"
  }
  static func end(_ face: String) -> String { "<!-- fault-table \(face) end -->" }

  /// `face`'s table in docs/faults.md: its rows, and the text before and after them.
  static func table(_ face: String) throws -> (before: String, rows: [String], after: String) {
    let text = try String(contentsOf: FaultsEndToEnd.docs, encoding: .utf8)
    let start = try #require(text.range(of: begin(face) + "\n"), "docs/faults.md has no table for \(face)")
    let stop = try #require(text.range(of: end(face), range: start.upperBound..<text.endIndex), "docs/faults.md: no end marker for \(face)")
    let rows = text[start.upperBound..<stop.lowerBound].split(separator: "\n").map(String.init).filter { $0.hasPrefix("| `") }
    return (String(text[..<start.upperBound]), rows, String(text[stop.lowerBound...]))
  }

  /// The fault kind of a table row (its third cell).
  static func fault(of row: String) -> String {
    let cells = row.split(separator: "|", omittingEmptySubsequences: false)
    return cells.count > 3 ? cells[3].trimmingCharacters(in: .whitespaces) : ""
  }

  /// docs/faults.md's `face` table holds `rows` for the target (its command and its step,
  /// `what`; none when the face has no such step), for the kinds this run tried; with
  /// NFCTAG_UPDATE_FAULTS=1 they are written in (where the target's rows were, else at the end;
  /// rows of kinds not tried stay), under a lock the test processes share.
  func checkTable(face: String, command: String, what: String, rows: [FaultsEndToEnd.Row]) throws {
    let lines = rows.map(FaultsEndToEnd.line)
    let tried = Set(rows.map(\.fault))
    let ours = { (row: String) in
      row.hasPrefix("| `\(command)` | ") && row.contains(": \(what), `")
        && (rows.isEmpty || tried.contains(Self.fault(of: row)))
    }
    if ProcessInfo.processInfo.environment["NFCTAG_UPDATE_FAULTS"] == "1" {
      let fd = PcscdLocks.lock("/tmp/nfctag-faults-doc.lock", exclusive: true)
      defer { PcscdLocks.unlock(fd) }
      let (before, table, after) = try Self.table(face)
      var kept = table
      let at = kept.firstIndex(where: ours) ?? kept.endIndex
      kept.removeAll(where: ours)
      kept.insert(contentsOf: lines, at: min(at, kept.endIndex))
      // The cases end in any order: the groups go in the targets' order (a stable sort).
      let order = { (row: String) in
        Self.targets.firstIndex { row.hasPrefix("| `\(Self.commandCell($0))` | ") && row.contains(": \($0.what), `") } ?? Self.targets.count
      }
      kept = kept.enumerated().sorted { (order($0.element), $0.offset) < (order($1.element), $1.offset) }.map(\.element)
      try (before + FaultsEndToEnd.header + kept.map { $0 + "\n" }.joined() + after)
        .write(to: FaultsEndToEnd.docs, atomically: true, encoding: .utf8)
    } else {
      let documented = try Self.table(face).rows.filter(ours)
      #expect(documented == lines, "docs/faults.md's \(face) table differs from what the faults gave (NFCTAG_UPDATE_FAULTS=1 rewrites it):\n\(lines.joined(separator: "\n"))")
    }
  }
}
