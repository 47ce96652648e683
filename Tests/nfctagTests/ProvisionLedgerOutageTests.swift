import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A TCP relay in front of the test PostgreSQL server that can be cut: every connection through
/// it is closed and no new one is taken, as when the server goes away mid-run.
final class CuttableRelay: @unchecked Sendable {
  let port: UInt16
  private let listener: Int32
  private let target: (host: String, port: UInt16)
  private let lock = NSLock()
  private var sockets: [Int32] = []
  private var cut = false

  init(to host: String, port targetPort: UInt16) throws {
    target = (host, targetPort)
    let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    self.listener = listener
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
    }
    guard listener >= 0, bound == 0, listen(listener, 16) == 0 else { throw POSIXError(.EADDRNOTAVAIL) }
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
    }
    port = UInt16(bigEndian: address.sin_port)
    Thread.detachNewThread { [self] in acceptLoop() }
  }

  private func acceptLoop() {
    while true {
      let client = accept(listener, nil, nil)
      guard client >= 0 else { return }
      let upstream = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
      var address = sockaddr_in()
      address.sin_family = sa_family_t(AF_INET)
      address.sin_addr.s_addr = inet_addr(target.host)
      address.sin_port = target.port.bigEndian
      let connected = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(upstream, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
      }
      let keep = lock.withLock { () -> Bool in
        guard !cut, connected == 0 else { return false }
        sockets += [client, upstream]
        return true
      }
      guard keep else { close(client); close(upstream); continue }
      Thread.detachNewThread { Self.pump(from: client, to: upstream) }
      Thread.detachNewThread { Self.pump(from: upstream, to: client) }
    }
  }

  private static func pump(from source: Int32, to sink: Int32) {
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
      let n = buffer.withUnsafeMutableBytes { read(source, $0.baseAddress, $0.count) }
      if n <= 0 { break }
      var offset = 0
      while offset < n {
        // MSG_NOSIGNAL: a peer gone is an error here, not a SIGPIPE for the test process.
        let written = buffer.withUnsafeBytes { send(sink, $0.baseAddress! + offset, n - offset, Int32(MSG_NOSIGNAL)) }
        if written <= 0 { return }
        offset += written
      }
    }
    shutdown(sink, Int32(SHUT_WR))
  }

  /// Closes every connection and the listener: the server is gone. Once: a second close of the
  /// listener's number would close whatever another test opened under it since.
  func cutOff() {
    let (first, open) = lock.withLock { () -> (Bool, [Int32]) in
      defer { cut = true; sockets = [] }
      return (!cut, sockets)
    }
    guard first else { return }
    shutdown(listener, Int32(SHUT_RDWR))
    close(listener)
    for fd in open { shutdown(fd, Int32(SHUT_RDWR)) }
  }
}

/// A run whose PostgreSQL ledger goes away mid-run: the tags it could not record fail with the
/// ledger's own status (69), not --timeout's (75). In-process feeder, no pcscd needed.
@Suite(.enabled(if: postgresURL != nil, "\(postgresSkipReason)"))
struct ProvisionLedgerOutage {
  @Test func aLedgerLostMidRunIs69() throws {
    let url = try #require(URLComponents(string: postgresURL ?? ""))
    let relay = try CuttableRelay(to: url.host ?? "127.0.0.1", port: UInt16(url.port ?? 5432))
    defer { relay.cutOff() }
    var viaRelay = url
    viaRelay.port = Int(relay.port)
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("nfctag-outage-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    // The password file names the server's port: the same lines for the relay's.
    var environment = ProcessInfo.processInfo.environment
    if let passFile = environment["PGPASSFILE"], let lines = try? String(contentsOfFile: passFile, encoding: .utf8) {
      let relayed = lines.split(separator: "\n").map { line -> String in
        var fields = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        if fields.count == 5 { fields[1] = String(relay.port) }
        return fields.joined(separator: ":")
      }.joined(separator: "\n") + "\n"
      let copy = dir.appendingPathComponent("pgpass").path
      _ = FileManager.default.createFile(atPath: copy, contents: Data(relayed.utf8), attributes: [.posixPermissions: 0o600])
      environment["PGPASSFILE"] = copy
    }
    environment["PGPORT"] = String(relay.port)
    let process = Process()
    process.environment = environment
    process.executableURL = nfctagBinary()
    process.arguments = ["provision", "--count", "2", "--url", "https://e.com/{n}", "--json", "--timeout", "2",
                         "--job", "outage-\(UUID().uuidString)", "--ledger", viaRelay.string ?? "",
                         "--reader", "sim:ntag213+feed=2,seed=9,latency=acr122u,images=\(dir.path)"]
    let out = Pipe()
    process.standardOutput = out
    let err = Pipe()
    process.standardError = err
    try process.run()
    // The first tag done, the server goes away.
    var seen = Data()
    while !String(decoding: seen, as: UTF8.self).contains(#""status":"done""#) {
      let chunk = out.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      seen += chunk
    }
    relay.cutOff()
    seen += out.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let events = String(decoding: seen, as: UTF8.self)
    let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    #expect(process.terminationStatus == 69, "\(events)\n\(stderr)")
    #expect(events.contains(#""status":"failed""#) && events.contains(#""exit":69"#), "\(events)")
    #expect(!events.contains(#""exit":75"#), "\(events)")
  }
}
