import Foundation
import Testing

/// A reader of nfctag's pcsc-lite driver (Drivers/ifd-nfctag, docs/ifd-handler.md): a port on
/// 127.0.0.1 that `nfctag emulate --vpcd` attaches to, listed by pcscd under the real reader's
/// name. The readers are read from Drivers/ifd-nfctag/reader.conf.in, the file `make pcscd`
/// installs, so that the tests and pcscd cannot disagree on a name or a port.
struct DriverReader: Sendable, CustomStringConvertible {
  /// The reader face `nfctag emulate --reader` gives it.
  let face: String
  /// pcsc-lite's FRIENDLYNAME, without the ` NN 00` pcscd adds.
  let friendlyName: String
  let port: Int
  /// Its place among the driver's readers: the `NN` of its name (readerfactory.c, RFSetReaderName).
  let index: Int

  /// The name pcscd lists it under.
  var name: String { "\(friendlyName) \(String(format: "%02d", index)) 00" }
  /// Where `nfctag emulate --vpcd` connects.
  var address: String { "127.0.0.1:\(port)" }
  var description: String { name }

  static let configuration = packageRoot.appendingPathComponent("Drivers/ifd-nfctag/reader.conf.in")

  /// Every reader of the driver, in the order of reader.conf.in: each entry follows a
  /// `# face FACE: NAME` comment.
  static let all: [DriverReader] = {
    guard let text = try? String(contentsOf: configuration, encoding: .utf8) else { return [] }
    var readers: [DriverReader] = []
    var face: String?, friendly: String?
    for line in text.split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
      if line.hasPrefix("# face "), let colon = line.firstIndex(of: ":") {
        face = String(line[line.index(line.startIndex, offsetBy: 7)..<colon])
      } else if line.hasPrefix("FRIENDLYNAME") {
        friendly = line.split(separator: "\"", omittingEmptySubsequences: false).dropFirst().first.map(String.init)
      } else if line.hasPrefix("CHANNELID"), let f = face, let n = friendly,
                let port = line.split(separator: " ").last.flatMap({ Int($0) }) {
        readers.append(DriverReader(face: f, friendlyName: n, port: port, index: readers.count))
        face = nil
        friendly = nil
      }
    }
    return readers
  }()

  /// The driver's readers with `face`'s name (`part3` is the ACR1552U's).
  static func readers(of face: String) -> [DriverReader] {
    let wanted = face == "part3" ? "acr1552u" : face
    return all.filter { $0.face == wanted }
  }
}

/// Locks that keep tests apart on the machine's one pcscd, across test processes:
/// - each driver reader is held by one test at a time (`/tmp/nfctag-driver-PORT.lock`);
/// - a test that restarts pcscd holds it alone (`/tmp/nfctag-pcscd.lock`, exclusive), while
///   the tests on driver readers hold it shared. A test waiting to restart it goes first: it
///   takes `/tmp/nfctag-pcscd-next.lock`, which every new sharer passes through, so the sharers
///   drain and none starts meanwhile.
/// Each hold opens its own file description, so two holds in one process conflict as two in
/// two processes do.
enum PcscdLocks {
  static let pcscd = "/tmp/nfctag-pcscd.lock"
  static let next = "/tmp/nfctag-pcscd-next.lock"

  /// Takes `path` without blocking: its descriptor, -1 when the file cannot be made (a
  /// read-only /tmp: this process alone), nil when another holds it.
  static func tryLock(_ path: String, exclusive: Bool) -> Int32? {
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o666)
    guard fd >= 0 else { return -1 }
    if flock(fd, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 { return fd }
    close(fd)
    return nil
  }

  static func lock(_ path: String, exclusive: Bool) -> Int32 {
    while true {
      if let fd = tryLock(path, exclusive: exclusive) { return fd }
      usleep(50_000)
    }
  }

  static func unlock(_ fd: Int32) { if fd >= 0 { close(fd) } }

  /// Runs `body` while pcscd is not restarted by another test.
  static func sharing<T>(_ body: () throws -> T) rethrows -> T {
    let gate = lock(next, exclusive: false)
    let fd = lock(pcscd, exclusive: false)
    unlock(gate)
    defer { unlock(fd) }
    return try body()
  }

  /// Runs `body` with pcscd to itself (no test on a driver reader runs meanwhile), waiting
  /// without holding a thread.
  static func alone<T>(_ body: () async throws -> T) async throws -> T {
    func take(_ path: String) async throws -> Int32 {
      while true {
        if let fd = tryLock(path, exclusive: true) { return fd }
        try await Task.sleep(for: .milliseconds(50))
      }
    }
    let gate = try await take(next)
    let fd: Int32
    do { fd = try await take(pcscd) } catch { unlock(gate); throw error }
    unlock(gate)
    defer { unlock(fd) }
    return try await body()
  }
}

/// A test that stops or restarts pcscd: it waits until no test uses a driver reader, and none
/// starts until it ends (``PcscdLocks``). It also needs both vpcd slots (`.virtualReaders`).
struct RestartsPcscdTrait: SuiteTrait, TestTrait, TestScoping {
  var isRecursive: Bool { true }

  func provideScope(for test: Test, testCase: Test.Case?,
                    performing function: @Sendable () async throws -> Void) async throws {
    if test.isSuite { return try await function() }
    try await PcscdLocks.alone { try await function() }
  }
}

extension Trait where Self == RestartsPcscdTrait {
  /// The test stops or restarts the machine's pcscd (see ``RestartsPcscdTrait``).
  static var restartsPcscd: Self { RestartsPcscdTrait() }
}

/// Runs `body` with a driver reader of `face` to itself, an `nfctag emulate` of `tag` attached
/// to it (`extra`: more `emulate` options) and its card present, then stops the emulator.
func withDriverReader<T>(face: String, tag: String, image: URL? = nil, extra: [String] = [],
                         _ body: (DriverReader, Emulator) throws -> T) throws -> T {
  try holdingDriverReader(face: face) { reader in
    let emulator = try Emulator(tag: tag, image: image, extra: ["--reader", face] + extra, driver: reader)
    defer { emulator.stop() }
    return try body(reader, emulator)
  }
}

/// Runs `body` with a driver reader of `face` to itself (the first free one), and pcscd not
/// restarted meanwhile. scripts/run-tests.sh runs the suites named Driver… in a process of their
/// own: they need no vpcd slot, and wait only on each other and on pcscd restarts.
func holdingDriverReader<T>(face: String, _ body: (DriverReader) throws -> T) throws -> T {
  if let test = Test.current {
    let suite = String(describing: test.id).split(separator: "/").first.map(String.init) ?? ""
    if !(suite.split(separator: ".").last ?? "").hasPrefix("Driver") {
      Issue.record("\(suite) uses a driver reader: name it Driver…, so that scripts/run-tests.sh runs it with the driver suites")
    }
  }
  let readers = DriverReader.readers(of: face)
  guard !readers.isEmpty else {
    throw EmulatorFailure(message: "no reader of face \(face) in \(DriverReader.configuration.path)")
  }
  return try PcscdLocks.sharing {
    while true {
      for reader in readers {
        guard let fd = PcscdLocks.tryLock("/tmp/nfctag-driver-\(reader.port).lock", exclusive: true) else { continue }
        defer { PcscdLocks.unlock(fd) }
        return try body(reader)
      }
      usleep(50_000)
    }
  }
}
