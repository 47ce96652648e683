import NFCEmulator
import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// Detects `tag` behind its kind's default reader face, in process, and builds its platform.
private func connect(_ tag: any VirtualTag, _ kind: VirtualTagKind, removeAfter: Int? = nil) throws
  -> (SimulatedAPDUTransport, any NDEFTagPlatform) {
  let transport = SimulatedAPDUTransport(readerName: kind.defaultFace.simulatedReaderName,
                                         card: try kind.defaultFace.makeFace(tag: tag), removeAfter: removeAfter)
  return (transport, try makePlatform(for: try detectTarget(on: transport)))
}

private func restoring(_ platform: any NDEFTagPlatform) throws -> any MemoryRestoring {
  try #require(platform as? any MemoryRestoring)
}

/// A message-like byte string of `count` bytes.
private func message(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
  (0 ..< count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ Int(seed)) }
}

/// The user area of each kind's dump, as docs/tag-types.md describes it.
private func userArea(_ kind: VirtualTagKind) -> [Range<Int>] {
  switch kind {
  case .topaz96: return [8 ..< 104]
  case .topaz512: return [8 ..< 104, 128 ..< 512]
  case .ntag213, .ntag213Locked: return [16 ..< 160]
  case .ntag210: return [16 ..< 64]
  case .ntag215: return [16 ..< 520]
  case .ntag216: return [16 ..< 904]
  case .ultralight, .ultralightEV1: return [16 ..< 64]
  case .felicaLiteS: return [0 ..< 224]
  case .icodeSLIX2: return [0 ..< 316]
  case .type4, .ntag424dna, .mifareClassic1K, .mifareClassic4K, .mifareClassicMini,
       .mifareClassic1KNDEF, .mifareClassic4KNDEF, .mifareClassicMiniNDEF,
       .desfireEV1With2K, .desfireEV1With4K, .desfireEV1With8K, .desfireEV2With2K, .desfireEV2With4K, .desfireEV2With8K,
       .desfireEV3With2K, .desfireEV3With4K, .desfireEV3With8K, .desfireLight: return []
  }
}

@Suite struct MemoryRestore {
  static let kinds: [VirtualTagKind] = [.topaz96, .topaz512, .ntag213, .ntag216, .ultralight, .felicaLiteS, .icodeSLIX2]

