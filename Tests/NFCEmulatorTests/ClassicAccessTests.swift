import NFCEmulator
import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// The access conditions of NXP MF1S50yyX (MIFARE Classic EV1 1K) §8.7, checked row by row with
/// key A and key B against the datasheet's tables, written out here rather than taken from the model.
private let uid: [UInt8] = [0xA1, 0xB2, 0xC3, 0xD4]
private let keyA: [UInt8] = [0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5]
private let keyB: [UInt8] = [0xB0, 0xB1, 0xB2, 0xB3, 0xB4, 0xB5]

/// A 1K card whose sector 1 has keys ``keyA``/``keyB``, the given conditions, GPB 69, and a value
/// block holding 100 in blocks 4 and 5.
private func card(data: UInt8, trailer: UInt8) throws -> MIFAREClassicVirtualTag {
  var image = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid).memoryImage
  let conditions = MIFAREClassicAccessConditions(groups: [.init(bits: data), .init(bits: data), .init(bits: 0), .init(bits: trailer)])
  image.replaceSubrange(7 * 16 ..< 8 * 16, with: keyA + conditions.bytes + [0x69] + keyB)
  image.replaceSubrange(4 * 16 ..< 5 * 16, with: MIFAREClassicVirtualTag.valueBlock(100, address: 4))
  image.replaceSubrange(5 * 16 ..< 6 * 16, with: MIFAREClassicVirtualTag.valueBlock(100, address: 5))
  return try MIFAREClassicVirtualTag(chip: .classic1K, image: image)
}

private func authenticate(_ tag: MIFAREClassicVirtualTag, _ key: MIFAREClassicKeyType, block: UInt8 = 4) -> TagResponse {
  tag.respond(to: [key.rawValue, block] + (key == .a ? keyA : keyB) + uid)
}

/// The card refused the last command, so it is silent until it is selected again (NXP AN1304
/// §6.4.1): the authentication with `key` is mute, then, after ``MIFAREClassicVirtualTag/reset()``,
/// answered.
private func reselectAndAuthenticate(_ tag: MIFAREClassicVirtualTag, _ key: MIFAREClassicKeyType,
                                     sourceLocation: SourceLocation = #_sourceLocation) {
  #expect(authenticate(tag, key) == .mute, "silent after the refusal, key \(key)", sourceLocation: sourceLocation)
  tag.reset()
  #expect(authenticate(tag, key) == .ack, "selected again, key \(key)", sourceLocation: sourceLocation)
}

/// One row of Table 8 (data blocks): read, write, increment, decrement/transfer/restore, as
/// "AB", "A", "B" or "-" (never).
struct ClassicDataRow: CustomTestStringConvertible, Sendable {
  let bits: UInt8, read: String, write: String, increment: String, decrement: String
  var testDescription: String { "C1C2C3=\(String(bits, radix: 2))" }
}

private let dataTable: [ClassicDataRow] = [
  ClassicDataRow(bits: 0b000, read: "AB", write: "AB", increment: "AB", decrement: "AB"),  // transport configuration
  ClassicDataRow(bits: 0b010, read: "AB", write: "-", increment: "-", decrement: "-"),     // read/write block
  ClassicDataRow(bits: 0b100, read: "AB", write: "B", increment: "-", decrement: "-"),
  ClassicDataRow(bits: 0b110, read: "AB", write: "B", increment: "B", decrement: "AB"),    // value block
  ClassicDataRow(bits: 0b001, read: "AB", write: "-", increment: "-", decrement: "AB"),    // value block
  ClassicDataRow(bits: 0b011, read: "B", write: "B", increment: "-", decrement: "-"),
  ClassicDataRow(bits: 0b101, read: "B", write: "-", increment: "-", decrement: "-"),
  ClassicDataRow(bits: 0b111, read: "-", write: "-", increment: "-", decrement: "-"),
]

private func granted(_ cell: String, _ key: MIFAREClassicKeyType) -> Bool { cell.contains(key == .a ? "A" : "B") }

