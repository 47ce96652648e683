import Foundation
import PCSC

/// What the end-to-end tests wait for in a vpcd slot, asked of pcscd directly
/// (`SCardGetStatusChange`): the test learns of a card's arrival or departure when pcscd does,
/// without starting a program for each look.
enum CardWatch {
  /// What a wait for a card's state came to.
  enum Outcome: Equatable {
    /// pcscd shows the state asked for.
    case reached
    /// pcscd does not list the reader (it is down, or restarting).
    case notListed
    /// Neither, after the time given (or `stop` said to give up).
    case timedOut
  }

  /// Waits until pcscd shows a card in `reader` (`present`) or none; looks at `stop` every 100 ms
  /// (an emulator that exited: its card will not come).
  static func wait(in reader: String, present: Bool, seconds: Double, stop: () -> Bool = { false }) -> Outcome {
    let deadline = Date().addingTimeInterval(seconds)
    var context: PCSCContext? = nil
    var states = [ReaderState(reader: reader)]
    var listed = true
    while Date() < deadline {
      if stop() { return .timedOut }
      if context == nil {
        context = try? PCSCContext()
        states[0].currentState = 0  // the state at once, then its changes
      }
      guard let watching = context else {
        listed = false
        usleep(100_000)
        continue
      }
      do throws(PCSCFailure) {
        try watching.waitForStatusChange(&states, timeoutMilliseconds: 100)
      } catch {
        if error.error == .timeout { continue }
        // An unknown reader, or a context pcscd no longer knows (a restart): look again shortly.
        listed = error.error != .unknownReader
        context = nil
        usleep(100_000)
        continue
      }
      listed = true
      let flags = states[0].flags
      if present ? flags.contains(.present) : flags.contains(.empty) { return .reached }
      states[0].currentState = states[0].eventState
    }
    return listed ? .timedOut : .notListed
  }
}