  /// Dump a tag with a message, write the image onto a fresh tag of the same chip holding another
  /// message: the user area is equal afterwards, the message reads back, and a second plan has
  /// nothing left to write.
  @Test(arguments: kinds)
  func imageRoundTrips(kind: VirtualTagKind) throws {
    let (_, source) = try connect(try kind.makeTag(uid: nil), kind)
    let capacity = try source.queryNDEFStatus().capacity
    let written = message(capacity * 2 / 3)
    try source.writeNDEF(written, verify: true)
    let image = try source.readMemory()

    let target = try kind.makeTag(uid: nil)
    let (_, platform) = try connect(target, kind)
    try platform.writeNDEF(message(5, seed: 9), verify: true)
    let restore = try restoring(platform)
    let plan = try restore.planRestore(image: image, includingSystemAreas: false)
    #expect(!plan.writes.isEmpty)
    #expect(plan.writes.allSatisfy { $0.region == .user && !$0.permanent })
    try restore.restore(plan, verify: true)

    let after = try platform.readMemory()
    for range in userArea(kind) { #expect(after[range] == image[range], "\(kind) \(range)") }
    #expect(try platform.readNDEF() == written)
    #expect(try restore.planRestore(image: image, includingSystemAreas: false).writes.isEmpty)
  }

  @Test func theUIDAndTheFooterPagesStayAsTheyWere() throws {
    let (_, source) = try connect(try VirtualTagKind.ntag215.makeTag(uid: nil), .ntag215)
    try source.writeNDEF(message(300), verify: true)
    var image = try source.readMemory()
    image[0x83 * 4 + 3] = 0x10  // AUTH0 in the image: written only with the system areas
    let target = try VirtualTagKind.ntag215.makeTag(uid: [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66])
    let before = target.memoryImage
    let (_, platform) = try connect(target, .ntag215)
    let plan = try restoring(platform).planRestore(image: image, includingSystemAreas: false)
    #expect(plan.writes.allSatisfy { (4 ... 0x81).contains($0.unit) })
    #expect(plan.notes.contains { $0.contains("configuration") })
    try restoring(platform).restore(plan, verify: true)
    #expect(target.memoryImage[0 ..< 16] == before[0 ..< 16])
    #expect(target.memoryImage[0x82 * 4 ..< 135 * 4] == before[0x82 * 4 ..< 135 * 4])
  }

  @Test func anotherChipsImageIsRefusedBeforeAnyWrite() throws {
    let image = try VirtualTagKind.ntag213.makeTag(uid: nil).memoryImage
    for (kind, other) in [(VirtualTagKind.ntag215, image), (.topaz512, [UInt8](repeating: 0, count: 120)),
                          (.icodeSLIX2, [UInt8](repeating: 0, count: 403))] {
      let target = try kind.makeTag(uid: nil)
      let generation = target.memoryGeneration
      let (_, platform) = try connect(target, kind)
      let error = tagError { () throws(TagError) in
        _ = try (platform as? any MemoryRestoring)?.planRestore(image: other, includingSystemAreas: true)
      }
      guard case .unsupported(let why)? = error else { Issue.record("\(kind): \(String(describing: error))"); continue }
      #expect(why.contains("not an image of this chip"))
      #expect(target.memoryGeneration == generation)
    }
  }

  /// A locked tag's dump: its lock, CC and dynamic lock pages are permanent changes, planned only
  /// with the system areas and carried out after the user pages.
  @Test func systemAreasArePermanentAndLast() throws {
    let (_, source) = try connect(try VirtualTagKind.ntag213.makeTag(uid: nil), .ntag213)
    try source.writeNDEF(message(40), verify: true)
    try source.makeReadOnly()
    let image = try source.readMemory()

    let target = try VirtualTagKind.ntag213.makeTag(uid: nil)
    let (_, platform) = try connect(target, .ntag213)
    let userOnly = try restoring(platform).planRestore(image: image, includingSystemAreas: false)
    #expect(userOnly.permanentChanges.isEmpty)
    #expect(userOnly.notes.contains { $0.contains("CC (page 3) differs") })
    let all = try restoring(platform).planRestore(image: image, includingSystemAreas: true)
    #expect(Set(all.writes.filter(\.permanent).map(\.unit)) == [2, 3, 0x28])
    #expect(all.writes.last?.unit == 2)  // the static lock bits last
    let firstSystem = try #require(all.writes.firstIndex { $0.region == .system })
    #expect(all.writes[firstSystem...].allSatisfy { $0.region == .system })
    #expect(all.notes.contains { $0.contains("PWD and PACK") })
    try restoring(platform).restore(all, verify: true)
    #expect(target.memoryImage[8 ..< 16] == image[8 ..< 16])
    #expect(try platform.queryNDEFStatus().status == .readOnly)
  }

  @Test func whatTheChipCannotUndoIsRefused() throws {
    // A one-time programmable CC that would have to lose bits.
    let fresh = try VirtualTagKind.ntag213.makeTag(uid: nil)
    var image = fresh.memoryImage
    image[14] = 0x06
    let (_, platform) = try connect(try VirtualTagKind.ntag213.makeTag(uid: nil), .ntag213)
    guard case .unsupported(let why)? = tagError({ () throws(TagError) in
      _ = try (platform as? any MemoryRestoring)?.planRestore(image: image, includingSystemAreas: true)
    }) else { Issue.record("a CC that cannot be written was accepted"); return }
    #expect(why.contains("one-time programmable"))
    // Without the system areas the CC is not touched, so the same image is fine.
    #expect(try restoring(platform).planRestore(image: image, includingSystemAreas: false).writes.isEmpty)

    // Pages locked on the target.
    let locked = try VirtualTagKind.ntag213.makeTag(uid: nil)
    let (_, lockedPlatform) = try connect(locked, .ntag213)
    try lockedPlatform.makeReadOnly()
    let (_, source) = try connect(try VirtualTagKind.ntag213.makeTag(uid: nil), .ntag213)
    try source.writeNDEF(message(30), verify: true)
    let generation = locked.memoryGeneration
    let error = tagError { () throws(TagError) in
      _ = try (lockedPlatform as? any MemoryRestoring)?.planRestore(image: try source.readMemory(), includingSystemAreas: false)
    }
    guard case .unsupported(let lockedWhy)? = error else { Issue.record("\(String(describing: error))"); return }
    #expect(lockedWhy.contains("locked"))
    #expect(locked.memoryGeneration == generation)
  }

  /// The tag taken away after every command of a restore: it then reads as its old message, the
  /// new one, or an empty one, never part of a message.
  @Test func aTornRestoreLeavesTheOldTheNewOrAnEmptyMessage() throws {
    let kind = VirtualTagKind.ntag215
    let (_, source) = try connect(try kind.makeTag(uid: nil), kind)
    let new = message(200, seed: 3)
    try source.writeNDEF(new, verify: true)
    let image = try source.readMemory()
    let old = message(120, seed: 5)
    let (_, oldPlatform) = try connect(try kind.makeTag(uid: nil), kind)
    try oldPlatform.writeNDEF(old, verify: true)
    let oldImage = try oldPlatform.readMemory()

    let (transport, whole) = try connect(try kind.makeTag(image: oldImage), kind)
    try restoring(whole).restore(try restoring(whole).planRestore(image: image, includingSystemAreas: false), verify: true)
    var outcomes: [String: Int] = [:]
    for k in 1 ... transport.answered {
      let tag = try kind.makeTag(image: oldImage)
      do {
        let (_, platform) = try connect(tag, kind, removeAfter: k)
        let restore = try restoring(platform)
        try restore.restore(try restore.planRestore(image: image, includingSystemAreas: false), verify: true)
      } catch let error as TagError {
        #expect(error.isTagLost, "k = \(k): \(error)")
      } catch {
        // Detection failed: the tag left before the restore started.
      }
      let (_, reader) = try connect(tag, kind)
      let read = try reader.readNDEF()
      let which = read == old ? "old" : read == new ? "new" : read.isEmpty ? "empty" : "partial"
      #expect(which != "partial", "k = \(k) left \(read.count) bytes")
      outcomes[which, default: 0] += 1
    }
    #expect(outcomes["old", default: 0] > 0 && outcomes["empty", default: 0] > 0 && outcomes["new", default: 0] > 0)
  }
}

/// The progress hook hears every long operation's bytes, in order, up to its total.
@Suite struct TransferProgressReports {
  private final class Reports: @unchecked Sendable {
    // Written only by the hook, which runs synchronously on the test's thread.
    var seen: [(TransferProgress.Direction, Int, Int)] = []
  }

