// The one file of this suite that knows the reader is a simulator: the flows in the other
// files are Core NFC code (`import CoreNFC` only), and take their reader as a Core NFC program
// does, from the environment: here the NFC_READER of a process of its own, a fresh in-process
// simulator given to the sessions the test makes.
@testable import CoreNFC
import NFCSession

/// Runs `body` with every Core NFC session it makes polling one fresh simulated reader of
/// `spec` (`sim:ntag215`, `sim:type4`), as `NFC_READER=spec` would in a program of its own;
/// the sessions one after the other see the tag as the earlier ones left it.
func onSimulator<T>(_ spec: String, _ body: () async throws -> T) async throws -> T {
  let poller = try SessionReaders.simulator(spec)
  return try await ReaderInjection.$poller.withValue(poller) { try await body() }
}
