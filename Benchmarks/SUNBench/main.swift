// SUNBench: how many SUN URLs one core verifies per second, as a verification service does per
// tap: parse the URL, decrypt PICCData, derive the SDM session keys, check the SDMMAC (NT4H2421Gx
// datasheet §9.3). Goal: 100,000 a second. Two URLs, each verified COUNT times: an NTAG 424 DNA's
// (NXP AN12196 §3.4's first example, all keys 00…00) and a MIFARE DESFire EV3's (made by the
// virtual EV3 after `nfctag format --key-type aes` and `sdm setup` with the factory keys: the same
// SDM, so the same work per URL; scripts/bench.sh passes one made by the build it measures).
// The rate is over the thread's CPU time (one core, whatever else the machine runs); the wall
// time is printed beside it, as it is the same figure only on an idle core.
//
//   SUNBench [COUNT [EV3-URL]]
import NTAG424
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One URL to verify: its parameters' names and what it must verify to (nil: any counter).
struct BenchURL {
  var name: String
  var url: String
  var piccData: String
  var mac: String
  var counter: UInt32?
  var uid: [UInt8]?
}

let arguments = CommandLine.arguments.dropFirst()
let count = arguments.first.flatMap(Int.init) ?? 200_000
let ntag424 = BenchURL(name: "NTAG 424 DNA", url: "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086",
                       piccData: "e", mac: "c", counter: 61, uid: [0x04, 0xDE, 0x5F, 0x1E, 0xAC, 0xC0, 0x40])
/// Recorded from the virtual EV3 (sim:desfire-ev3-4k, its default UID), counter 1.
let recordedEV3 = "https://example.com/t?p=58492F2522A6E0BBBD271664B809F4EE&c=BB231F7269E2A681"
let ev3 = BenchURL(name: "DESFire EV3", url: arguments.dropFirst().first ?? recordedEV3, piccData: "p", mac: "c",
                   counter: arguments.count > 1 ? nil : 1, uid: arguments.count > 1 ? nil : [0x04, 0x3A, 0x61, 0x2C, 0x5E, 0x73, 0x80])

func seconds(_ clock: clockid_t) -> Double {
  var time = timespec()
  clock_gettime(clock, &time)
  return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func verifyOnce(_ bench: BenchURL) throws -> SUNMessage {
  let sun = try SUNURL(parsing: bench.url, piccDataParameter: bench.piccData, macParameter: bench.mac)
  return try SecureDynamicMessaging.verify(encryptedPICCData: sun.encryptedPICCData, sdmMAC: sun.sdmMAC, macInput: sun.macInput,
                                           metaReadKey: .factory, fileReadKey: .factory)
}

func rounded(_ value: Double) -> Double { (value * 100).rounded() / 100 }

for bench in [ntag424, ev3] {
  do {
    let first = try verifyOnce(bench)
    if let counter = bench.counter, first.readCounter != counter {
      print("SUNBench: the \(bench.name) URL did not verify to counter \(counter)")
      exit(1)
    }
    if let uid = bench.uid, first.uid != uid {
      print("SUNBench: the \(bench.name) URL did not verify to its tag's UID")
      exit(1)
    }
    let wallStart = seconds(CLOCK_MONOTONIC), cpuStart = seconds(CLOCK_THREAD_CPUTIME_ID)
    var verified = 0
    for _ in 0..<count where try verifyOnce(bench).readCounter != nil { verified += 1 }
    let cpu = seconds(CLOCK_THREAD_CPUTIME_ID) - cpuStart, wall = seconds(CLOCK_MONOTONIC) - wallStart
    print("\(bench.name) SUN URLs verified: \(verified) in \(rounded(cpu)) s of CPU (\(rounded(wall)) s wall): "
      + "\(Int(Double(verified) / cpu)) per second on one core (goal: 100000)")
  } catch {
    print("SUNBench: \(bench.name): \(error)")
    exit(1)
  }
}
