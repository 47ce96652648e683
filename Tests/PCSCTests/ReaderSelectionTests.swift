import CPCSC
import Testing
@testable import PCSC
import NFCReaders
import NFCTransport

/// How a reader name is matched (NFCReaders' `PCSCReaders.select`, the one place PC/SC readers
/// are chosen): the whole name, then an index, then a unique prefix; nil takes the first reader
/// with a card, else the first reader.
@Suite struct ReaderSelection {
  func context(cardIn present: Int? = nil) throws -> PCSCContext {
    let calls = ScriptedCalls()
    calls.readers = .success(Array("ACS ACR122U PICC Interface 00 00\0Virtual PCD 00 00\0Virtual PCD 00 01\0\0".utf8))
    calls.eventStates = (0..<3).map { $0 == present ? UInt32(SCARD_STATE_PRESENT) : UInt32(SCARD_STATE_EMPTY) }
    return try PCSCContext(calls: calls)
  }

  @Test func aNameAnIndexOrAUniquePrefixNamesOneReader() throws {
    #expect(try PCSCReaders.select("Virtual PCD 00 01", context: context()) == "Virtual PCD 00 01")
    #expect(try PCSCReaders.select("1", context: context()) == "Virtual PCD 00 00")
    #expect(try PCSCReaders.select("ACS", context: context()) == "ACS ACR122U PICC Interface 00 00")
  }

  @Test func noNameTakesTheFirstReaderWithACardElseTheFirst() throws {
    #expect(try PCSCReaders.select(nil, context: context(cardIn: 2)) == "Virtual PCD 00 01")
    #expect(try PCSCReaders.select(nil, context: context()) == "ACS ACR122U PICC Interface 00 00")
  }

  @Test func aPrefixOfSeveralOrOfNoneIsRefusedSayingWhich() throws {
    #expect(throws: PollError.readerUnavailable("'Virtual' matches several readers: Virtual PCD 00 00, Virtual PCD 00 01")) {
      try PCSCReaders.select("Virtual", context: context())
    }
    #expect {
      try PCSCReaders.select("9", context: context())
    } throws: { error in
      guard case .readerUnavailable(let why)? = error as? PollError else { return false }
      return why.hasPrefix("no reader named '9'; readers: ACS ACR122U")
    }
  }
}
