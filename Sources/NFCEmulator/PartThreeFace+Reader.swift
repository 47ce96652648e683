import NFCTransport

// What a PartThreeFace answers as its reader model (``ReaderProfile``): the reader's own commands
// through SCardTransmit, MIFARE Classic key loading and authentication, and direct transmit.
extension PartThreeFace {
  /// The reader's own commands through `SCardTransmit`, or nil when `apdu` is none of them:
  /// `FF 00 40` LED and buzzer on readers that keep the ACR122U's form (ACM1252U-Y3 Reference
  /// Manual §5.6.1: `90 <LED state>`), HID's vendor command `FF 70 07 6B …` (HIDSC ReaderHelper.cs
  /// sends it by SCardTransmit when connected to a card).
  func readerCommand(_ apdu: [UInt8]) -> [UInt8]? {
    if profile.acr122LEDCommand, apdu.count >= 4, apdu[1] == 0x00, apdu[2] == 0x40 {
      ledState = apdu[3] & 0x03
      return [0x90, ledState]
    }
    if profile.vendorCommandThroughTransmit, apdu.count >= 4, apdu[1] == 0x70 {
      return omnikeyVendorCommand(apdu) ?? unsupported
    }
    return nil
  }

  /// HID's PC/SC Part 3 vendor command with VID 076B (HIDSC `ReaderCapabilities.cs`): the
  /// firmware version read `FF 70 07 6B 08 A2 06 A0 04 A0 02 85 00 00` answered
  /// `BD 05 85 03 <major> <minor> <revision> 90 00`. Other frames: nil.
  func omnikeyVendorCommand(_ data: [UInt8]) -> [UInt8]? {
    guard case .omnikey(let firmware) = profile.escapes,
          data == [0xFF, 0x70, 0x07, 0x6B, 0x08, 0xA2, 0x06, 0xA0, 0x04, 0xA0, 0x02, 0x85, 0x00, 0x00] else { return nil }
    return [0xBD, 0x05, 0x85, 0x03] + firmware.prefix(3) + Self.ok
  }

  /// Direct transmit on readers where it carries FeliCa commands (``ReaderProfile/DirectTransmit``):
  /// `FF 00 00 00 Lc <length byte, command>` to a FeliCa card, its answer and `90 00`
  /// (ACM1252U-Y3 Reference Manual §5.2.6). Another card, or no answer: the profile's failure.
  func directTransmit(_ apdu: [UInt8]) -> [UInt8] {
    guard apdu.count >= 6, apdu.count == 5 + Int(apdu[4]), tag.platform == .type3 else { return failed }
    guard case .data(let answer) = tag.respond(to: Array(apdu[5...])), answer.count + 2 <= Self.maximumAnswer else {
      return failed
    }
    return answer + Self.ok
  }

  // MARK: - MIFARE Classic keys

  /// LOAD KEYS and GENERAL AUTHENTICATE as the profile takes them (``ReaderProfile/Keys``); the
  /// other MIFARE pseudo-APDUs as every face answers them (`MIFAREClassicPseudoAPDUs`). nil for
  /// an APDU that is none of them.
  func classicAnswer(_ apdu: [UInt8], tag classic: MIFAREClassicVirtualTag) -> [UInt8]? {
    guard apdu.count >= 5 else { return nil }
    switch apdu[1] {
    case 0x82: return loadKeys(apdu)
    case 0x86:
      // FF 86 00 00 05 01 <block MSB> <block LSB> <60 | 61> <key number> (PC/SC Part 3 §3.2.2.1.6).
      guard apdu.count == 10, apdu[2] == 0, apdu[3] == 0, apdu[4] == 5, apdu[5] == 0x01, apdu[6] == 0x00 else {
        return failed
      }
      return authenticate(classic, block: apdu[7], keyType: apdu[8], keyNumber: apdu[9])
    case 0x88:
      guard profile.keys.obsoleteAuthenticate else { return unsupported }
      guard apdu.count == 6, apdu[2] == 0 else { return failed }
      return authenticate(classic, block: apdu[3], keyType: apdu[4], keyNumber: apdu[5])
    default:
      return classicAPDUs.answer(apdu, tag: classic)
    }
  }

  /// `FF 82 <structure> <key number> 06 <key>`: the structure and number the profile takes, a
  /// 6-byte MIFARE key (`69 89` for another length: PC/SC Part 3 §3.2.2.1.5's "key length not
  /// correct"; ACS answers `63 00` to everything).
  private func loadKeys(_ apdu: [UInt8]) -> [UInt8] {
    let keys = profile.keys
    let structure = apdu[2], number = apdu[3]
    let persistent = keys.persistentStructures.contains(structure)
    guard persistent || keys.volatileStructures.contains(structure) else { return keys.badStructure.bytes }
    guard keys.slots.contains(number) else { return keys.badSlot.bytes }
    guard apdu[4] == 6, apdu.count == 11 else {
      return keys.badStructure == .noInformation ? failed : StatusWord(0x69, 0x89).bytes
    }
    loadedKeys[number] = Array(apdu[5..<11])
    if persistent { persistentKeyNumbers.insert(number) } else { persistentKeyNumbers.remove(number) }
    return Self.ok
  }

  /// Authenticates with a loaded key: the key goes to the shared model's slot 0 and its GENERAL
  /// AUTHENTICATE runs (so a refusal leaves the card silent until it is selected again, as there).
  private func authenticate(_ classic: MIFAREClassicVirtualTag, block: UInt8, keyType: UInt8, keyNumber: UInt8) -> [UInt8] {
    guard keyType == 0x60 || keyType == 0x61, let key = loadedKeys[keyNumber] else { return failed }
    guard classicAPDUs.answer([0xFF, 0x82, 0x00, 0x00, 0x06] + key, tag: classic) == Self.ok,
          let answer = classicAPDUs.answer([0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, block, keyType, 0x00], tag: classic) else {
      return failed
    }
    return StatusWord(trailerOf: answer)?.isSuccess == true ? answer : failed
  }
}
