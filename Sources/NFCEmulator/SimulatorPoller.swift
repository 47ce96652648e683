import NFCTransport

/// `--reader sim:KIND[@FACE][:IMAGE]`: the emulator's reader face in process, as a poller. Only the
/// card transport differs from a PC/SC reader: `detect` is the reader driver's identification
/// (NFCReaders' `detectTarget`), so links and platforms are the same code as with hardware.
public final class SimulatorPoller: TagPoller {
  public let readerName: String
  /// Used by the session's poll loop and by the tag commands it hands targets to, which the
  /// session serialises (one at a time, never during a wait): no two threads touch it at once.
  nonisolated(unsafe) private let transport: SimulatedAPDUTransport
  private let detect: @Sendable (any APDUTransport) throws(PollError) -> DetectedTarget
  private let delivered = Locked(false)

  /// Loads (or creates) the tag `spec` names, behind its reader face; `detect` identifies it.
  public init(spec: SimulatorSpec, detect: @escaping @Sendable (any APDUTransport) throws(PollError) -> DetectedTarget) throws {
    let tag: any VirtualTag
    var image: ImageFile? = nil
    if let path = spec.imagePath {
      let (file, loaded) = try ImageFile.open(path: path, kind: spec.kind, uid: nil)
      image = file
      tag = loaded
    } else {
      tag = try spec.kind.makeTag(uid: nil)
    }
    let face = try spec.face.makeFace(tag: tag)
    readerName = "\(spec.face.simulatedReaderName) (simulated \(spec.kind.rawValue)) 00 00"
    transport = SimulatedAPDUTransport(readerName: readerName, card: face, afterCommand: {
      try? image?.saveIfChanged(tag)
    })
    self.detect = detect
  }

  public func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    if delivered.withLock({ $0 }) || transport.isRemoved {
      // The simulated tag stays in the field: a second arrival never comes.
      if let timeoutMilliseconds { usleep(UInt32(min(timeoutMilliseconds, 2000)) * 1000) }
      throw .timeout
    }
    delivered.withLock { $0 = true }
    return [try detect(transport)]
  }

  public func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    if transport.isRemoved { return }
    throw .timeout
  }

  public func release() {}
  public func releaseResetting() { transport.card.reset() }
  public func cancel() {}
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
