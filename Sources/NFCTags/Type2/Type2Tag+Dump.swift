import NFCTransport

/// `dump --memory` of a Type 2 tag whose chip is unknown.
///
/// Without GET_VERSION (a reader that maps READ onto READ BINARY and passes nothing else, or a
/// chip without the command: MIFARE Ultralight, NTAG203) the size is not known: the CC gives the
/// NDEF data area (NFC Forum T2T 1.0 §6.1), and the dynamic lock, configuration and password
/// pages after it (NXP NTAG213/215/216 data sheet §8.5) are not part of it. Neither the
/// ATR nor GET DATA tells more: the PC/SC Part 3 Supplement's card names have none for the NTAG21x
/// (readers give an NTAG21x `00 03`, "MIFARE Ultralight"), and `00 3D`, MIFARE Ultralight EV1,
/// does not say which of its two sizes (NXP MF0ULX1 data sheet §8.5: MF0UL11 20 pages, MF0UL21 41);
/// GET DATA `FF CA 00 00` is the UID (PC/SC Part 3 §3.2.2.1.3). So the pages after the CC's area
/// are read one at a time until one is refused: a READ of a page the chip does not have is NAKed
/// (NTAG213/215/216 data sheet §10.2), which the reader turns into an error status. The NAK sends
/// the tag to IDLE or HALT (§8.4), so this is the dump's last command; and since the tag refuses
/// pages behind a read password the same way (§8.8), the dump says where it stopped
/// (``MemoryDump/Extent/probed(refusedAt:)``) rather than calling itself whole.
extension Type2Tag: MemoryDumping {
  public func readMemoryDump() throws(TagError) -> MemoryDump {
    var bytes = try readMemory()
    guard product == nil else { return MemoryDump(bytes: bytes, extent: .known) }
    let single = link as? any Type2PageReading
    guard single != nil || link.capabilities.rawCommands else { return MemoryDump(bytes: bytes, extent: .unknown) }
    var page = bytes.count / 4
    while let number = UInt8(exactly: page) {
      let contents: [UInt8]
      do {
        contents = try readAlone(number, through: single)
      } catch {
        switch error {
        case .tagRemoved, .transport: throw .transceive(error, command: "READ", address: page)
        default: return MemoryDump(bytes: bytes, extent: .probed(refusedAt: page * 4))
        }
      }
      bytes += contents
      page += 1
    }
    return MemoryDump(bytes: bytes, extent: .probed(refusedAt: nil))
  }

  /// Page `page`'s 4 bytes with one command: the link's own single-page read, else READ (30h),
  /// whose 16 bytes (wrapping past the last page) are cut to the first page.
  private func readAlone(_ page: UInt8, through single: (any Type2PageReading)?) throws(TransceiveError) -> [UInt8] {
    if let single {
      let data = try single.readPageAlone(page)
      guard data.count == 4 else { throw .malformedResponse(data) }
      return data
    }
    let reply = try link.transceive([0x30, page])
    guard reply.count == 16 else { throw .malformedResponse(reply) }
    return Array(reply.prefix(4))
  }
}
