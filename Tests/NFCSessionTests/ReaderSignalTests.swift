import Locking
import NFCTags
import NFCTransport
import NFCEmulator
import NFCReaders
import Testing
@testable import NFCSession

/// `NFCNDEFTag.signalReader` on the reader faces: the ACR1252U signals (its ACR122U-compatible
/// `FF 00 40` through the card, the simulator having no escape path; ACM1252U-Y3 Reference
/// Manual §5.6.1), a reader without LED and buzzer commands answers false without an exchange.
@Suite struct ReaderSignalOnFaces {
  func signalled(on spec: String) throws -> Bool? {
    let result = Locked<Bool?>(nil)
    let delegate = TagModeDelegate { session, tags in
      guard let tag = tags.first else { return }
      do {
        try session.connect(to: tag)
        let signalled = try tag.signalReader(.success)
        result.withLock { $0 = signalled }
        session.invalidate()
      } catch {
        session.invalidate(errorMessage: "\(error)")
      }
    }
    let session = NFCNDEFReaderSession(delegate: delegate, queue: nil, invalidateAfterFirstRead: false,
                                       poller: try simulator(spec), timeout: 2)
    session.begin()
    let end = delegate.end()
    #expect(end?.code == .readerSessionInvalidationErrorUserCanceled, "\(String(describing: end))")
    return result.withLock { $0 }
  }

  @Test func anACR1252USignalsAndAUTrust3700FSaysItCannot() throws {
    #expect(try signalled(on: "sim:ntag215@acr1252u") == true)
    #expect(try signalled(on: "sim:ntag215@utrust3700f") == false)
    #expect(try signalled(on: "sim:ntag215@acr122u") == true)
    // The ACR1552U's LEDs take escapes only (SCardControl), which the in-process simulator lacks.
    #expect(try signalled(on: "sim:icode-slix2@acr1552u") == false)
  }
}

/// A command the reader cannot carry (a FeliCa tag on a reader that refuses direct transmit, a
/// Topaz off the ACR122U: NFCReaders' `FeliCaDirectTransmitLink`, `UnreachableTagLink`) is Core
/// NFC's "unsupported feature" (1, the tool's 65), not a failed exchange to retry (101, 74).
@Suite struct AReaderThatCannotCarryACommand {
  @Test func isAnUnsupportedFeatureNotARetry() {
    let why = "Topaz (Type 1) tags on SCL3711 Reader and NFC Device 00 00: nfctag reads them through the ACS ACR122U only"
    let error = NFCReaderError(TagError.transceive(.unsupported(why), command: "RID", address: nil))
    #expect(error.code == .readerErrorUnsupportedFeature)
    #expect(error.message.contains(why))
    // Every other failed exchange is still a retry.
    #expect(NFCReaderError(TagError.transceive(.status(StatusWord(0x63, 0x00)), command: "READ", address: 4)).code
            == .readerTransceiveErrorRetryExceeded)
  }
}
