import NFCEmulator
import NFCReaders
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

private let uid: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]

/// `format` cut short after every APDU, on a Mini, a 1K and a 4K: the NDEF sectors are written
/// first and sector 0's trailer (the GPB that says "MAD") last, so the card then reads as not
/// formatted or as the whole empty NDEF card, never as a MAD over NDEF sectors still
/// factory-fresh; ``MIFAREClassicTag/needsFormat()`` agrees, and a second format finishes it.
@Suite struct ClassicTornFormat {
  @Test(arguments: [MIFAREClassicChip.mini, .classic1K, .classic4K])
  func aFormatCutAfterAnyAPDUIsNotFormattedOrWhole(chip: MIFAREClassicChip) throws {
    let counting = RecordingTransport(SimulatedAPDUTransport(card: ACR122UFace(tag: try MIFAREClassicVirtualTag(chip: chip, uid: uid))))
    try makePlatform(for: try detectTarget(on: counting)).format()
    let total = counting.sent.count
    let ndefSectors = (1..<chip.sectorCount).filter { !(chip == .classic4K && $0 == 16) }
    var outcomes: Set<String> = []
    for cut in 1...total {
      let tag = try MIFAREClassicVirtualTag(chip: chip, uid: uid)
      let torn = SimulatedAPDUTransport(card: ACR122UFace(tag: tag), removeAfter: cut)
      if let platform = try? makePlatform(for: try detectTarget(on: torn)) {
        _ = try? platform.format()
      }
      tag.reset()
      let (reader, _) = try ClassicHost.connect(tag, face: .acr122u)
      let context = "\(chip), cut after APDU \(cut) of \(total)"
      switch Result(catching: { () throws(TagError) in try reader.readNDEF() }) {
      case .success(let message):
        #expect(message == [], "\(context)")
        for sector in ndefSectors {
          let trailer = tag.storedBlock(chip.trailer(of: sector)) ?? []
          #expect(trailer.prefix(6).elementsEqual(MIFAREClassicNDEF.publicKeyA) && trailer.count == 16 && trailer[9] == 0x40,
                  "sector \(sector) is not an NDEF sector, \(context)")
        }
        #expect(try reader.needsFormat() == false, "\(context)")
        outcomes.insert("formatted")
      case .failure(let error):
        guard case .notFormatted = error else {
          Issue.record("\(context): \(error)")
          continue
        }
        #expect(try reader.needsFormat(), "\(context)")
        try reader.format()
        #expect(try reader.readNDEF() == [], "formatted again, \(context)")
        outcomes.insert("not formatted")
      }
    }
    #expect(outcomes == ["not formatted", "formatted"])
  }

  /// A card half-formatted in the order of the previous release (the MAD first, then the NDEF
  /// sectors ascending) is still recognised: the MAD names every sector NDEF, the last one's
  /// trailer is factory.
  @Test(arguments: [MIFAREClassicChip.classic1K, .classic4K])
  func aCardCutInTheOldOrderNeedsAFormat(chip: MIFAREClassicChip) throws {
    let factory = try MIFAREClassicVirtualTag(chip: chip, uid: uid)
    var image = factory.memoryImage
    let writes = MIFAREClassicNDEF.formatWrites(for: chip)
    // Sector 0 (and 16), then the NDEF sectors but the last.
    let oldOrder = writes.filter { $0.sector == 0 || $0.sector == 16 } + writes.filter { $0.sector != 0 && $0.sector != 16 }.dropLast()
    for (_, blocks) in oldOrder {
      for (block, bytes) in blocks { image.replaceSubrange(block * 16 ..< block * 16 + 16, with: bytes) }
    }
    let tag = try MIFAREClassicVirtualTag(chip: chip, image: image, uid: factory.identifier)
    let (reader, _) = try ClassicHost.connect(tag, face: .acr122u)
    #expect(try reader.needsFormat())
    try reader.format()
    #expect(try reader.needsFormat() == false)
    #expect(try reader.readNDEF() == [])
  }
}