@Suite struct ClassicDataBlockAccess {
  /// Every data-block condition with each key (the trailer at 011, so key B is not readable and
  /// authenticates): each operation is answered or refused with NAK 4 as Table 8 says, and after a
  /// refusal the card is silent until it is selected again.
  @Test(arguments: dataTable)
  func dataBlockConditions(row: ClassicDataRow) throws {
    for key in [MIFAREClassicKeyType.a, .b] {
      let nak = TagResponse.nak(0x04)
      var tag = try card(data: row.bits, trailer: 0b011)
      #expect(authenticate(tag, key) == .ack)
      let stored = try #require(tag.storedBlock(4))
      #expect(tag.respond(to: [0x30, 0x04]) == (granted(row.read, key) ? .data(stored) : nak), "read \(key)")
      if !granted(row.read, key) { reselectAndAuthenticate(tag, key) }

      tag = try card(data: row.bits, trailer: 0b011)
      #expect(authenticate(tag, key) == .ack)
      let newBlock = MIFAREClassicVirtualTag.valueBlock(7, address: 4)
      #expect(tag.respond(to: [0xA0, 0x04] + newBlock) == (granted(row.write, key) ? .ack : nak), "write \(key)")
      #expect(tag.storedBlock(4) == (granted(row.write, key) ? newBlock : stored))
      if !granted(row.write, key) { reselectAndAuthenticate(tag, key) }

      tag = try card(data: row.bits, trailer: 0b011)
      #expect(authenticate(tag, key) == .ack)
      #expect(tag.respond(to: [0xC1, 0x04, 0x01, 0x00, 0x00, 0x00]) == (granted(row.increment, key) ? .ack : nak), "increment \(key)")
      if !granted(row.increment, key) { reselectAndAuthenticate(tag, key) }

      for command: UInt8 in [0xC0, 0xC2] {
        tag = try card(data: row.bits, trailer: 0b011)
        #expect(authenticate(tag, key) == .ack)
        let allowed = granted(row.decrement, key)
        #expect(tag.respond(to: [command, 0x04, 0x01, 0x00, 0x00, 0x00]) == (allowed ? .ack : nak), "\(command) \(key)")
        // Selected again, the TRANSFER is refused as well: no buffer, and no right for the key.
        if !allowed { reselectAndAuthenticate(tag, key) }
        #expect(tag.respond(to: [0xB0, 0x05]) == (allowed ? .ack : nak), "transfer \(key)")
        if !allowed { #expect(tag.isHalted, "silent after the refused transfer, key \(key)") }
        if allowed {
          let expected: Int32 = command == 0xC0 ? 99 : 100
          #expect(tag.storedBlock(5) == MIFAREClassicVirtualTag.valueBlock(expected, address: 4))
        }
      }
    }
  }

  /// The model's own table agrees with the datasheet's rows above.
  @Test(arguments: dataTable)
  func modelTableMatchesTable8(row: ClassicDataRow) {
    let bits = MIFAREClassicAccessBits(bits: row.bits)
    for key in [MIFAREClassicKeyType.a, .b] {
      #expect(bits.dataRead.allows(key) == granted(row.read, key))
      #expect(bits.dataWrite.allows(key) == granted(row.write, key))
      #expect(bits.dataIncrement.allows(key) == granted(row.increment, key))
      #expect(bits.dataDecrementTransferRestore.allows(key) == granted(row.decrement, key))
    }
  }
}

/// One row of Table 7 (sector trailer): key A write, access bits read and write, key B read and write.
struct ClassicTrailerRow: CustomTestStringConvertible, Sendable {
  let bits: UInt8, keyAWrite: String, accessRead: String, accessWrite: String, keyBRead: String, keyBWrite: String
  var testDescription: String { "C1C2C3=\(String(bits, radix: 2))" }
}

private let trailerTable: [ClassicTrailerRow] = [
  ClassicTrailerRow(bits: 0b000, keyAWrite: "A", accessRead: "A", accessWrite: "-", keyBRead: "A", keyBWrite: "A"),
  ClassicTrailerRow(bits: 0b010, keyAWrite: "-", accessRead: "A", accessWrite: "-", keyBRead: "A", keyBWrite: "-"),
  ClassicTrailerRow(bits: 0b100, keyAWrite: "B", accessRead: "AB", accessWrite: "-", keyBRead: "-", keyBWrite: "B"),
  ClassicTrailerRow(bits: 0b110, keyAWrite: "-", accessRead: "AB", accessWrite: "-", keyBRead: "-", keyBWrite: "-"),
  ClassicTrailerRow(bits: 0b001, keyAWrite: "A", accessRead: "A", accessWrite: "A", keyBRead: "A", keyBWrite: "A"),  // transport
  ClassicTrailerRow(bits: 0b011, keyAWrite: "B", accessRead: "AB", accessWrite: "B", keyBRead: "-", keyBWrite: "B"),
  ClassicTrailerRow(bits: 0b101, keyAWrite: "-", accessRead: "AB", accessWrite: "B", keyBRead: "-", keyBWrite: "-"),
  ClassicTrailerRow(bits: 0b111, keyAWrite: "-", accessRead: "AB", accessWrite: "-", keyBRead: "-", keyBWrite: "-"),
]

@Suite struct ClassicTrailerAccess {
  /// Every trailer condition with each key: what a read of the trailer shows (key A never; key B
  /// only where readable), and which parts a write changes. Where key B is readable it cannot
  /// serve for authentication: after an authentication with it every access is refused (§8.7.2).
  @Test(arguments: trailerTable)
  func trailerConditions(row: ClassicTrailerRow) throws {
    for key in [MIFAREClassicKeyType.a, .b] {
      let keyBReadable = row.keyBRead != "-"
      var tag = try card(data: 0b000, trailer: row.bits)
      let stored = try #require(tag.storedBlock(7))
      #expect(authenticate(tag, key, block: 7) == .ack)
      let readBack = tag.respond(to: [0x30, 0x07])
      if key == .b && keyBReadable {
        #expect(readBack == .nak(0x04), "key B is data here")
        tag = try card(data: 0b000, trailer: row.bits)
        #expect(authenticate(tag, key) == .ack)
        #expect(tag.respond(to: [0x30, 0x04]) == .nak(0x04), "no access after key B")
        continue
      }
      guard case .data(let shown) = readBack else {
        Issue.record("trailer read refused with key \(key)")
        continue
      }
      #expect(Array(shown[0..<6]) == [0, 0, 0, 0, 0, 0], "key A is never readable")
      #expect(Array(shown[6..<10]) == (granted(row.accessRead, key) ? Array(stored[6..<10]) : [0, 0, 0, 0]))
      #expect(Array(shown[10..<16]) == (granted(row.keyBRead, key) ? keyB : [0, 0, 0, 0, 0, 0]))

      // Write new keys and new access bits (data group 0 to 111, the trailer's row kept) and GPB 42.
      let changedConditions = MIFAREClassicAccessConditions(
        groups: [.init(bits: 0b111), .init(bits: 0), .init(bits: 0), .init(bits: row.bits)]).bytes
      let newA: [UInt8] = [1, 2, 3, 4, 5, 6], newB: [UInt8] = [7, 8, 9, 10, 11, 12]
      let written = newA + changedConditions + [0x42] + newB
      let anyPart = [row.keyAWrite, row.accessWrite, row.keyBWrite].contains { granted($0, key) }
      #expect(tag.respond(to: [0xA0, 0x07] + written) == (anyPart ? .ack : .nak(0x04)), "write \(key)")
      let after = try #require(tag.storedBlock(7))
      #expect(Array(after[0..<6]) == (granted(row.keyAWrite, key) ? newA : keyA), "key A \(key)")
      #expect(Array(after[6..<10]) == (granted(row.accessWrite, key) ? changedConditions + [0x42] : Array(stored[6..<10])), "access bits \(key)")
      #expect(Array(after[10..<16]) == (granted(row.keyBWrite, key) ? newB : keyB), "key B \(key)")
    }
  }

