import Testing
@testable import NFCSession

/// The one weak reference the sessions (and CoreNFC's forwarders) hold a delegate through: it
/// takes a class-bound protocol's existential, gives the referent back, and keeps it no longer
/// than the program does.
@Suite struct WeakReferenceTests {
  @Test func givesBackAClassBoundExistentialAndDoesNotKeepIt() {
    var delegate: PlainNDEFDelegate? = PlainNDEFDelegate()
    let reference = WeakReference<any NFCNDEFReaderSessionDelegate>(delegate)
    #expect(reference.object === delegate)
    delegate = nil
    #expect(reference.object == nil)
  }

  @Test func sessionsHoldTheirDelegatesWeakly() throws {
    var ndef: PlainNDEFDelegate? = PlainNDEFDelegate()
    var tag: PlainTagDelegate? = PlainTagDelegate()
    let ndefSession = NFCNDEFReaderSession(delegate: try #require(ndef), queue: nil, invalidateAfterFirstRead: true,
                                           poller: ScriptedPoller([]), timeout: 5)
    let tagSession = NFCTagReaderSession(pollingOption: .iso14443, delegate: try #require(tag), poller: ScriptedPoller([]))
    #expect(ndefSession.delegate === ndef && tagSession.delegate === tag)
    ndef = nil
    tag = nil
    #expect(ndefSession.delegate == nil && tagSession.delegate == nil)
  }
}
