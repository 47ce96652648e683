import Foundation
import Hex
import Locking
import NTAG424
import ProvisionCommands
import ProvisioningLedger
import ProvisioningLedgerPostgres
import ProvisioningLedgerSQLite
import Testing

/// A running `nfctag sdm serve` (the real binary: nfctag hands it to nfctag-provision), on a
/// free port, with the master key in an environment variable.
final class ServeProcess {
  static let master = "00112233445566778899aabbccddeeff"
  let process = Process()
  let port: Int
  private let errors = Pipe()

  init(ledger: String, extra: [String] = []) throws {
    process.executableURL = nfctagBinary()
    process.arguments = ["sdm", "serve", "--listen", "127.0.0.1:0", "--master-key-env", "SUN_MASTER", "--ledger", ledger] + extra
    var environment = ProcessInfo.processInfo.environment
    environment["SUN_MASTER"] = Self.master
    process.environment = environment
    let out = Pipe()
    process.standardOutput = out
    process.standardError = errors
    try process.run()
    // The first line names the port; nothing else is printed on standard output.
    var line = Data()
    let handle = out.fileHandleForReading
    while !line.contains(0x0A) {
      let chunk = handle.availableData
      if chunk.isEmpty { break }
      line.append(chunk)
    }
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix("listening on 127.0.0.1:"), let port = Int(text.dropFirst(23).prefix { $0.isNumber }) else {
      process.terminate()
      throw ServeFailure(line: text + String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self))
    }
    self.port = port
  }

  struct ServeFailure: Error { var line: String }

  /// SIGTERM, then the exit status and standard error (at most 10 s).
  func stop() -> (status: Int32, stderr: String) {
    kill(process.processIdentifier, SIGTERM)
    let deadline = Date().addingTimeInterval(10)
    while process.isRunning, Date() < deadline { usleep(10_000) }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    return (process.terminationStatus, stderr)
  }

  deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

  /// `curl` on `path`: the status and the body.
  func get(_ path: String, method: String = "GET") throws -> (status: Int, body: String) {
    try Self.get(port: port, path, method: method)
  }

  /// `curl` on `path` at `port` of 127.0.0.1.
  static func get(port: Int, _ path: String, method: String = "GET") throws -> (status: Int, body: String) {
    let r = try runProcess(URL(fileURLWithPath: "/usr/bin/curl"),
                           ["-s", "-X", method, "-w", "\n%{http_code}", "http://127.0.0.1:\(port)\(path)"], timeout: 20)
    let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false)
    // The body ends with a newline, then -w's newline and the status.
    return (Int(lines.last ?? "") ?? -1, lines.dropLast(2).joined(separator: "\n"))
  }
}

/// SUN queries as a tag with keys derived from ``ServeProcess/master`` writes them.
enum ServeTaps {
  static let uid: [UInt8] = [0x04, 0x51, 0x9A, 0x22, 0x7B, 0x61, 0x80]

  static func query(counter: UInt32, uid: [UInt8] = uid, flipMAC: Bool = false) throws -> String {
    let master = try AESKey(bytes: parseHex(ServeProcess.master) ?? [])
    let meta = try SDMKeyDiversification.metaReadKey(master: master)
    let file = try SDMKeyDiversification.fileReadKey(master: master, uid: uid)
    let picc = try SDMGeneration.encryptPICCData(uid: uid, readCounter: counter, metaReadKey: meta, padding: [1, 2, 3, 4, 5])
    var mac = try SecureDynamicMessaging.mac(over: [], sessionKeys: SDMSessionKeys(fileReadKey: file, uid: uid, readCounter: counter))
    if flipMAC { mac[0] ^= 0x01 }
    return "p=\(hexString(picc))&c=\(hexString(mac))"
  }
}

/// `sdm serve` as a process: real HTTP through curl, graceful stop on SIGTERM. No reader, no
/// vpcd slot.
@Suite struct SUNServeProcess {
  let directory: URL
  let ledgerPath: String

