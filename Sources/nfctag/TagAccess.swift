import NDEF
import NFCTags
import NFCTransport
import NFCReaders
import NFCEmulator
import PCSC
import Logging

/// Opens the reader the options name (PC/SC or the in-process simulator), waits for one tag and
/// hands it to the command, mapping every failure to one line and a documented exit code.
struct TagAccess {
  let options: ReaderOptions

  /// A connected tag: what the reader saw and the NFC Forum platform to talk to it.
  struct Connected {
    var target: DetectedTarget
    var platform: any NDEFTagPlatform
  }

  /// Builds the poller for `--reader`.
  func makePoller() throws(CLIFailure) -> any TagPoller {
    let logger = options.makeLogger()
    if let spec = options.reader, spec.hasPrefix("sim:") {
      do {
        let simulator = try SimulatorSpec(parsing: spec)
        return try SimulatorPoller(spec: simulator, logger: logger)
      } catch let failure as CLIFailure {
        throw failure
      } catch {
        throw CLIFailure(ExitStatus.usage, "bad simulator reader '\(spec)': \(error)")
      }
    }
    do {
      let context = try PCSCContext()
      let name = try selectReader(options.reader, context: context)
      return PCSCTagPoller(context: context, readerName: name, logger: logger)
    } catch {
      throw cliFailure(for: error)
    }
  }

  /// Waits for one tag and runs `body` with it.
  func withTag<T>(_ body: (Connected) throws -> T) throws(CLIFailure) -> T {
    let password = try options.tagPassword()
    let poller = try makePoller()
    defer { poller.release() }
    let targets: [DetectedTarget]
    do {
      targets = try poller.waitForTargets(timeoutMilliseconds: options.timeoutMilliseconds)
    } catch {
      throw cliFailure(for: error)
    }
    guard let target = targets.first else {
      throw CLIFailure(ExitStatus.tempFail, "no tag was presented within \(formatSeconds(options.timeout)) s")
    }
    guard targets.count == 1 else {
      throw CLIFailure(ExitStatus.ioError, "more than one tag is in the field: remove all but one and try again")
    }
    do {
      let platform = try makePlatform(for: target)
      let connected = Connected(target: target, platform: platform)
      if let password { _ = try type2(connected).authenticate(password: password) }
      return try body(connected)
    } catch {
      throw cliFailure(for: error)
    }
  }
}

/// Maps any error from the layers below to one line and an exit code (docs/exit-codes.md).
func cliFailure(for error: any Error) -> CLIFailure {
  switch error {
  case let failure as CLIFailure:
    return failure
  case let poll as PollError:
    switch poll {
    case .timeout: return CLIFailure(ExitStatus.tempFail, "no tag was presented before the timeout")
    case .cancelled: return CLIFailure(ExitStatus.tempFail, "cancelled")
    case .busy(let m): return CLIFailure(ExitStatus.unavailable, m)
    case .serviceUnavailable(let m), .readerUnavailable(let m): return CLIFailure(ExitStatus.unavailable, m)
    case .failed(let m): return CLIFailure(ExitStatus.ioError, m)
    }
  case let tag as TagError:
    switch tag {
    case .readOnly: return CLIFailure(ExitStatus.noPermission, "the tag is read-only; nothing was written")
    case .insufficientCapacity(let needed, let capacity):
      return CLIFailure(ExitStatus.cantCreate,
                        "the message needs \(needed) bytes but the tag holds at most \(capacity); nothing was written")
    case .notFormatted, .malformed, .unsupported:
      return CLIFailure(ExitStatus.dataError, sanitizeLine(tag.description))
    case .authenticationFailed:
      return CLIFailure(ExitStatus.noPermission, sanitizeLine(tag.description))
    case .verifyFailed:
      return CLIFailure(ExitStatus.ioError, "\(tag.description): tap the tag again and retry")
    case .transceive(.nak, let command, _) where command.hasPrefix("WRITE"):
      return CLIFailure(ExitStatus.noPermission, "\(sanitizeLine(tag.description)): the page is locked or password-protected "
                        + "(give the password with --tag-password-file or --tag-password-env)")
    case .transceive:
      return CLIFailure(ExitStatus.ioError, "\(sanitizeLine(tag.description)): keep the tag on the reader and try again (tap again)")
    }
  case let ndef as NDEFError:
    return CLIFailure(ExitStatus.dataError, "invalid NDEF data: \(ndef)")
  case let transceive as TransceiveError:
    return CLIFailure(ExitStatus.ioError, "\(transceive): keep the tag on the reader and try again (tap again)")
  default:
    return CLIFailure(ExitStatus.unavailable, sanitizeLine(String(describing: error)))
  }
}

/// Strips control characters (C0, DEL, C1) from a line that may carry tag data.
func sanitizeLine(_ text: String) -> String {
  String(String.UnicodeScalarView(text.unicodeScalars.filter { s in
    !(s.value < 0x20 || (0x7F...0x9F).contains(s.value))
  }))
}

func formatSeconds(_ value: Double) -> String {
  value == value.rounded() ? String(Int(value)) : String(value)
}
