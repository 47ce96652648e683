import Locking

/// Builds the virtual tags of the kinds whose models live outside NFCEmulator: the one extension
/// point by which another module adds a ``VirtualTagKind`` without NFCEmulator depending on it.
///
/// Every kind has its name here, in ``VirtualTagKind``, so names parse in every program
/// (`sim:ntag424dna`, `emulate --tag`, feeder kinds, image files); but a model that needs more
/// than NFCEmulator links is built only by a factory its own module registers. The NTAG 424 DNA
/// needs AES and CMAC (NTAG424, over swift-crypto's BoringSSL), which a program that links
/// NFCEmulator, the `nfctag` tool through NFCSession among them, must not have to carry; so its
/// model is in the NTAG424Emulator module, and a program that links that module calls its
/// `register()` once at start:
///
/// ```swift
/// import NTAG424Emulator
///
/// NTAG424Emulator.register()          // idempotent
/// let tag = try VirtualTagKind.ntag424dna.makeTag(uid: nil)
/// ```
///
/// Without a registered factory, making a tag of such a kind throws ``EmulatorError`` with
/// reason ``EmulatorError/Reason/kindNotLinked(_:)``, whose message states which module the model
/// is in. ``VirtualTagKind/externalModel`` says which kinds these are; every other kind is built
/// by NFCEmulator itself and never looked up here.
///
/// Thread safety: registrations and lookups may come from any thread; the
/// table is behind `Locked`. A registration is for the whole process (``shared``); a test that
/// needs a table of its own makes one with ``init()``.
public final class VirtualTagFactories: Sendable {
  /// Makes a tag with factory content; the UID as ``VirtualTagKind/makeTag(uid:)`` takes it.
  public typealias Make = @Sendable (_ uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag
  /// Makes a tag from a memory image, as ``VirtualTagKind/makeTag(image:uid:)`` takes it.
  public typealias LoadImage = @Sendable (_ image: [UInt8], _ uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag

  private struct Factory: Sendable {
    let make: Make
    let loadImage: LoadImage
  }

  /// The process's table, the one ``VirtualTagKind/makeTag(uid:)`` and
  /// ``VirtualTagKind/makeTag(image:uid:)`` use.
  public static let shared = VirtualTagFactories()

  private let factories = Locked<[VirtualTagKind: Factory]>([:])

  /// An empty table (tests; programs use ``shared``).
  public init() {}

  /// Installs the factory of `kind` in ``shared``, replacing any earlier one, as the instance
  /// method of the same name does in its table.
  public static func register(_ kind: VirtualTagKind, make: @escaping Make, loadImage: @escaping LoadImage) {
    shared.register(kind, make: make, loadImage: loadImage)
  }

  /// Installs the factory of `kind`, replacing any earlier one: registering the same factory
  /// again changes nothing.
  ///
  /// - Parameters:
  ///   - kind: a kind whose model is outside NFCEmulator (``VirtualTagKind/externalModel`` is not
  ///     nil). A factory for another kind would never be used: that is a programming error, and
  ///     traps.
  ///   - make: builds a tag with factory content.
  ///   - loadImage: builds a tag from a memory image file's bytes.
  public func register(_ kind: VirtualTagKind, make: @escaping Make, loadImage: @escaping LoadImage) {
    precondition(kind.externalModel != nil, "\(kind.rawValue) is built by NFCEmulator itself; only kinds with an externalModel take a factory")
    factories.withLock { $0[kind] = Factory(make: make, loadImage: loadImage) }
  }

  /// True when `kind` can be built: NFCEmulator builds it, or its factory is registered here.
  public func canMake(_ kind: VirtualTagKind) -> Bool {
    kind.externalModel == nil || factories.withLock { $0[kind] != nil }
  }

  /// A tag of `kind` with factory content, from its registered factory.
  /// - Throws: ``EmulatorError`` with ``EmulatorError/Reason/kindNotLinked(_:)`` when no factory
  ///   is registered; the factory's own errors (a UID of the wrong length).
  public func makeTag(_ kind: VirtualTagKind, uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
    guard let factory = factories.withLock({ $0[kind] }) else { throw .kindNotLinked(kind) }
    return try factory.make(uid)
  }

  /// A tag of `kind` from a memory image, from its registered factory.
  /// - Throws: ``EmulatorError`` with ``EmulatorError/Reason/kindNotLinked(_:)`` when no factory
  ///   is registered; the factory's own errors (an image of the wrong size).
  public func makeTag(_ kind: VirtualTagKind, image: [UInt8], uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
    guard let factory = factories.withLock({ $0[kind] }) else { throw .kindNotLinked(kind) }
    return try factory.loadImage(image, uid)
  }
}

extension VirtualTagKind {
  /// Where a kind's model is when NFCEmulator does not build it itself: the chip's name and the
  /// module whose `register()` installs its factory (``VirtualTagFactories``).
  public struct ExternalModel: Hashable, Sendable {
    /// The chip, as the error message names it ("NTAG 424 DNA").
    public let productName: String
    /// The module that holds the model and registers its factory ("NTAG424Emulator").
    public let module: String
  }

  /// The module a kind's model is in, for the kinds ``VirtualTagFactories`` builds; nil for the
  /// kinds NFCEmulator builds itself.
  public var externalModel: ExternalModel? {
    switch self {
    case .ntag424dna: return ExternalModel(productName: "NTAG 424 DNA", module: "NTAG424Emulator")
    default: return nil
    }
  }
}