  init() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-serve-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    ledgerPath = directory.appendingPathComponent("run.ledger").path
    try SQLiteLedger(path: ledgerPath, job: LedgerJob(name: "batch")).close()
  }

  @Test func verifiesOverHTTPKeepsCountersAndStopsOnSIGTERM() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = try ServeProcess(ledger: ledgerPath)
    let tap = try ServeTaps.query(counter: 12)
    let fresh = try server.get("/verify?\(tap)")
    #expect(fresh.status == 200)
    #expect(fresh.body == #"{"valid":true,"uid":"04519a227b6180","counter":12,"fresh":true}"#)
    let replay = try server.get("/verify?\(tap)")
    #expect(replay.status == 200)
    #expect(replay.body.hasPrefix(#"{"valid":true,"uid":"04519a227b6180","counter":12,"fresh":false,"lastCounter":12"#))
    let forged = try server.get("/verify?\(try ServeTaps.query(counter: 13, flipMAC: true))")
    #expect(forged.status == 200)
    #expect(forged.body.hasPrefix(#"{"valid":false,"reason":"bad CMAC"#))
    let malformed = try server.get("/verify?p=12&c=34")
    #expect(malformed.status == 400)
    #expect(malformed.body == #"{"error":"the 'p' parameter has 2 hex digits, expected 32"}"#)
    let whole = try server.get("/verify?url=" + ("https://example.com/t?" + (try ServeTaps.query(counter: 13)))
      .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
    #expect(whole.body.contains(#""counter":13,"fresh":true"#))
    #expect(try server.get("/nothing").status == 404)
    let post = try server.get("/verify?\(tap)", method: "POST")
    #expect(post.status == 404, "\(post)")  // Hummingbird: a route is a method and a path
    let metrics = try server.get("/metrics")
    #expect(metrics.status == 200)
    #expect(metrics.body.contains(#"nfctag_sun_verifications_total{outcome="fresh"} 2"#))
    #expect(metrics.body.contains(#"nfctag_sun_verifications_total{outcome="replayed"} 1"#))
    #expect(metrics.body.contains(#"nfctag_sun_verifications_total{outcome="forged"} 1"#))
    #expect(metrics.body.contains(#"nfctag_sun_verifications_total{outcome="malformed"} 1"#))
    #expect(metrics.body.contains("nfctag_sun_verification_duration_seconds_count 5"))
    let stopped = server.stop()
    #expect(stopped.status == 0, "\(stopped.stderr)")
    #expect(!stopped.stderr.contains(ServeProcess.master))
    // The counters are in the ledger: a new server still refuses the replay.
    let ledger = try SQLiteLedger(path: ledgerPath, job: LedgerJob(name: "batch"), createIfMissing: false)
    defer { ledger.close() }
    #expect(try ledger.acceptCounter(uid: "04519a227b6180", counter: 13) == .notAbove(last: 13))
  }

  @Test func listenAddresses() {
    defer { try? FileManager.default.removeItem(at: directory) }
    #expect(ListenAddress(argument: "127.0.0.1:8080") == ListenAddress(host: "127.0.0.1", port: 8080))
    #expect(ListenAddress(argument: "[::1]:0") == ListenAddress(host: "::1", port: 0))
    #expect(ListenAddress(host: "::1", port: 9).defaultValueDescription == "[::1]:9")
    for bad in ["8080", ":8080", "host:", "host:-1", "host:65536", "host:80a", "[::1:80", "host:123456"] {
      #expect(ListenAddress(argument: bad) == nil, "\(bad)")
    }
  }

  /// `HEAD /metrics` (a monitor's probe) answers as `GET` without the body; the metrics carry
  /// `# HELP` lines.
  @Test func headMetricsIs200AndTheMetricsHaveHelp() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let server = try ServeProcess(ledger: ledgerPath)
    let head = try runProcess(URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-I", "http://127.0.0.1:\(server.port)/metrics"], timeout: 20)
    #expect(head.stdout.hasPrefix("HTTP/1.1 200"), "\(head.stdout)")
    #expect(head.stdout.lowercased().contains("content-type: text/plain; version=0.0.4"), "\(head.stdout)")
    let metrics = try server.get("/metrics")
    #expect(metrics.body.contains("# HELP nfctag_sun_verifications_total "), "\(metrics.body)")
    #expect(server.stop().status == 0)
  }

  @Test func aPortInUseIsOneLineAnd69() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let first = try ServeProcess(ledger: ledgerPath)
    let r = try runNFCTag(["sdm", "serve", "--listen", "127.0.0.1:\(first.port)", "--master-key-env", "SUN_MASTER",
                           "--ledger", ledgerPath], environment: ["SUN_MASTER": ServeProcess.master], timeout: 20)
    #expect(r.status == 69, "\(r.stderr)")
    #expect(r.stderr == "nfctag: cannot listen on 127.0.0.1:\(first.port): Address already in use\n", "\(r.stderr)")
    #expect(r.stderr.split(separator: "\n").count == 1)
    #expect(first.stop().status == 0)
  }

  @Test func badInputsAreOneLineWithTheirStatus() throws {
    defer { try? FileManager.default.removeItem(at: directory) }
    let keyFile = directory.appendingPathComponent("bad.key").path
    try "not-a-key-but-private-words\n".write(toFile: keyFile, atomically: true, encoding: .utf8)
    let cases: [(arguments: [String], environment: [String: String], status: Int32, line: String)] = [
      (["--ledger", ledgerPath], [:], 64, "give the master key with one of --master-key-file or --master-key-env."),
      (["--ledger", ledgerPath, "--master-key-env", "SUN_UNSET_VARIABLE"], [:], 64,
       "the environment variable SUN_UNSET_VARIABLE (the master key, --master-key-env) is not set"),
      (["--ledger", ledgerPath, "--master-key-file", keyFile], [:], 64,
       "the master key (--master-key-file \(keyFile)) must be 32 hex digits on the first line"),
      (["--ledger", ledgerPath, "--master-key-env", "K", "--listen", "localhost"], ["K": ServeProcess.master], 64,
       "The value 'localhost' is invalid for '--listen <host:port>'"),
      (["--ledger", ledgerPath, "--master-key-env", "K", "--listen", "127.0.0.1:65536"], ["K": ServeProcess.master], 64,
       "The value '127.0.0.1:65536' is invalid"),
      (["--ledger", ledgerPath, "--master-key-env", "K", "--picc-param", "url"], ["K": ServeProcess.master], 64,
       "must differ from each other and from 'url'"),
      (["--ledger", directory.appendingPathComponent("missing.ledger").path, "--master-key-env", "K"],
       ["K": ServeProcess.master], 66, "cannot read the ledger"),
    ]
    for c in cases {
      let r = try runTool(["sdm", "serve"] + c.arguments, environment: c.environment)
      #expect(r.status == c.status, "\(c.arguments): \(r.stderr)")
      #expect(r.stderr.contains(c.line), "\(c.arguments): \(r.stderr)")
      #expect(!r.stderr.contains("private-words") && !r.stderr.contains(ServeProcess.master))
      #expect(r.stdout.isEmpty)
    }
  }
}

