import NFCTransport

/// MIFARE Classic through an ACR122U: the MIFARE commands in a PN532 InDataExchange
/// (`FF 00 00 00 Lc D4 40 01 frame`), the PN532 running Crypto1 (PN532 User Manual §7.3.8, "MIFARE
/// commands"). Frames: AUTHENTICATION `60`/`61 blk key(6) uid(4)`, READ `30 blk`, WRITE
/// `A0 blk data(16)`, INCREMENT `C1`, DECREMENT `C0`, RESTORE `C2 blk operand(4)` and TRANSFER
/// `B0 blk` (the PN532 sends a value command's two parts itself).
///
/// A refused authentication is the PN532's status 14h ("Mifare: Authentication error", §7.1),
/// thrown as `TransceiveError.chipError(0x14)`; a refused READ or WRITE is the PN532's error for
/// the card's NAK, or a timeout. The card is then silent until it is selected again (NXP AN1304
/// §6.4.1 says so of a failed authentication, READ or WRITE), so the link selects it at once with
/// InListPassiveTarget (PN532 User Manual §7.3.5; `FF 00 00 00 04 D4 4A 01 00`), as libnfc's
/// nfc-mfclassic does before its next key: one more exchange per refusal.
public final class ACR122UClassicLink: Transceiver {
  let transport: any APDUTransport
  /// The card's UID as detected, when known: a new selection that finds another card is the
  /// card's removal, not a card to go on with.
  let identifier: [UInt8]?
  /// 16-byte blocks; frames up to 18 bytes (WRITE), carried as they are.
  public let capabilities = LinkCapabilities(maxResponseLength: 16, maxCommandLength: 18, rawCommands: true)
  /// How commands reach the tag, for people.
  public var pathDescription: String { "ACR122U direct transmit (PN532 InDataExchange, MIFARE commands)" }

  /// A link over `transport`, a PC/SC connection to an ACR122U with a MIFARE Classic in its field,
  /// the card whose UID is `identifier` when given.
  public init(transport: any APDUTransport, identifier: [UInt8]? = nil) {
    self.transport = transport
    self.identifier = identifier
  }

  /// Sends one MIFARE command; an authentication or a write answers `[0x0A]` (ACK).
  /// - Throws: `TransceiveError.chipError(_:)` for the PN532's error (14h: wrong key), a
  ///   timeout, the reader's status or the transport's failure.
  ///
  /// Status 27h ("not acceptable in the current context": no active target, PN532 User Manual
  /// UM0701-02 §7.1) is not the card's answer: the PN532 holds no target, as after another
  /// program's InRelease (libnfc's `nfc-list` and `nfc-mfclassic` release the card when they end).
  /// The card is selected again and the same command sent once more, so a key is never counted
  /// refused for it.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard let first = command.first, command.count <= capabilities.maxCommandLength else {
      throw .unsupported("a MIFARE command of \(command.count) bytes")
    }
    do {
      return try exchange(command, first: first)
    } catch where error == .chipError(Self.noActiveTarget) {
      return try exchange(command, first: first)  // selected again by the failed exchange
    }
  }

  /// The PN532's status 27h: the command is not acceptable in the current context (§7.1).
  static let noActiveTarget: UInt8 = 0x27

  private func exchange(_ command: [UInt8], first: UInt8) throws(TransceiveError) -> [UInt8] {
    let reply = try transport.transmit([0xFF, 0x00, 0x00, 0x00, UInt8(command.count + 3), 0xD4, 0x40, 0x01] + command)
    let data: [UInt8]
    do {
      data = try pn532Answer(reply, command: 0x40)
    } catch {
      // A failed authentication, READ or WRITE leaves the card silent (AN1304 §6.4.1): select it
      // again (InListPassiveTarget, one target at 106 kbps type A) so that the next key can be
      // tried; a card that left is found gone there.
      switch error {
      case .chipError, .timeout: try selectAgain()
      default: break
      }
      throw error
    }
    switch first {
    case 0x60, 0x61, 0xA0, 0xC0, 0xC1, 0xC2, 0xB0:
      return [0x0A]
    default:
      return data
    }
  }

  /// InListPassiveTarget for one type A target (`D5 4B NbTg Tg SENS_RES(2) SEL_RES NFCIDLength
  /// NFCID …`, PN532 User Manual §7.3.5): the card is target 1 again.
  /// - Throws: `TransceiveError.tagRemoved` when no target answers (`NbTg` 00), the card left, or
  ///   the target found has another UID than the card's (another card in the field); other
  ///   failures are left to the next command.
  private func selectAgain() throws(TransceiveError) {
    let reply: [UInt8]
    do {
      reply = try transport.transmit([0xFF, 0x00, 0x00, 0x00, 0x04, 0xD4, 0x4A, 0x01, 0x00])
    } catch {
      if error == .tagRemoved { throw error }
      return
    }
    guard reply.count >= 5, reply[0] == 0xD5, reply[1] == 0x4B, StatusWord(trailerOf: reply)?.isSuccess == true else { return }
    if reply[2] == 0x00 { throw .tagRemoved }
    if let identifier {
      guard reply.count >= 10 else { throw .tagRemoved }
      let length = Int(reply[7])
      guard reply.count >= 8 + length + 2, Array(reply[8 ..< 8 + length]) == identifier else { throw .tagRemoved }
    }
  }
}

