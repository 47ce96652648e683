// SUNBench: how many SUN URLs one core verifies per second, as a verification service does per
// tap: parse the URL, decrypt PICCData, derive the SDM session keys, check the SDMMAC (NXP AN12196
// §3.4's first example, all keys 00…00; NT4H2421Gx datasheet §9.3). Goal: 100,000 a second.
// The rate is over the thread's CPU time (one core, whatever else the machine runs); the wall
// time is printed beside it, as it is the same figure only on an idle core.
//
//   SUNBench [COUNT]
import NTAG424
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

let url = "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
let count = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 200_000

func seconds(_ clock: clockid_t) -> Double {
  var time = timespec()
  clock_gettime(clock, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func verifyOnce() throws -> UInt32? {
  let sun = try SUNURL(parsing: url, piccDataParameter: "e", macParameter: "c")
  return try SecureDynamicMessaging.verify(encryptedPICCData: sun.encryptedPICCData, sdmMAC: sun.sdmMAC, macInput: sun.macInput,
                                           metaReadKey: .factory, fileReadKey: .factory).readCounter
}

do {
  guard try verifyOnce() == 61 else {
    print("SUNBench: the example URL did not verify to counter 61")
    exit(1)
  }
  let wallStart = seconds(CLOCK_MONOTONIC), cpuStart = seconds(CLOCK_THREAD_CPUTIME_ID)
  var verified = 0
  for _ in 0..<count where try verifyOnce() != nil { verified += 1 }
  let cpu = seconds(CLOCK_THREAD_CPUTIME_ID) - cpuStart, wall = seconds(CLOCK_MONOTONIC) - wallStart
  func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }
  print("SUN URLs verified: \(verified) in \(rounded(cpu)) s of CPU (\(rounded(wall)) s wall): "
    + "\(Int(Double(verified) / cpu)) per second on one core (goal: 100000)")
} catch {
  print("SUNBench: \(error)")
  exit(1)
}
