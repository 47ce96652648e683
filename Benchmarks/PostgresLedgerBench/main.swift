// The shared ledger under load: STATIONS stations (each its own connection and thread, as separate
// machines would be) claim and finish ROWS rows of one fresh job in a PostgreSQL database, as fast
// as they can. Prints claims+finishes per second and the latency of one claim+finish.
// Run through `make bench` (scripts/with-postgres.sh gives it a throw-away server):
//   PostgresLedgerBench [ROWS [STATIONS]]   (the ledger URL: NFCTAG_TEST_POSTGRES or the PG* variables)
import Foundation
import Locking
import ProvisioningLedger
import ProvisioningLedgerPostgres

let arguments = CommandLine.arguments.dropFirst().compactMap { Int($0) }
let rowCount = arguments.first ?? 5000
let stationCount = arguments.dropFirst().first ?? 8
let url = ProcessInfo.processInfo.environment["NFCTAG_TEST_POSTGRES"]

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("PostgresLedgerBench: \(message)\n".utf8))
  exit(1)
}

let settings: PostgresSettings
do { settings = try PostgresSettings(url: url) } catch { fail("\(error)") }
let job = LedgerJob(name: "bench-\(UUID().uuidString.prefix(8).lowercased())")
let hash = String(repeating: "ab", count: 32)
let rows = (1...rowCount).map { LedgerRowInput(id: "row\($0)", sequence: $0, contentHash: hash) }

let setup: PostgresLedger
do {
  setup = try PostgresLedger(settings: settings, job: job)
  let started = Date()
  _ = try setup.importRows(rows)
  print(String(format: "import: %d rows in %.3f s", rowCount, Date().timeIntervalSince(started)))
} catch { fail("\(error)") }

// Each station records its latencies; the lock is only taken at the end.
let results = Locked((latencies: [Double](), errors: [String]()))
let group = DispatchGroup()
let ready = DispatchSemaphore(value: 0)
let go = DispatchSemaphore(value: 0)
for station in 0..<stationCount {
  group.enter()
  let thread = Thread {
    defer { group.leave() }
    var mine: [Double] = []
    do {
      let ledger = try PostgresLedger(settings: settings, job: job)
      defer { ledger.close() }
      ready.signal()
      go.wait()
      var tag = 0
      while true {
        tag += 1
        let uid = String(format: "04%02x%08x", station, tag)
        let place = LedgerPlace(station: "station-\(station)", reader: "reader 0", time: "2026-11-24T10:15:02.123Z")
        let started = Date()
        guard case .claimed(let row) = try ledger.claim(uid: uid, at: place) else { break }
        try ledger.finish(LedgerDone(rowID: row.id, uid: uid, messageHex: "d101", messageSHA256: hash, place: place))
        mine.append(Date().timeIntervalSince(started))
      }
    } catch {
      ready.signal()
      results.withLock { $0.errors.append("station \(station): \(error)") }
    }
    results.withLock { $0.latencies.append(contentsOf: mine) }
  }
  thread.start()
}
for _ in 0..<stationCount { ready.wait() }
let started = Date()
for _ in 0..<stationCount { go.signal() }
group.wait()
let elapsed = Date().timeIntervalSince(started)
let (latencies, errors) = results.withLock { $0 }
if !errors.isEmpty { fail(errors.joined(separator: "\n")) }

do {
  let counts = try setup.counts()
  let uids = Set(try setup.records().compactMap(\.uid))
  guard counts.done == rowCount, uids.count == rowCount else {
    fail("\(counts.done) rows done and \(uids.count) distinct UIDs for \(rowCount) rows")
  }
  setup.close()
} catch { fail("\(error)") }

let sorted = latencies.sorted()
func percentile(_ p: Double) -> Double { sorted.isEmpty ? 0 : sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
print(String(format: "%d stations, %d rows: %.2f s, %.0f claims+finishes per second (goal: >= 200)",
             stationCount, rowCount, elapsed, Double(rowCount) / elapsed))
print(String(format: "one claim+finish: median %.2f ms, p90 %.2f ms, p99 %.2f ms, max %.2f ms",
             percentile(0.5) * 1000, percentile(0.9) * 1000, percentile(0.99) * 1000, (sorted.last ?? 0) * 1000))
print("every row done once, \(rowCount) distinct UIDs")
