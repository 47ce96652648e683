/// A weak reference to a delegate or session, fixed when it is made (`weak let`): the sessions'
/// delegates here and Core NFC's (CoreNFC's forwarders).
///
/// `Object` is a class or a class-bound protocol's existential (`any NFCTagReaderSessionDelegate`,
/// which Swift does not let satisfy `AnyObject`): the referent is held as `AnyObject` and cast back.
///
/// `Sendable` unchecked for one reason only: `Object` need not be `Sendable` (a delegate is the
/// program's, Core NFC's contract). The reference itself is immutable, and the runtime loads and
/// clears a weak reference atomically; the sessions call the referent only on their queue (other
/// threads only test it for nil). A reference set after its holder is made belongs in a `Locked`.
package final class WeakReference<Object>: @unchecked Sendable {
  private weak let referent: AnyObject?
  package init(_ object: Object?) { referent = object.map { $0 as AnyObject } }
  /// The referent, or nil once it is gone.
  package var object: Object? { referent as? Object }
}
