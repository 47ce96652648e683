import NFCEmulator
import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// Detects the tag on `face` in a simulated Part 3 reader and builds its platform, as the tool does.
func connectPartThree(_ face: any VirtualCard, removeAfter: Int? = nil) throws -> (SimulatedAPDUTransport, any NDEFTagPlatform) {
  let transport = SimulatedAPDUTransport(readerName: ReaderFaceKind.part3.simulatedReaderName, card: face,
                                         removeAfter: removeAfter)
  let target = try detectTarget(on: transport)
  return (transport, try makePlatform(for: target))
}

/// Writes `new` over `old` with the tag taken away after command k, for every k a whole detection
/// plus write takes, each time on a fresh face holding `old`; afterwards the tag must read as the
/// old message, the new one, or an empty one, and a failed write must be a tag-lost error.
/// - Parameter freshFace: a new face whose tag holds `old`.
/// - Returns: how often each outcome ("old", "new", "empty") was seen.
func tearAtEveryCommand(old: [UInt8], new: [UInt8], freshFace: () throws -> any VirtualCard) throws -> [String: Int] {
  let (transport, platform) = try connectPartThree(try freshFace())
  let before = transport.answered
  try platform.writeNDEF(new, verify: true)
  let total = transport.answered
  #expect(total > before)
  var outcomes: [String: Int] = [:]
  for k in 1 ... total {
    let face = try freshFace()
    do {
      let (_, platform) = try connectPartThree(face, removeAfter: k)
      try platform.writeNDEF(new, verify: true)
    } catch let error as TagError {
      #expect(error.isTagLost, "k = \(k): \(error)")
    } catch {
      // Detection failed: the tag left before the write started.
    }
    let (_, reader) = try connectPartThree(face)
    let read = try reader.readNDEF()
    let which = read == old ? "old" : read == new ? "new" : read.isEmpty ? "empty" : "partial"
    #expect(which != "partial", "k = \(k) left \(read.count) bytes")
    outcomes[which, default: 0] += 1
  }
  return outcomes
}

/// Writing `message` must fail with ``TagError/insufficientCapacity(needed:capacity:)`` (with
/// these numbers, when given) before any command changes the tag.
func expectTooLargeChangesNothing(_ message: [UInt8], platform: any NDEFTagPlatform, tag: any VirtualTag,
                                  needed: Int? = nil, capacity: Int? = nil,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
  let before = tag.memoryImage
  let generation = tag.memoryGeneration
  let error = tagError { () throws(TagError) in try platform.writeNDEF(message, verify: true) }
  guard case .insufficientCapacity(let n, let c)? = error else {
    Issue.record("got \(String(describing: error))", sourceLocation: sourceLocation)
    return
  }
  if let needed { #expect(n == needed, sourceLocation: sourceLocation) }
  if let capacity { #expect(c == capacity, sourceLocation: sourceLocation) }
  #expect(tag.memoryImage == before, sourceLocation: sourceLocation)
  #expect(tag.memoryGeneration == generation, sourceLocation: sourceLocation)
}

/// The faces whose MIFARE Classic key loading is the form the tool sends today (`FF 82 00 <00|01>
/// 06 key`): every face but the SCL3711, whose LOAD KEYS takes the key type (60/61) as its number
/// (SCL3711 Reference Manual §6.2.3; `ReaderProfile.scl3711`).
let classicKeyFaces = ReaderFaceKind.allCases.filter { $0 != .scl3711 }
