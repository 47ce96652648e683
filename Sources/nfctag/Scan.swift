import Locking
import NFCTagCLI
import ArgumentParser
import Dispatch
import NDEF
import NDEFJSON
import NFCSession
import NFCTags

extension NFCTool {
  /// `nfctag scan`: one tag described (a single-read session), or every arrival with
  /// --continuous (a multi-read session).
  struct Scan: ToolCommand {
    static let configuration = CommandConfiguration(
      commandName: "scan",
      abstract: "Wait for a tag and describe it: reader, UID, ATR, chip, NDEF status and records.",
      discussion: """
        With --continuous, report every tag that arrives (a tag left in place is reported once) until \
        Ctrl-C (exit 0) or --timeout seconds without a tag (exit 0 after at least one tag, else 75). \
        A tag whose reads are password-protected, scanned without its password, is described as far \
        as it lets be read (as info does: reader, UID, chip), then scan says why and exits 77.
        """)
    @OptionGroup var readerOptions: ReaderOptions
    @OptionGroup var output: FormatOption
    /// One JSON object (one per line with --continuous).
    var isJSON: Bool { output.isJSON }
    @Flag(help: "Keep scanning: one line per tag arrival, until Ctrl-C (exit 0).") var continuous = false
    @Flag(help: showSecretsHelp) var showSecrets = false

    func run(in context: CommandContext) throws {
      if continuous {
        try scanContinuously(in: context)
      } else {
        readerOptions.holdTraceForSecrets(in: context)
        let report = try TagSession(options: readerOptions, context: context).withTag { tag in try ScanReport(tag) }
        context.trace.learnSecrets(ofMessage: report.ndefBytes ?? [])
        context.trace.release()
        let output = StandardOutput(context.output)
        output.write(isJSON ? report.json(showSecrets: showSecrets) + "\n" : report.text(showSecrets: showSecrets))
        output.flush()
        // The tag was identified and reported; a refused read is 77, its NDEF content bad data (65).
        if let refusal = report.refusal { throw CLIFailure(.tagRefused(refusal)) }
        if let problem = report.messageError { throw CLIFailure(.malformedInput(sanitizeLine(problem))) }
      }
    }

    /// A multi-read session: one line per tag, until Ctrl-C or the idle timeout.
    private func scanContinuously(in context: CommandContext) throws {
      let session = TagSession(options: readerOptions, context: context)
      readerOptions.holdTraceForSecrets(in: context)
      let poller = try session.makePoller()
      let prompt = WaitingPrompt(reader: poller.readerName, context: context)
      let delegate = ContinuousScanDelegate(json: isJSON, showSecrets: showSecrets, context: context, prompt: prompt)
      let reader = NFCNDEFReaderSession(delegate: delegate, queue: nil, invalidateAfterFirstRead: false,
                                        poller: poller, timeout: readerOptions.waitSeconds(continuous: true))
      context.keepAlive(reader)
      let interrupt = context.interrupts.listen { reader.invalidate() }
      defer { interrupt.stop() }
      prompt.start()
      reader.begin()
      let (ending, reported) = delegate.wait()
      prompt.finish()
      context.trace.release()
      switch ending.code {
      case .readerSessionInvalidationErrorUserCanceled: throw ExitCode.success
      case .readerSessionInvalidationErrorSessionTimeout where reported > 0: throw ExitCode.success
      default: throw ending
      }
    }
  }
}

/// Prints one line per tag of a multi-read session; a tag left in place is reported once, more
/// than one tag in the field is reported and polling restarts.
final class ContinuousScanDelegate: NFCNDEFReaderSessionDelegate, Sendable {
  private let json: Bool
  /// Wi-Fi keys in clear (`--show-secrets`).
  private let showSecrets: Bool
  /// Shown on a terminal until the first tag arrives.
  private let prompt: WaitingPrompt
  private let trace: CommandTrace
  private let output: Locked<StandardOutput>
  private let reported = Locked(0)
  private let ended = Locked<NFCReaderError?>(nil)
  private let done = DispatchSemaphore(value: 0)

  init(json: Bool, showSecrets: Bool = false, context: CommandContext, prompt: WaitingPrompt = .none) {
    self.json = json
    self.showSecrets = showSecrets
    self.prompt = prompt
    trace = context.trace
    output = Locked(StandardOutput(context.output))
  }

  func readerSession(_ session: NFCNDEFReaderSession, didDetect tags: [any NFCNDEFTag]) {
    prompt.finish()
    guard tags.count == 1, let tag = tags.first else {
      print(json ? scanErrorJSON(reader: session.readerName, "more than one tag is in the field")
                 : "\(sanitizeLine(session.readerName)): more than one tag is in the field: remove all but one")
      session.queue.asyncAfter(deadline: .now() + .milliseconds(500)) { session.restartPolling() }
      return
    }
    let line: String
    do {
      try session.connect(to: tag)
      let report = try ScanReport(tag)
      trace.learnSecrets(ofMessage: report.ndefBytes ?? [])
      line = json ? report.json(showSecrets: showSecrets) : report.oneLine(showSecrets: showSecrets)
    } catch {
      let failure = cliFailure(for: error)
      let summary = TargetSummary(tag)
      line = json ? scanErrorJSON(reader: summary.readerName, uid: summary.identifier, failure.message)
                  : "\(sanitizeLine(summary.readerName)): \(hexString(summary.identifier, separator: ":")): error: \(failure.message)"
    }
    trace.release(keepHolding: true)
    print(line)
    reported.withLock { $0 += 1 }
    session.restartPollingAfterRemoval()
  }

