import Foundation
import Testing

/// A multi-read session outlives pcscd: `scan --continuous` carries on when pcscd is restarted.
/// Runs last among the end-to-end suites' work on the shared pcscd, and leaves it running.
@Suite(.serialized, .enabled(if: e2eEnabled, e2eSkipReason), .virtualReaders, .restartsPcscd)
struct ServiceRestartEndToEnd {
  @Test func continuousScanCarriesOnAcrossAPcscdRestart() throws {
    let scanner = try ContinuousScan()
    let first = try Emulator(tag: "ntag213")
    usleep(1_500_000)
    first.stop()

    // Stop pcscd and start it again with the project's own script.
    #expect(try stopPcscd(), "pcscd did not stop")
    // The script gives the daemon none of its descriptors, so its end is seen as soon as it exits;
    // the runner's timeout still bounds the wait.
    let start = try runProgram(packageRoot.appendingPathComponent("scripts/start-pcscd.sh").path, [], timeout: 30)
    #expect(start.status == 0, "\(start.stderr)")
    #expect(readingAvailableNow())

    let second = try Emulator(tag: "ntag215")
    usleep(2_500_000)
    second.stop()
    let (status, lines) = scanner.interrupt()
    #expect(status == 0)
    #expect(lines.count == 2, "\(lines)")
    #expect(lines.first?.contains(#""chip":"NTAG213""#) == true)
    #expect(lines.last?.contains(#""chip":"NTAG215""#) == true)
  }

  /// A live pcscd (a killed one can linger as a zombie until it is reaped).
  /// `nfctag readers` answers again once pcscd is back: Core NFC's `readingAvailable`.
  func readingAvailableNow() -> Bool {
    for _ in 0..<50 {
      if let r = try? runNFCTag(["readers"]), r.status == 0 { return true }
      usleep(100_000)
    }
    return false
  }
}
