import NFCTransport
import Testing
@testable import NFCReaders

/// A Part 3 reader keeps a loaded key in its key slot until it is overwritten or the reader loses
/// power (PC/SC Part 3 §3.2.2.1.4), so `PartThreeClassicLink` loads a key only when no slot of this
/// connection holds it: one LOAD KEYS per key, not one per authentication.
@Suite struct ClassicKeySlots {
  static let madKey: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
  static let ndefKey: [UInt8] = [0xD3, 0xF7, 0xD3, 0xF7, 0xD3, 0xF7]
  static let uid: [UInt8] = [0x01, 0x02, 0x03, 0x04]
  static func authenticate(block: UInt8, _ key: [UInt8], type: UInt8 = 0x60) -> [UInt8] { [type, block] + key + uid }
  static func load(_ key: [UInt8], slot: UInt8) -> [UInt8] { [0xFF, 0x82, 0x00, slot, 0x06] + key }
  static func general(block: UInt8, type: UInt8 = 0x60, slot: UInt8) -> [UInt8] {
    [0xFF, 0x86, 0x00, 0x00, 0x05, 0x01, 0x00, block, type, slot]
  }
  static func loads(_ reader: NamedReader) -> [[UInt8]] { reader.sentAPDUs.filter { $0.starts(with: [0xFF, 0x82]) } }

  /// Two keys (the MAD's and the NDEF sectors') in key numbers 00 and 01, each loaded once.
  @Test func eachKeyIsLoadedOnceIntoItsOwnSlot() throws {
    let ok: [UInt8] = [0x90, 0x00]
    let reader = NamedReader("ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] (slots 1) 00 00", apdus: [
      Self.load(Self.madKey, slot: 0): ok, Self.load(Self.ndefKey, slot: 1): ok,
      Self.general(block: 0, slot: 0): ok, Self.general(block: 4, slot: 1): ok, Self.general(block: 8, slot: 1): ok,
      Self.general(block: 1, slot: 0): ok,
    ])
    let link = PartThreeClassicLink(transport: reader)
    for (block, key) in [(0, Self.madKey), (4, Self.ndefKey), (8, Self.ndefKey), (1, Self.madKey)] {
      #expect(try link.transceive(Self.authenticate(block: UInt8(block), key)) == [0x0A])
    }
    #expect(Self.loads(reader) == [Self.load(Self.madKey, slot: 0), Self.load(Self.ndefKey, slot: 1)])
    #expect(reader.sentAPDUs.count == 6)
  }

  /// The SCL3711 names the slot by the key type (SCL3711 Reference Manual v1.3 §6.2.3): a key A
  /// and a key B are both kept; another key A replaces the first.
  @Test func anSCL3711KeepsOneKeyPerType() throws {
    let ok: [UInt8] = [0x90, 0x00]
    let reader = NamedReader("SCL3711 Reader and NFC Device (slots 2) 00 00", apdus: [
      Self.load(Self.madKey, slot: 0x60): ok, Self.load(Self.ndefKey, slot: 0x60): ok,
      Self.load(Self.ndefKey, slot: 0x61): ok,
      Self.general(block: 0, slot: 0x60): ok, Self.general(block: 4, slot: 0x60): ok,
      Self.general(block: 8, type: 0x61, slot: 0x61): ok,
    ])
    let link = PartThreeClassicLink(transport: reader)
    for (block, key, type) in [(0, Self.madKey, 0x60), (4, Self.ndefKey, 0x60), (4, Self.ndefKey, 0x60),
                               (8, Self.ndefKey, 0x61), (8, Self.ndefKey, 0x61), (4, Self.ndefKey, 0x60)] {
      #expect(try link.transceive(Self.authenticate(block: UInt8(block), key, type: UInt8(type))) == [0x0A])
    }
    #expect(Self.loads(reader) == [Self.load(Self.madKey, slot: 0x60), Self.load(Self.ndefKey, slot: 0x60),
                                   Self.load(Self.ndefKey, slot: 0x61)])
  }

  /// A refused load leaves the slot unknown, and a new activation of the card (after a refused
  /// authentication) forgets every slot: the key is loaded again before it is used.
  @Test func aFailedLoadAndANewActivationForget() throws {
    let ok: [UInt8] = [0x90, 0x00]
    let reader = NamedReader("ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] (slots 3) 00 00", apdus: [
      Self.load(Self.madKey, slot: 0): [0x63, 0x00],
      Self.general(block: 0, slot: 0): ok,
    ])
    let link = PartThreeClassicLink(transport: reader)
    #expect(throws: TransceiveError.self) { try link.transceive(Self.authenticate(block: 0, Self.madKey)) }
    reader.apdus[Self.load(Self.madKey, slot: 0)] = ok
    #expect(try link.transceive(Self.authenticate(block: 0, Self.madKey)) == [0x0A])
    #expect(Self.loads(reader).count == 2, "the failed load is not remembered")
    // A refused authentication: the card is activated again (NamedReader refuses the
    // reactivation, which the link leaves to the next command), and the slot is forgotten.
    reader.apdus[Self.general(block: 0, slot: 0)] = [0x63, 0x00]
    #expect(throws: TransceiveError.self) { try link.transceive(Self.authenticate(block: 0, Self.madKey)) }
    reader.apdus[Self.load(Self.madKey, slot: 1)] = ok
    reader.apdus[Self.general(block: 0, slot: 1)] = ok
    #expect(try link.transceive(Self.authenticate(block: 0, Self.madKey)) == [0x0A])
    #expect(Self.loads(reader) == [Self.load(Self.madKey, slot: 0), Self.load(Self.madKey, slot: 0),
                                   Self.load(Self.madKey, slot: 1)])
  }

  /// A reader that takes key number 00 only (PC/SC Part 3 leaves the numbers to the reader) gets
  /// every key in 00 once key number 01 was refused.
  @Test func aReaderWithOneSlotUsesKeyNumberZero() throws {
    let ok: [UInt8] = [0x90, 0x00]
    let reader = NamedReader("Some One-Slot Reader (slots 4) 00 00", apdus: [
      Self.load(Self.madKey, slot: 0): ok, Self.load(Self.ndefKey, slot: 0): ok, Self.load(Self.ndefKey, slot: 1): [0x69, 0x88],
      Self.general(block: 0, slot: 0): ok, Self.general(block: 4, slot: 0): ok,
    ])
    let link = PartThreeClassicLink(transport: reader)
    for (block, key) in [(0, Self.madKey), (4, Self.ndefKey), (4, Self.ndefKey), (0, Self.madKey)] {
      #expect(try link.transceive(Self.authenticate(block: UInt8(block), key)) == [0x0A])
    }
    #expect(Self.loads(reader) == [Self.load(Self.madKey, slot: 0), Self.load(Self.ndefKey, slot: 1),
                                   Self.load(Self.ndefKey, slot: 0), Self.load(Self.madKey, slot: 0)])
  }
}
