import Logging
import NFCReaders
import NFCTransport
import PCSC

/// The machine's PC/SC readers (pcsc-lite), for sessions. Sessions open readers by name through
/// ``SessionReaders``, which adds the simulator and `NFC_READER`.
public enum PCSCReaders {
  /// The readers pcscd knows, in its order.
  /// - Throws: 202 when pcscd does not answer.
  public static func names() throws(NFCReaderError) -> [String] {
    do { return try PCSCContext().listReaders() } catch { throw NFCReaderError(PollError(error)) }
  }

  /// A poller on one reader: `name` is a reader's name, a unique prefix of one or its index in
  /// ``names()``; nil takes the first reader with a tag, else the first reader. `logger` gets
  /// every APDU at trace level. With `exchangeTimeout`, an exchange the reader has not answered
  /// after that many seconds fails as a lost tag (connection lost, 100) instead of waiting for
  /// ever; nil waits as long as the reader driver does (vpcd: for ever).
  /// - Throws: 202 when pcscd does not answer or there is no such reader.
  public static func poller(named name: String?, logger: Logger? = nil,
                            exchangeTimeout: Double? = nil) throws(NFCReaderError) -> any TagPoller {
    do {
      let context = try PCSCContext()
      let reader = try selectReader(name, context: context)
      return PCSCTagPoller(context: context, readerName: reader, logger: logger, exchangeTimeout: exchangeTimeout)
    } catch let failure as PCSCFailure {
      throw NFCReaderError(PollError(failure))
    } catch {
      throw NFCReaderError(error)
    }
  }

  /// Core NFC's `readingAvailable`: pcscd answers and at least one reader is attached.
  public static var readingAvailable: Bool { ((try? names()) ?? []).isEmpty == false }
}

/// A reader that could not be opened: every wait fails with why.
final class UnavailablePoller: TagPoller {
  let readerName: String
  let error: PollError
  init(readerName: String, error: PollError) {
    self.readerName = readerName
    self.error = error
  }
  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] { throw error }
  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) { throw error }
  func release() {}
  func cancel() {}
}