/// MIFARE Classic through a PC/SC Part 3 reader's storage-card commands (PC/SC Part 3 §3.2.2.1):
/// AUTHENTICATION becomes LOAD KEYS into volatile slot 00 (`FF 82 00 00 06 key`) and GENERAL
/// AUTHENTICATE (`FF 86 00 00 05 01 00 blk 60/61 00`); READ becomes READ BINARY
/// (`FF B0 00 blk 10`); WRITE becomes UPDATE BINARY (`FF D6 00 blk 10 data`). The reader runs
/// Crypto1 and takes the UID itself, so the frame's UID is not sent.
///
/// The value commands are the ACR122U's (ACS ACR122U API V2.04 §5, "Value Block Related
/// Commands"), which other Part 3 readers of the ACS family share: the reader sends a value
/// command and its TRANSFER together, so INCREMENT `C1 blk n(4)` and DECREMENT `C0 blk n(4)` are
/// held until the TRANSFER `B0 blk` into the same block, and go out as one VALUE BLOCK OPERATION
/// (`FF D7 00 blk 05 01/02 n(4)`, the amount most significant byte first); RESTORE `C2 src`
/// with TRANSFER `B0 dst` goes out as RESTORE VALUE BLOCK (`FF D7 00 src 02 03 dst`). A TRANSFER
/// into another block than the command's, or without one, is unsupported.
///
/// Every failure, a wrong key included, is `63 00` (ACS ACR122U API V2.04 §5 and the Part 3
/// readers that follow it), thrown as `TransceiveError.status(63 00)`. After a refused GENERAL
/// AUTHENTICATE the card is silent until it is selected again (NXP AN1304 §6.4.1), and neither
/// PC/SC Part 3 nor ACS's manual says that the reader selects it again by itself; a Part 3 reader
/// has no command of its own for it either, so the link has the reader activate the card anew
/// through the connection (`APDUTransport.reactivateCard()`: `SCardReconnect` with a warm reset,
/// after which the reader activates and selects the card as on its arrival), as the session's
/// own release with a reset does. The reset activates whatever card is in the field, so when the
/// card's UID is known the link asks for it again (GET DATA `FF CA 00 00 00`, PC/SC Part 3
/// §3.2.2.1.3): another UID is the card's removal, never a card to go on with. Two more
/// exchanges per refused key.
///
/// A loaded key stays in the reader's key slot until it is overwritten or the reader loses power
/// (PC/SC Part 3 §3.2.2.1.4), so the link remembers which key each slot of this connection holds
/// and sends LOAD KEYS only for a key no slot holds: key numbers 00 and 01 (the two volatile slots
/// of the ACS readers, ACM1252U-Y3 Reference Manual §5.2.4.1, which the Identiv and HID readers
/// take too), the one not used last overwritten; on the SCL3711 the slot is the key type, so it
/// keeps one key A and one key B. A refused load, a new activation of the card (the warm reset
/// may reach the reader) and a new connection (a new link) forget. A reader that refuses key
/// number 01 gets every key in 00 from then on.
/// - Warning: Not thread-safe (the held value command); a tag's commands are serialised.
public final class PartThreeClassicLink: Transceiver {
  let transport: any APDUTransport
  /// The card's UID as detected, when known: a reactivation that finds another card is the
  /// card's removal, not a card to go on with.
  let identifier: [UInt8]?
  /// A value command waiting for its TRANSFER: its code, block and operand.
  private var held: (code: UInt8, block: UInt8, operand: [UInt8])?
  /// nil until the first LOAD KEYS; then true when the reader takes the key type as P2.
  private var keyTypeInP2: Bool?
  /// The key each slot (key number) holds, as this link loaded it.
  private var loadedKeys: [UInt8: [UInt8]] = [:]
  /// The key number the next key no slot holds goes to (00 or 01: the one not used last).
  private var nextSlot: UInt8 = 0x00
  /// False once the reader refused key number 01: every key goes to 00.
  private var twoSlots = true
  /// 16-byte blocks.
  public let capabilities = LinkCapabilities(maxResponseLength: 16, maxCommandLength: 18, rawCommands: false)
  /// How commands reach the tag, for people.
  public var pathDescription: String { "PC/SC Part 3 storage-card commands (LOAD KEYS, GENERAL AUTHENTICATE, READ/UPDATE BINARY)" }