  func readerSession(_ session: NFCNDEFReaderSession, didFailToReadTag error: NFCReaderError) {
    let failure = cliFailure(for: error)
    print(json ? scanErrorJSON(reader: session.readerName, failure.message)
               : "\(sanitizeLine(session.readerName)): error: \(failure.message)")
  }

  func readerSession(_ session: NFCNDEFReaderSession, didInvalidateWithError error: NFCReaderError) {
    prompt.finish()
    ended.withLock { $0 = error }
    done.signal()
  }

  private func print(_ line: String) {
    output.withLock { out in
      out.write(line + "\n")
      out.flush()
    }
  }

  /// Blocks until the session ended: why, and how many tags were reported.
  func wait() -> (NFCReaderError, Int) {
    done.wait()
    let error = ended.withLock { $0 } ?? NFCReaderError(.readerSessionInvalidationErrorUserCanceled, "ended")
    return (error, reported.withLock { $0 })
  }
}

/// A `scan --format json` line for a failure: the reader, the tag's UID when one was detected, the message.
func scanErrorJSON(reader: String, uid: [UInt8]? = nil, _ message: String) -> String {
  var o = JSONObjectWriter()
  o.string("reader", reader)
  if let uid { o.string("uid", hexString(uid)) }
  o.string("error", message)
  return o.finish()
}

/// What `scan` says about one tag.
struct ScanReport: Sendable {
  var target: TargetSummary
  var info: TagInfo?
  var ndefBytes: [UInt8]?
  var message: NDEFMessage?
  var messageError: String?
  /// Why the tag refused to be read (77: read-protected, no or a wrong password); what it let
  /// be read is in ``info`` (as `info` shows it), the message is not.
  var refusal: String?

  init(_ tag: any NFCNDEFTag) throws {
    target = TargetSummary(tag)
    let identified = Result { () throws(NFCReaderError) in try tag.identification() }
    if case .failure(let error) = identified, exitStatus(for: error.code) == ExitStatus.noPermission {
      // Read-protected: the chip and the pages before the protected ones, as `info` shows them.
      let partial = try? tag.tagInfo()
      info = partial
      refusal = partial?.readProtectedFrom.map(readProtectedReason) ?? cliFailure(for: error).message
      return
    }
    let info = try identified.get()
    self.info = info
    if info.ndef.status != .notSupported {
      let bytes: [UInt8]
      do {
        bytes = try tag.readNDEFBytes()
      } catch {
        // Broken NDEF structures: what was identified is still reported, then the problem.
        guard exitStatus(for: error.code) == ExitStatus.dataError else { throw error }
        messageError = error.message
        return
      }
      ndefBytes = bytes
      if bytes.isEmpty {
        message = NDEFMessage(records: [])
      } else {
        do { message = try NDEFMessage(decoding: bytes) } catch { messageError = "\(error)" }
      }
    }
  }

  /// - Parameter showSecrets: Wi-Fi keys in clear (``showSecretsHelp``).
  func json(showSecrets: Bool) -> String {
    var o = JSONObjectWriter()
    o.string("reader", target.readerName)
    o.string("uid", hexString(target.identifier))
    if isRandomUID(target.identifier) { o.bool("uidRandom", true) }  // never a key: DESFireConfigCommands.swift
    o.string("atr", hexString(target.atr))
    if let info {
      o.string("platform", info.platform.rawValue)
      o.string("chip", info.chip)
      o.ndefMembers(of: info)
    }
    if let message { o.raw("message", messageJSON(message, showSecrets: showSecrets)) }
    if let messageError { o.string("error", messageError) }
    if let refusal { o.string("error", refusal) }
    return o.finish()
  }

  func text(showSecrets: Bool) -> String {
    var lines: [(String, String)] = [
      ("reader", target.readerName), ("uid", hexString(target.identifier, separator: ":") + randomUIDNote),
      ("atr", hexString(target.atr, separator: " ")),
    ]
    if let info {
      lines.append(("chip", "\(info.chip) (\(info.platform.displayName))"))
      lines.append(("ndef", info.readProtectedFrom.map { "read-protected from page \($0)" } ?? ndefStatusText(info.ndef)))
    }
    var out = alignedLines(lines)
    if let message {
      out += messageTextOrEmpty(message, showSecrets: showSecrets)
    }
    if let messageError { out += "ndef problem: \(sanitizeLine(messageError))\n" }
    return out
  }

  /// After a random ID (ISO/IEC 14443-3: 4 bytes from 08h), what it is; empty after another UID.
  var randomUIDNote: String {
    isRandomUID(target.identifier) ? " (random: a new one at each activation, not the card's identity)" : ""
  }

  func oneLine(showSecrets: Bool) -> String {
    var parts = [sanitizeLine(target.readerName), hexString(target.identifier, separator: ":") + (randomUIDNote.isEmpty ? "" : " (random)")]
    if let info { parts.append(sanitizeLine(info.chip)) }
    if let refusal {
      parts.append("error: \(refusal)")
    } else if let message {
      parts.append(message.records.isEmpty ? "empty" : sanitizeLine(messageSummary(message, showSecrets: showSecrets)))
    } else if let messageError {
      parts.append("invalid NDEF: \(sanitizeLine(messageError))")
    } else {
      parts.append("not NDEF formatted")
    }
    return parts.joined(separator: "  ")
  }
}
