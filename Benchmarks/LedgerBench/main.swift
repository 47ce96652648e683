// The SQLite ledger's throughput: claims and finishes per second on one file, one station (the
// provisioning engine's two commits per tag). Run through `make bench` (release build); the file
// goes in the directory given (by default the current one: it should be on the disk a station
// would use, since every commit waits for fsync).
import ProvisioningLedger
import ProvisioningLedgerSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func now() -> Double {
  var t = timespec()
  clock_gettime(CLOCK_MONOTONIC, &t)
  return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
}

func hash(_ n: Int) -> String {
  let hex = String(n, radix: 16)
  return String(repeating: "0", count: 64 - hex.count) + hex
}

let arguments = CommandLine.arguments.dropFirst()
let directory = arguments.first ?? "."
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 1000
let path = "\(directory)/ledger-bench-\(getpid()).sqlite"
defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }

do {
  let ledger = try SQLiteLedger(path: path, job: LedgerJob(name: "bench"))
  var start = now()
  _ = try ledger.importRows((1...count).map { LedgerRowInput(id: String($0), sequence: $0, contentHash: hash($0)) })
  let importSeconds = now() - start
  start = now()
  var n = 0
  while true {
    let place = LedgerPlace(station: "bench", reader: "ACS ACR122U PICC Interface 00 00", time: "2026-11-24T10:15:02.123Z")
    let uid = "04" + String(n, radix: 16)
    guard case .claimed(let row) = try ledger.claim(uid: uid, at: place) else { break }
    try ledger.finish(LedgerDone(rowID: row.id, uid: uid, messageHex: "d1010f5402656e68656c6c6f20776f726c6421",
                                 messageSHA256: hash(n), place: place))
    n += 1
  }
  let seconds = now() - start
  let counts = try ledger.counts()
  start = now()
  let records = try ledger.records(), failures = try ledger.tagFailures()
  let readSeconds = now() - start
  start = now()
  let csv = try LedgerReport.csv(records: records, tagFailures: failures)
  let csvSeconds = now() - start
  start = now()
  let jsonl = LedgerReport.jsonLines(records: records, tagFailures: failures)
  let jsonSeconds = now() - start
  ledger.close()
  guard counts.done == count, csv.utf8.count > jsonl.utf8.count / 4 else {
    fatalError("ledger bench: \(counts.done) of \(count) rows done")
  }
  print("sqlite ledger: \(Int(Double(n) / seconds)) tags/s (claim + finish, \(Int(Double(2 * n) / seconds)) commits/s; "
        + "\(n) rows, one station, WAL, synchronous=FULL); import: \(Int(Double(count) / importSeconds)) rows/s")
  print("sqlite ledger: records() \(Int(Double(count) / readSeconds)) rows/s; report: CSV \(Int(Double(count) / csvSeconds)) "
        + "rows/s, JSON lines \(Int(Double(count) / jsonSeconds)) rows/s")
} catch {
  print("ledger bench: \(error)")
  exit(1)
}