  private func observed(_ body: () throws -> Void) throws -> [(TransferProgress.Direction, Int, Int)] {
    let reports = Reports()
    let result = TransferProgress.observe({ direction, done, total in reports.seen.append((direction, done, total)) }) {
      () -> Result<Void, any Error> in Result { try body() }
    }
    try result.get()
    return reports.seen
  }

  private func expectMonotonic(_ seen: [(TransferProgress.Direction, Int, Int)], _ direction: TransferProgress.Direction,
                               total: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
    let mine = seen.filter { $0.0 == direction }
    #expect(mine.count > 1, sourceLocation: sourceLocation)
    #expect(zip(mine, mine.dropFirst()).allSatisfy { $0.1 < $1.1 && $0.2 == $1.2 }, sourceLocation: sourceLocation)
    if let last = mine.last { #expect(last.1 == last.2, sourceLocation: sourceLocation) }
    if let total { #expect(mine.last?.2 == total, sourceLocation: sourceLocation) }
  }

  @Test func aType2WriteAndDump() throws {
    let (_, platform) = try connect(try VirtualTagKind.ntag216.makeTag(uid: nil), .ntag216)
    let written = try observed { try platform.writeNDEF(message(800), verify: true) }
    expectMonotonic(written, .writing)
    let dumped = try observed { _ = try platform.readMemory() }
    expectMonotonic(dumped, .reading, total: 924)
    #expect(dumped.allSatisfy { $0.0 == .reading })
  }

  @Test func aRestoreAndTheOtherTypesDumps() throws {
    let (_, source) = try connect(try VirtualTagKind.ntag216.makeTag(uid: nil), .ntag216)
    try source.writeNDEF(message(600), verify: true)
    let image = try source.readMemory()
    let (_, target) = try connect(try VirtualTagKind.ntag216.makeTag(uid: nil), .ntag216)
    let restore = try restoring(target)
    let plan = try restore.planRestore(image: image, includingSystemAreas: false)
    let seen = try observed { try restore.restore(plan, verify: false) }
    expectMonotonic(seen, .writing, total: plan.byteCount)

    for (kind, size) in [(VirtualTagKind.topaz512, 512), (.felicaLiteS, 320), (.icodeSLIX2, 320)] {
      let (_, platform) = try connect(try kind.makeTag(uid: nil), kind)
      expectMonotonic(try observed { _ = try platform.readMemory() }, .reading, total: size)
    }
  }

  @Test func nothingIsHeardOutsideObserve() throws {
    #expect(!TransferProgress.isObserved)
    let inside = TransferProgress.observe({ _, _, _ in }) { TransferProgress.isObserved }
    #expect(inside)
  }
}
