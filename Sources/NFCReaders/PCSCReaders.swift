import Logging
import NFCTransport
import PCSC

/// The machine's PC/SC readers (pcsc-lite): the one place a PC/SC reader is chosen by name and
/// opened. NFCSession's `SessionReaders` builds on it (it adds `sim:` readers and `NFC_READER`);
/// the tool chooses its readers through `SessionReaders` too.
public enum PCSCReaders {
  /// The readers pcscd knows, in its order.
  /// - Throws: `PollError.serviceUnavailable` when pcscd does not answer.
  public static func names() throws(PollError) -> [String] {
    do { return try PCSCContext().listReaders() } catch { throw PollError(error) }
  }

  /// The reader `spec` names in `context`'s list: a reader's name, a unique prefix of one, or its
  /// index in the list; nil takes the first reader that holds a card, else the first reader.
  /// - Throws: `PollError.noReader` when no reader is attached,
  ///   `PollError.readerUnavailable` when `spec` names none or several (the message lists
  ///   them), `PollError.serviceUnavailable` when pcscd does not answer.
  public static func select(_ spec: String?, context: PCSCContext) throws(PollError) -> String {
    let readers: [String]
    do { readers = try context.listReaders() } catch { throw PollError(error) }
    guard !readers.isEmpty else {
      throw .noReader("no reader found")
    }
    guard let spec else {
      var states = readers.map { ReaderState(reader: $0) }
      try? context.waitForStatusChange(&states, timeoutMilliseconds: 0)
      return states.first(where: { $0.flags.contains(.present) })?.reader ?? readers[0]
    }
    if readers.contains(spec) { return spec }
    if let index = Int(spec), readers.indices.contains(index) { return readers[index] }
    let matches = readers.filter { $0.hasPrefix(spec) }
    if matches.count == 1, let only = matches.first { return only }
    if matches.count > 1 {
      throw .readerUnavailable("'\(spec)' matches several readers: \(matches.joined(separator: ", "))")
    }
    throw .readerUnavailable("no reader named '\(spec)'; readers: \(readers.joined(separator: ", "))")
  }

  /// A poller on the reader `name` names (as in ``select(_:context:)``). `logger` gets every APDU
  /// at trace level. With `exchangeTimeout`, an exchange the reader has not answered after that
  /// many seconds fails as a lost tag instead of waiting for ever (``PCSCCardTransport``); nil
  /// waits as long as the reader driver does (vpcd: for ever).
  /// - Throws: as ``select(_:context:)``.
  public static func poller(named name: String?, logger: Logger? = nil,
                            exchangeTimeout: Double? = nil) throws(PollError) -> PCSCTagPoller {
    let context: PCSCContext
    do { context = try PCSCContext() } catch { throw PollError(error) }
    let reader = try select(name, context: context)
    return PCSCTagPoller(context: context, readerName: reader, logger: logger, exchangeTimeout: exchangeTimeout)
  }
}
