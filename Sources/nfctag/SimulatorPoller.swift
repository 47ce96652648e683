import Logging
import NFCEmulator
import NFCReaders
import NFCTransport
import Synchronization

/// `--reader sim:KIND[@FACE][:IMAGE]`: the emulator's reader face in process. Only the card transport
/// differs from a PC/SC reader; detection, links and platforms are the same code.
final class SimulatorPoller: TagPoller {
  let readerName: String
  /// Used by the session's poll loop and by the tag commands it hands targets to, which the
  /// session serialises (one at a time, never during a wait): no two threads touch it at once.
  nonisolated(unsafe) private let transport: SimulatedAPDUTransport
  private let logger: Logger?
  private let delivered = Mutex(false)

  init(spec: SimulatorSpec, logger: Logger?) throws {
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
    self.logger = logger
  }

  func waitForTargets(timeoutMilliseconds: Int?) throws(PollError) -> [DetectedTarget] {
    if delivered.withLock({ $0 }) || transport.isRemoved {
      // The simulated tag stays in the field: a second arrival never comes.
      if let timeoutMilliseconds { usleep(UInt32(min(timeoutMilliseconds, 2000)) * 1000) }
      throw .timeout
    }
    delivered.withLock { $0 = true }
    return [try detectTarget(on: transport, logger: logger)]
  }

  func waitForRemoval(timeoutMilliseconds: Int?) throws(PollError) {
    if transport.isRemoved { return }
    throw .timeout
  }

  func release() {}
  func cancel() {}
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
