import NFCTransport

extension MIFAREClassicTag {
  /// Whether ``format()`` has still to run before this card holds NDEF: true for a card without
  /// a MAD (factory-fresh: sector 0's GPB has the DA bit clear, AN10787 §3) and for a card whose
  /// format a removal cut short; false for a card formatted whole, read-only ones included.
  ///
  /// ``format()`` writes the NDEF sectors first (ascending, each sector's trailer last), then
  /// MAD2 (sector 16 of a 4K), then sector 0's MAD blocks and its trailer last: until that last
  /// write sector 0's GPB is still the factory `69`, DA clear, so a format cut short reads as a card
  /// without a MAD. The format of the previous release wrote the MAD first and the NDEF sectors
  /// after it; cards it left half-formatted are recognised too, at the cost of one more trailer
  /// read (an authentication and a READ) on a card with a MAD:
  /// - on a 4K, MAD1 written and sector 16 not yet: MAD2's CRC is wrong and sector 16's trailer
  ///   has no MAD GPB (DA bit clear);
  /// - the MAD names the sectors up to the last as NDEF, but the last one's trailer has no NDEF
  ///   GPB yet (mapping version 1.0 in bits 7–4: AN1304, NFC sector trailer).
  ///
  /// A MAD whose CRC is wrong otherwise is not trusted and not repaired: the error is thrown. A
  /// card whose MAD gives the NDEF application only some sectors is not formatted again: the
  /// check is on the last NDEF sector the MAD names.
  /// The blocks it reads stay for the operation that follows (``beginOperation()``): a write
  /// after it reads sector 0's MAD no more.
  /// - Throws: ``TagError/malformed(_:offset:)`` for a MAD that is wrong but not a torn format's;
  ///   ``TagError/authenticationFailed(_:)`` when no key opens a sector it reads; transport errors.
  public func needsFormat() throws(TagError) -> Bool {
    beginOperation()
    let mad: MIFAREApplicationDirectory
    do {
      mad = try readDirectory()
    } catch {
      switch error {
      case .notFormatted:
        readsKept = true
        return true
      case .malformed where chip == .classic4K:
        let block = chip.trailer(of: 16)
        guard let trailer = try read(blocks: [block])[block], trailer.count == 16 else { throw error }
        guard trailer[9] & 0x80 == 0 else { throw error }
        readsKept = true
        return true
      default:
        throw error
      }
    }
    let area: MIFAREClassicNDEFArea
    do { area = try MIFAREClassicNDEFArea(chip: chip, mad: mad) } catch { throw Self.tagError(error) }
    guard let last = area.sectors.last else { throw .notFormatted("no NDEF sector") }
    let block = chip.trailer(of: last)
    guard let trailer = try read(blocks: [block])[block], trailer.count == 16 else {
      throw .malformed("the trailer of sector \(last) could not be read", offset: nil)
    }
    readsKept = true
    return trailer[9] >> 4 != MIFAREClassicNDEF.gpbReadWrite >> 4
  }
}