  @Test(arguments: trailerTable)
  func modelTableMatchesTable7(row: ClassicTrailerRow) {
    let bits = MIFAREClassicAccessBits(bits: row.bits)
    for key in [MIFAREClassicKeyType.a, .b] {
      #expect(bits.trailerKeyAWrite.allows(key) == granted(row.keyAWrite, key))
      #expect(bits.trailerAccessBitsRead.allows(key) == granted(row.accessRead, key))
      #expect(bits.trailerAccessBitsWrite.allows(key) == granted(row.accessWrite, key))
      #expect(bits.trailerKeyBRead.allows(key) == granted(row.keyBRead, key))
      #expect(bits.trailerKeyBWrite.allows(key) == granted(row.keyBWrite, key))
    }
    #expect(bits.keyBIsData == (row.keyBRead != "-"))
  }

  /// `FF 07 80` is the transport configuration (§8.7.1): data 000, trailer 001; bytes round-trip.
  @Test func accessBytesEncodeAndDecode() throws {
    let transport = try #require(MIFAREClassicAccessConditions(bytes: hex("FF 07 80")))
    #expect(transport.groups.map(\.bits) == [0, 0, 0, 1])
    #expect(MIFAREClassicAccessConditions.transport.bytes == hex("FF 07 80"))
    let mixed = MIFAREClassicAccessConditions(groups: [.init(bits: 0b100), .init(bits: 0b010), .init(bits: 0b001), .init(bits: 0b011)])
    #expect(MIFAREClassicAccessConditions(bytes: mixed.bytes) == mixed)
    #expect(MIFAREClassicAccessConditions(bytes: hex("FF 07 81")) == nil)   // C2 and its copy disagree
    #expect(MIFAREClassicAccessConditions(bytes: hex("FF 07")) == nil)
  }

  /// Access bits written in a violated format block the sector (§8.7.1).
  @Test func violatedAccessBitsBlockTheSector() throws {
    let tag = try MIFAREClassicVirtualTag(chip: .classic1K, uid: uid)
    let ff = MIFAREClassicVirtualTag.factoryKey
    #expect(tag.respond(to: [0x60, 0x07] + ff + uid) == .ack)
    #expect(tag.respond(to: [0xA0, 0x07] + ff + hex("FF 07 81 69") + ff) == .ack)
    #expect(tag.accessConditions(sector: 1) == nil)
    #expect(tag.respond(to: [0x60, 0x04] + ff + uid) == .ack)
    #expect(tag.respond(to: [0x30, 0x04]) == .nak(0x04))
  }
}
