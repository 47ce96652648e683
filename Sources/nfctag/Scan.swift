import ArgumentParser
import Dispatch
import NDEF
import NDEFJSON
import NFCTags
import NFCTransport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

extension NFCTool {
  /// `nfctag scan`: one tag described, or every arrival with --continuous.
  struct Scan: ParsableCommand {
    static let configuration = CommandConfiguration(
      abstract: "Wait for a tag and describe it: reader, UID, ATR, chip, NDEF status and records.",
      discussion: "With --continuous, report every tag that arrives (a tag left in place is reported once) until Ctrl-C.")
    @OptionGroup var readerOptions: ReaderOptions
    @Flag(help: "Print one JSON object (one per line with --continuous).") var json = false
    @Flag(help: "Keep scanning: one line per tag arrival, until Ctrl-C (exit 0).") var continuous = false
    @Flag(help: "Show Wi-Fi keys and other secrets in text output.") var showSecrets = false

    func run() throws {
      do {
        if continuous {
          try scanContinuously()
        } else {
          let report = try TagAccess(options: readerOptions).withTag { tag in try ScanReport(tag) }
          let output = StandardOutput()
          output.write(json ? report.json() + "\n" : report.text(showSecrets: showSecrets))
          output.flush()
        }
      } catch let exit as ExitCode {
        throw exit
      } catch {
        throw fail(cliFailure(for: error))
      }
    }

    /// A multi-read loop: wait for arrival, report, wait for removal; Ctrl-C cancels the wait.
    private func scanContinuously() throws {
      let poller = try TagAccess(options: readerOptions).makePoller()
      let box = UncheckedBox(poller)
      let stop = InterruptFlag.install { box.value.cancel() }
      let output = StandardOutput()
      while !stop.isSet {
        let targets: [DetectedTarget]
        do {
          targets = try poller.waitForTargets(timeoutMilliseconds: nil)
        } catch PollError.cancelled {
          break
        } catch PollError.timeout {
          continue
        }
        for target in targets {
          let line: String
          do {
            let platform = try makePlatform(for: target)
            let report = try ScanReport(TagAccess.Connected(target: target, platform: platform))
            line = json ? report.json() : report.oneLine()
          } catch {
            let failure = cliFailure(for: error)
            line = json ? "{\"reader\":\(jsonQuoted(target.readerName)),\"uid\":\"\(hexString(target.identifier))\",\"error\":\(jsonQuoted(failure.message))}"
                        : "\(target.readerName): \(hexString(target.identifier, separator: ":")): error: \(failure.message)"
          }
          output.write(line + "\n")
          output.flush()
        }
        do {
          try poller.waitForRemoval(timeoutMilliseconds: nil)
        } catch PollError.cancelled {
          break
        } catch {
          // The reader went away: release and wait for it (or another tag) again.
        }
        poller.release()
      }
      poller.release()
      throw ExitCode.success
    }
  }
}

/// What `scan` says about one tag.
struct ScanReport {
  var target: DetectedTarget
  var info: TagInfo?
  var ndefBytes: [UInt8]?
  var message: NDEFMessage?
  var messageError: String?

  init(_ tag: TagAccess.Connected) throws {
    target = tag.target
    let info = try tag.platform.info()
    self.info = info
    if info.ndef.status != .notSupported {
      let bytes = try tag.platform.readNDEF()
      ndefBytes = bytes
      if bytes.isEmpty {
        message = NDEFMessage(records: [])
      } else {
        do { message = try NDEFMessage(decoding: bytes) } catch { messageError = "\(error)" }
      }
    }
  }

  func json() -> String {
    var o = JSONObjectWriter()
    o.string("reader", target.readerName)
    o.string("uid", hexString(target.identifier))
    o.string("atr", hexString(target.atr))
    if let info {
      o.string("platform", info.platform.rawValue)
      o.string("chip", info.chip)
      o.raw("ndef", ndefStatusJSON(info.ndef))
    }
    if let message { o.raw("message", messageJSON(message)) }
    if let messageError { o.string("error", messageError) }
    return o.finish()
  }

  func text(showSecrets: Bool) -> String {
    var lines: [(String, String)] = [
      ("reader", target.readerName), ("uid", hexString(target.identifier, separator: ":")),
      ("atr", hexString(target.atr, separator: " ")),
    ]
    if let info {
      lines.append(("chip", "\(info.chip) (\(info.platform.displayName))"))
      lines.append(("ndef", ndefStatusText(info.ndef)))
    }
    var out = alignedLines(lines)
    if let message {
      out += message.records.isEmpty ? "(empty NDEF message)\n" : messageText(message, showSecrets: showSecrets)
    }
    if let messageError { out += "invalid NDEF message: \(sanitizeLine(messageError))\n" }
    return out
  }

  func oneLine() -> String {
    var parts = [sanitizeLine(target.readerName), hexString(target.identifier, separator: ":")]
    if let info { parts.append(sanitizeLine(info.chip)) }
    if let message {
      parts.append(message.records.isEmpty ? "empty" : sanitizeLine(messageSummary(message)))
    } else if let messageError {
      parts.append("invalid NDEF: \(sanitizeLine(messageError))")
    } else {
      parts.append("not NDEF formatted")
    }
    return parts.joined(separator: "  ")
  }
}

/// Set once SIGINT or SIGTERM arrived; the handler also runs a cancel action off the signal context.
final class InterruptFlag: @unchecked Sendable {
  private let lock = Mutex(())
  private var set = false
  private var sources: [DispatchSourceSignal] = []

  var isSet: Bool { lock.withLock { _ in set } }

  static func install(onInterrupt: @escaping @Sendable () -> Void) -> InterruptFlag {
    let flag = InterruptFlag()
    for sig in [SIGINT, SIGTERM] {
      signal(sig, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
      source.setEventHandler {
        flag.lock.withLock { _ in flag.set = true }
        onInterrupt()
      }
      source.resume()
      flag.sources.append(source)
    }
    return flag
  }
}

/// Hands a non-Sendable object to a signal handler that only calls its thread-safe `cancel()`.
struct UncheckedBox<T>: @unchecked Sendable {
  let value: T
  init(_ value: T) { self.value = value }
}
