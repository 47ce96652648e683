// SUNServeBench: what `make bench` loads `sdm serve` with. It creates the ledger the service opens
// (a SQLite file, or a job in a PostgreSQL database) and writes COUNT request paths, one a line,
// each a tap of its own tag (a UID of its own, counter 1), so that every request wrk sends is a
// fresh verification: NTAG424's verifier and one counter insert. The master key is the fixed test
// key 00112233…eeff (published here, never a real one).
//
//   SUNServeBench LEDGER PATHS_FILE [COUNT]
import Hex
import NTAG424
import ProvisioningLedger
import ProvisioningLedgerPostgres
import ProvisioningLedgerSQLite
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 2 else {
  print("usage: SUNServeBench LEDGER PATHS_FILE [COUNT]")
  exit(64)
}
let count = arguments.dropFirst(2).first.flatMap(Int.init) ?? 300_000

do {
  let job = LedgerJob(name: "sun-bench")
  let ledger: any Ledger = PostgresSettings.isPostgresURL(arguments[0])
    ? try PostgresLedger(url: arguments[0], job: job) : try SQLiteLedger(path: arguments[0], job: job)
  ledger.close()
  let master = try AESKey(bytes: parseHex("00112233445566778899aabbccddeeff") ?? [])
  let meta = try SDMKeyDiversification.metaReadKey(master: master)
  guard let file = fopen(arguments[1], "w") else {
    print("SUNServeBench: cannot write \(arguments[1])")
    exit(73)
  }
  // UIDs 04 RR RR RR NN NN NN: a random prefix per run (a PostgreSQL ledger keeps the counters
  // of earlier runs), then the request's number.
  let prefix = (0..<3).map { _ in UInt8.random(in: 0...255) }
  for n in 0..<count {
    let uid: [UInt8] = [0x04] + prefix + [UInt8(truncatingIfNeeded: n >> 16), UInt8(truncatingIfNeeded: n >> 8), UInt8(truncatingIfNeeded: n)]
    let fileKey = try SDMKeyDiversification.fileReadKey(master: master, uid: uid)
    let picc = try SDMGeneration.encryptPICCData(uid: uid, readCounter: 1, metaReadKey: meta, padding: [0, 0, 0, 0, 0])
    let mac = try SecureDynamicMessaging.mac(over: [], sessionKeys: SDMSessionKeys(fileReadKey: fileKey, uid: uid, readCounter: 1))
    fputs("/verify?p=\(hexString(picc))&c=\(hexString(mac))\n", file)
  }
  fclose(file)
} catch {
  print("SUNServeBench: \(error)")
  exit(1)
}