/// Two `sdm serve` processes on one PostgreSQL ledger, both asked every URL at the same moment:
/// exactly one says `fresh:true` for each.
@Suite(.serialized, .enabled(if: ProcessInfo.processInfo.environment["NFCTAG_TEST_POSTGRES"]?.isEmpty == false,
                             "needs PostgreSQL: NFCTAG_TEST_POSTGRES is not set (`make test` starts a throw-away server)"))
struct SUNServeTwoServers {
  @Test func twoServersRacingOneURLAcceptItOnce() throws {
    let url = ProcessInfo.processInfo.environment["NFCTAG_TEST_POSTGRES"] ?? ""
    let job = "serve-\(UUID().uuidString.prefix(8).lowercased())"
    try PostgresLedger(url: url, job: LedgerJob(name: job)).close()
    let servers = [try ServeProcess(ledger: url, extra: ["--job", job]), try ServeProcess(ledger: url, extra: ["--job", job])]
    // A UID of this run's own: the counters table is shared by every job of the database.
    let uid: [UInt8] = [0x04] + (0..<6).map { _ in UInt8.random(in: 0...255) }
    var fresh: [Int] = []
    for counter in UInt32(1)...20 {
      let query = try ServeTaps.query(counter: counter, uid: uid)
      let answers = Locked<[String]>([])
      let ports = servers.map(\.port)
      DispatchQueue.concurrentPerform(iterations: 2) { i in
        let body = (try? ServeProcess.get(port: ports[i], "/verify?\(query)").body) ?? "error"
        answers.withLock { $0.append(body) }
      }
      fresh.append(answers.withLock { $0 }.filter { $0.contains(#""fresh":true"#) }.count)
    }
    #expect(fresh == Array(repeating: 1, count: 20))
    for server in servers { #expect(server.stop().status == 0) }
  }
}
