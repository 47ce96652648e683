import NFCTagCLI
import Dispatch
import NFCSession

/// What a typed-tag command returned, with the tag it ran on.
struct TypedTagResult<T: Sendable>: Sendable {
  var value: T
  var reader: String
  var uid: [UInt8]
  var kind: String
}

extension TagSession {
  /// Waits for one tag through an ``NFCTagReaderSession`` (every kind), connects, runs `body`
  /// with the typed tag and ends the session. Ctrl-C while waiting is user cancel (130).
  func withTypedTag<T: Sendable>(_ body: @escaping @Sendable (NFCTag) throws -> T) throws(CLIFailure) -> TypedTagResult<T> {
    let poller = try makePoller()
    let prompt = WaitingPrompt(reader: poller.readerName, context: context)
    let delegate = OneTypedTagDelegate(context: context, prompt: prompt, body: body)
    let session = NFCTagReaderSession(pollingOption: [.iso14443, .iso15693, .iso18092, .nfcForumType1], delegate: delegate,
                                      poller: poller, timeout: options.waitSeconds(continuous: false))
    return try run(session, until: delegate.outcome, prompt: prompt)
  }
}

/// The delegate of a typed-tag command (see ``OneTagDelegate``).
final class OneTypedTagDelegate<T: Sendable>: NFCTagReaderSessionDelegate, Sendable {
  let outcome: OneTagOutcome<TypedTagResult<T>>
  private let console: Console
  private let prompt: WaitingPrompt
  private let body: @Sendable (NFCTag) throws -> T

  init(context: CommandContext, prompt: WaitingPrompt = .none, body: @escaping @Sendable (NFCTag) throws -> T) {
    outcome = OneTagOutcome(context: context)
    console = context.console
    self.prompt = prompt
    self.body = body
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didDetect tags: [NFCTag]) {
    prompt.finish()
    guard tags.count == 1, let tag = tags.first else {
      return moreThanOneTag(on: session.queue, console: console) { session.restartPolling() }
    }
    outcome.run {
      try session.connect(to: tag)
      let connection = tag.ndefTag.connection
      if console.isVerbose {
        console.info("reader: \(sanitizeLine(connection.readerName)), \((try? connection.readerPath()) ?? "unknown")")
        console.info("tag: \(tag.kindName) (\(sanitizeLine(connection.cardName))), UID \(hexString(connection.identifier, separator: ":"))")
      }
      return TypedTagResult(value: try body(tag), reader: connection.readerName, uid: connection.identifier, kind: tag.kindName)
    }
    session.invalidate()
  }

  func tagReaderSession(_ session: NFCTagReaderSession, didInvalidateWithError error: NFCReaderError) {
    prompt.finish()
    outcome.ended(error)
  }
}

extension NFCTag {
  /// Core NFC's name of the kind: miFare, iso7816, feliCa, iso15693.
  var kindName: String {
    switch self {
    case .miFare: return "miFare"
    case .iso7816: return "iso7816"
    case .feliCa: return "feliCa"
    case .iso15693: return "iso15693"
    }
  }
}