  /// A link over `transport`, a PC/SC connection to a Part 3 reader with a MIFARE Classic, the
  /// card whose UID is `identifier` when given.
  public init(transport: any APDUTransport, identifier: [UInt8]? = nil) {
    self.transport = transport
    self.identifier = identifier
  }

  /// Sends one MIFARE command in its PC/SC form; an authentication or a write answers `[0x0A]`.
  /// - Throws: `TransceiveError.status(_:)` for the reader's refusal (`63 00`: wrong key, or a
  ///   block the access bits forbid), `unsupported` for other commands, or the transport's failure.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    switch command.first {
    case 0x60?, 0x61?:
      guard command.count == 12 else { throw .unsupported("a MIFARE authentication of \(command.count) bytes") }
      let slot = try loadKey(Array(command[2..<8]), type: command[0])
      do {
        _ = try Self.data(try transport.transmit([0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, command[1], command[0], slot]))
      } catch {
        if case .status = error { try reactivate() }
        throw error
      }
      return [0x0A]
    case 0x30? where command.count == 2:
      let data = try refusalReactivates { () throws(TransceiveError) in try Self.data(try transport.transmit([0xFF, 0xB0, 0x00, command[1], 0x10])) }
      guard data.count == 16 else { throw .malformedResponse(data) }
      return data
    case 0xA0? where command.count == 18:
      _ = try refusalReactivates { () throws(TransceiveError) in
        try Self.data(try transport.transmit([0xFF, 0xD6, 0x00, command[1], 0x10] + command[2...]))
      }
      return [0x0A]
    case let code? where (0xC0...0xC2).contains(code) && command.count == 6:
      held = (code, command[1], Array(command[2..<6]))
      return [0x0A]
    case 0xB0? where command.count == 2:
      guard let value = held else { throw .unsupported("a TRANSFER without a value command through a PC/SC Part 3 reader") }
      held = nil
      let apdu: [UInt8]
      switch value.code {
      case 0xC2:
        apdu = [0xFF, 0xD7, 0x00, value.block, 0x02, 0x03, command[1]]
      default:
        guard command[1] == value.block else {
          throw .unsupported("a TRANSFER into another block than the value command's through a PC/SC Part 3 reader")
        }
        apdu = [0xFF, 0xD7, 0x00, value.block, 0x05, value.code == 0xC1 ? 0x01 : 0x02] + value.operand.reversed()
      }
      _ = try refusalReactivates { () throws(TransceiveError) in try Self.data(try transport.transmit(apdu)) }
      return [0x0A]
    default:
      throw .unsupported("MIFARE command \(hexString(command.prefix(1))) through a PC/SC Part 3 reader")
    }
  }

  /// LOAD KEYS of a volatile card key (`FF 82 00 P2 06 key`) in the form this reader takes, and
  /// the key number GENERAL AUTHENTICATE then names:
  /// - key number `00` (ACS ACM1252U-Y3 Reference Manual §5.2.4.1, Identiv CLOUD 47x0 F §6.2.3,
  ///   HID OMNIKEY sample `LoadKeyCommand`);
  /// - the key type `60`/`61` as P2, and as the key number (SCL3711 Reference Manual v1.3 §6.2.3).
  /// The reader's name picks the first form tried (`ReaderModel.hinted(byName:)`, no probe); a
  /// `69 88` ("key number not valid", the same section) to key number 00 switches to the other for
  /// the life of the link (one APDU more, once). No LOAD KEYS when a slot already holds the key
  /// (PC/SC Part 3 §3.2.2.1.4: it stays there); a refusal of key number 01 leaves key number 00
  /// alone in use (one APDU more, once).
  private func loadKey(_ key: [UInt8], type: UInt8) throws(TransceiveError) -> UInt8 {
    if keyTypeInP2 == nil {
      keyTypeInP2 = ReaderModel.hinted(byName: transport.readerName)?.capabilities.keyLoading == .keyTypeInP2
    }
    let slot: UInt8
    if keyTypeInP2 == true {
      slot = type
      if loadedKeys[slot] == key { return slot }
    } else {
      for candidate: UInt8 in [0x00, 0x01] where loadedKeys[candidate] == key {
        nextSlot = candidate == 0x00 && twoSlots ? 0x01 : 0x00
        return candidate
      }
      slot = twoSlots ? nextSlot : 0x00
    }
    loadedKeys[slot] = nil
    let reply = try transport.transmit([0xFF, 0x82, 0x00, slot, 0x06] + key)
    if slot == 0x00, StatusWord(trailerOf: reply) == StatusWord(0x69, 0x88) {
      keyTypeInP2 = true
      loadedKeys = [:]
      return try loadKey(key, type: type)
    }
    if slot == 0x01, keyTypeInP2 != true, StatusWord(trailerOf: reply)?.isSuccess != true {
      twoSlots = false
      loadedKeys[0x01] = nil
      return try loadKey(key, type: type)
    }
    _ = try Self.data(reply)
    loadedKeys[slot] = key
    if keyTypeInP2 != true { nextSlot = slot == 0x00 && twoSlots ? 0x01 : 0x00 }
    return slot
  }

  /// Runs one storage-card command; when the reader refuses it (`63 00`: the card's NAK to a READ,
  /// WRITE or value command), has the card selected again first (AN1304 §6.4.1: the card is
  /// silent after a failed READ or WRITE as after a failed authentication).
  private func refusalReactivates<T>(_ body: () throws(TransceiveError) -> T) throws(TransceiveError) -> T {
    do {
      return try body()
    } catch {
      if case .status = error { try reactivate() }
      throw error
    }
  }

  /// Has the card selected again after a refused authentication, READ or WRITE, and checks that
  /// the card activated is this one.
  /// - Throws: `TransceiveError.tagRemoved` when the card left or another UID answers; another
  ///   failure (a transport that cannot reset the card, a reader without GET DATA) is left to the
  ///   next command, which a silent card then refuses.
  private func reactivate() throws(TransceiveError) {
    loadedKeys = [:]
    do throws(TransceiveError) {
      try transport.reactivateCard()
      guard let identifier else { return }
      let reply = try transport.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00])
      guard let response = ResponseAPDU(reply), response.statusWord.isSuccess else { return }
      if response.data != identifier { throw TransceiveError.tagRemoved }
    } catch {
      if error == .tagRemoved { throw error }
    }
  }

  static func data(_ reply: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard let response = ResponseAPDU(reply) else { throw .malformedResponse(reply) }
    guard response.statusWord.isSuccess else { throw .status(response.statusWord) }
    return response.data
  }
}
