import NFCTestSupport
import Testing
@testable import NDEF

/// Worked examples with every byte written out, decoded and encoded both ways.
@Suite struct TypedRecordExamples {
  @Test func smartPosterKnownBytes() throws {
    let bytes = hex("""
      D1 02 16 53 70                       // MB ME SR TNF1, type "Sp", payload 22 bytes
        91 01 08 55 01 6E 66 63 2E 63 6F 6D  // U: 01 "http://www." + "nfc.com"
        51 01 06 54 02 65 6E 4E 46 43        // T: UTF-8, "en", "NFC"
      """)
    let message = try NDEFMessage(decoding: bytes)
    let first = try #require(message.records.first)
    let poster = try #require(SmartPosterRecord(first))
    #expect(poster.uri == "http://www.nfc.com")
    #expect(poster.titles == [TextRecord(text: "NFC", language: "en")])
    #expect(poster.action == nil && poster.icons.isEmpty && poster.otherRecords.isEmpty)
    #expect(try NDEFMessage(records: [SmartPosterRecord(uri: "http://www.nfc.com", titles: [TextRecord(text: "NFC")]).record]).encoded() == bytes)
  }

  @Test func smartPosterWithEverything() throws {
    var poster = SmartPosterRecord(uri: "https://x.org/a", titles: [TextRecord(text: "A"), TextRecord(text: "Ä", language: "de", encoding: .utf16)],
                                   action: 2, size: 70_000, mimeType: "text/html")
    poster.icons = [MIMERecord(mediaType: "image/png", data: [0x89, 0x50, 0x4E, 0x47])]
    poster.otherRecords = [NDEFRecord(tnf: .external, type: Array("a.org:x".utf8), payload: [1, 2])]
    #expect(SmartPosterRecord(poster.record) == poster)
  }

  @Test func smartPosterWithTwoURIsOrBadActionIsNotParsed() throws {
    let u = URIRecord(uri: "https://a").record
    let twoURIs = try NDEFMessage(records: [u, u]).encoded()
    #expect(SmartPosterRecord(NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: twoURIs)) == nil)
    let badAction = try NDEFMessage(records: [u, NDEFRecord(tnf: .wellKnown, type: Array("act".utf8), payload: [0, 0])]).encoded()
    #expect(SmartPosterRecord(NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: badAction)) == nil)
  }

  @Test func wifiCredentialEveryByte() throws {
    let payload = hex("""
      10 4A 00 01 10                      // Version1 = 1.0
      10 0E 00 2F                         // Credential, 47 bytes
        10 26 00 01 01                    //   Network Index 1
        10 45 00 04 48 6F 6D 65           //   SSID "Home"
        10 03 00 02 00 20                 //   Authentication: WPA2-Personal
        10 0F 00 02 00 08                 //   Encryption: AES
        10 27 00 08 73 65 63 72 65 74 31 32  // Network Key "secret12"
        10 20 00 06 FF FF FF FF FF FF     //   MAC address (broadcast)
      10 49 00 06 00 37 2A 00 01 20       // WFA vendor extension: Version2 = 2.0
      """)
    let credential = WiFiCredential(ssid: Array("Home".utf8), networkKey: Array("secret12".utf8))
    #expect(credential.record.payload == payload)
    #expect(credential.record.type == Array("application/vnd.wfa.wsc".utf8))
    let parsed = try #require(WiFiCredential(NDEFRecord(tnf: .media, type: Array("Application/VND.WFA.WSC".utf8), payload: payload)))
    #expect(parsed == credential)
    #expect(WiFiCredential.authenticationNames(0x0022) == ["wpa-personal", "wpa2-personal"])
    #expect(WiFiCredential.encryptionNames(0x000C) == ["tkip", "aes"])
  }

  @Test func wifiCredentialCutShortIsNotParsed() {
    let payload = hex("10 4A 00 01 10  10 0E 00 2F 10 26 00 01")
    #expect(WiFiCredential(NDEFRecord(tnf: .media, type: Array("application/vnd.wfa.wsc".utf8), payload: payload)) == nil)
  }

  @Test func bluetoothClassicKnownBytes() throws {
    let payload = hex("""
      14 00                 // OOB data length 20, little-endian
      06 05 04 03 02 01     // BD_ADDR 01:02:03:04:05:06, little-endian
      06 09 50 68 6F 6E 65  // complete local name "Phone"
      04 0D 0C 02 5A        // class of device 0x5A020C
      """)
    let bt = BluetoothOOBRecord(kind: .classic, address: [1, 2, 3, 4, 5, 6], name: "Phone", classOfDevice: 0x5A020C)
    #expect(bt.record.payload == payload)
    #expect(bt.record.type == Array("application/vnd.bluetooth.ep.oob".utf8))
    #expect(BluetoothOOBRecord(bt.record) == bt)
  }

  @Test func bluetoothLowEnergyRoundTrip() throws {
    let le = BluetoothOOBRecord(kind: .lowEnergy, address: [0xC0, 1, 2, 3, 4, 5], name: "Tag", role: 2, appearance: 0x03C1, leAddressType: 1)
    #expect(Array(le.record.payload.prefix(12)) == hex("08 1B 05 04 03 02 01 C0 01  02 1C 02"))
    #expect(BluetoothOOBRecord(le.record) == le)
  }

  @Test func bluetoothLengthPastTheEndIsNotParsed() {
    let type = Array("application/vnd.bluetooth.ep.oob".utf8)
    #expect(BluetoothOOBRecord(NDEFRecord(tnf: .media, type: type, payload: hex("20 00 06 05 04 03 02 01"))) == nil)
    #expect(BluetoothOOBRecord(NDEFRecord(tnf: .media, type: type, payload: hex("0B 00 06 05 04 03 02 01 05 09 41"))) == nil)
  }

  @Test func handoverSelectMessageKnownBytes() throws {
    let bytes = hex("""
      91 02 0A 48 73 12                  // MB SR TNF1 "Hs", version 1.2
        D1 02 04 61 63 01 01 30 00       //   ac: active, data reference "0", no auxiliary
      5A 20 14 01                        // ME SR IL TNF2, type 32 bytes, payload 20, ID 1
        61 70 70 6C 69 63 61 74 69 6F 6E 2F 76 6E 64 2E 62 6C 75 65 74 6F 6F 74 68 2E 65 70 2E 6F 6F 62
        30                               // ID "0"
        14 00 06 05 04 03 02 01 06 09 50 68 6F 6E 65 04 0D 0C 02 5A
      """)
    let message = try NDEFMessage(decoding: bytes)
    #expect(message.records.count == 2)
    let hs = try #require(HandoverRecord(message.records[0]))
    #expect(hs.kind == .select)
    #expect(hs.majorVersion == 1 && hs.minorVersion == 2)
    #expect(hs.carriers == [HandoverRecord.Carrier(powerState: 1, dataReference: [0x30])])
    #expect(hs.collisionResolution == nil && hs.records.isEmpty)
    #expect(message.records[1].identifier == hs.carriers[0].dataReference)
    let bt = try #require(BluetoothOOBRecord(message.records[1]))
    #expect(bt.address == [1, 2, 3, 4, 5, 6] && bt.name == "Phone")
    // Encoding the typed values gives the same bytes.
    var carrierRecord = bt.record
    carrierRecord.identifier = [0x30]
    #expect(try NDEFMessage(records: [hs.record, carrierRecord]).encoded() == bytes)
  }

  @Test func handoverRequestRoundTrip() throws {
    let hr = HandoverRecord(kind: .request, majorVersion: 1, minorVersion: 3,
                            carriers: [.init(powerState: 3, dataReference: [0x62], auxiliaryReferences: [[0x61], [0x63, 0x64]])],
                            collisionResolution: 0xBEEF,
                            records: [NDEFRecord(tnf: .wellKnown, type: Array("err".utf8), payload: [1, 0])])
    let record = hr.record
    #expect(record.payload.first == 0x13)
    #expect(HandoverRecord(record) == hr)
    #expect(HandoverRecord(HandoverRecord(kind: .mediation).record) == HandoverRecord(kind: .mediation))
  }

  @Test func handoverWithCutCarrierIsNotParsed() throws {
    let ac = NDEFRecord(tnf: .wellKnown, type: Array("ac".utf8), payload: [0x01, 0x05, 0x30])
    let payload = [0x12] + (try NDEFMessage(records: [ac]).encoded())
    #expect(HandoverRecord(NDEFRecord(tnf: .wellKnown, type: Array("Hs".utf8), payload: payload)) == nil)
  }

  @Test func externalTypeRules() throws {
    let ext = try ExternalTypeRecord(type: "NFC-Forum.ORG:my.type_(v1)", payload: [1])
    #expect(ext.domain == "nfc-forum.org")
    #expect(ext.name == "my.type_(v1)")
    #expect(ExternalTypeRecord(ext.record) == ext)
    for bad in ["", "nocolon", ":type", "a.org:", "a_b.org:t", "a.org:t t", "a.org:t&", "ä.org:t", "a.org:é"] {
      #expect(throws: NDEFError(code: .invalidField, offset: 0, reason: "")) { try ExternalTypeRecord(type: bad, payload: []) }
    }
    // Decoding is lenient about characters but not about the shape.
    #expect(ExternalTypeRecord(NDEFRecord(tnf: .external, type: Array("nocolon".utf8))) == nil)
    #expect(ExternalTypeRecord(NDEFRecord(tnf: .external, type: Array("a.org:t&t".utf8)))?.name == "t&t")
  }

  @Test func androidApplicationRecordBytes() throws {
    let bytes = try NDEFMessage(records: [AndroidApplicationRecord(packageName: "com.example").record]).encoded()
    #expect(bytes == hex("D4 0F 0B") + Array("android.com:pkg".utf8) + Array("com.example".utf8))
    let decoded = try #require(try NDEFMessage(decoding: bytes).records.first)
    #expect(AndroidApplicationRecord(decoded) == AndroidApplicationRecord(packageName: "com.example"))
    #expect(AndroidApplicationRecord(NDEFRecord(tnf: .external, type: Array("android.com:pkg".utf8), payload: [0xFF])) == nil)
  }

  @Test func absoluteURIAndMIME() throws {
    let abs = AbsoluteURIRecord(uri: "https://a.org/schema", payload: [7])
    #expect(AbsoluteURIRecord(abs.record) == abs)
    let mime = MIMERecord(mediaType: "text/vcard", data: Array("BEGIN:VCARD".utf8))
    #expect(MIMERecord(mime.record) == mime)
    #expect(mime.isText)
  }

  @Test func textUTF16RoundTripAndCutLanguage() throws {
    let text = TextRecord(text: "日本 😀", language: "ja", encoding: .utf16)
    #expect(TextRecord(text.record) == text)
    // Language length 5 but only 2 bytes follow.
    #expect(TextRecord(NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x05, 0x65, 0x6E])) == nil)
    // Odd UTF-16 length.
    #expect(TextRecord(NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x82, 0x65, 0x6E, 0x00, 0x48, 0x00])) == nil)
  }
}

@Suite struct CodecDetails {
  @Test func leniencyForEveryTNFWithAnEmptyType() throws {
    for tnf in [TypeNameFormat.wellKnown, .media, .absoluteURI, .external] {
      let bytes = [0xD0 | tnf.rawValue, 0x00, 0x01, 0x41]
      let message = try NDEFMessage(decoding: bytes)
      #expect(message.records.first?.warnings.count == 1)
      #expect(try message.encoded() == bytes)
    }
    #expect(try NDEFMessage(decoding: hex("D1 00 00")).records.first?.warnings == ["well-known record with an empty type"])
  }

  @Test func reservedKeepsItsType() throws {
    let record = try #require(try NDEFMessage(decoding: hex("D7 01 01 78 61")).records.first)
    #expect(record.tnf == .reserved && record.type == [0x78] && record.payload == [0x61])
    #expect(throws: NDEFError(code: .notEncodable, offset: 0, reason: "")) { try NDEFMessage(records: [record]).encoded() }
  }

  @Test func encodeRefusesWhatDecodeRefuses() {
    #expect(throws: NDEFError(code: .emptyRecordNotEmpty, offset: 0, reason: "")) {
      try NDEFMessage(records: [NDEFRecord(tnf: .empty, payload: [1])]).encoded()
    }
    #expect(throws: NDEFError(code: .unexpectedType, offset: 0, reason: "")) {
      try NDEFMessage(records: [NDEFRecord(tnf: .unknown, type: [1])]).encoded()
    }
    #expect(throws: NDEFError(code: .notEncodable, offset: 0, reason: "")) {
      try NDEFMessage(records: [NDEFRecord(tnf: .unchanged)]).encoded()
    }
    #expect(throws: NDEFError(code: .notEncodable, offset: 0, reason: "")) {
      try NDEFMessage(records: [NDEFRecord(tnf: .media, type: [UInt8](repeating: 0x61, count: 256))]).encoded()
    }
  }

  @Test func encodeIntoAppends() throws {
    var out: [UInt8] = [0xAA]
    try NDEFMessage(records: [NDEFRecord(tnf: .empty)]).encode(into: &out)
    #expect(out == [0xAA, 0xD0, 0x00, 0x00])
  }

  @Test func longFormInputReencodesShort() throws {
    // SR clear with a 1-byte payload decodes; encoding is canonical (SR set).
    let message = try NDEFMessage(decoding: hex("C1 01 00 00 00 01 54 00"))
    #expect(try message.encoded() == hex("D1 01 01 54 00"))
  }

  @Test func sliceOffsetsCountFromTheSliceStart() {
    let bytes = hex("FF FF D1 01 00 54 00")
    #expect(throws: NDEFError(code: .trailingBytes, offset: 0, reason: "")) { try NDEFMessage(decoding: bytes[2...]) }
    do { _ = try NDEFMessage(decoding: bytes[2...]) } catch { #expect(error.offset == 4) }
  }

  @Test func manySmallChunksReassembleInOrder() throws {
    var bytes = hex("B5 00 01 00")
    for i in 1..<5000 { bytes += [i == 4999 ? 0x56 : 0x36, 0x00, 0x01, UInt8(truncatingIfNeeded: i)] }
    let record = try #require(try NDEFMessage(decoding: bytes).records.first)
    #expect(record.payload.count == 5000)
    #expect(record.payload[4999] == UInt8(truncatingIfNeeded: 4999))
  }

  @Test func chunkedRecordThenAnotherRecord() throws {
    // Two chunks of a MIME record with ID "i", then an empty record that ends the message.
    let message = try NDEFMessage(decoding: hex("BA 01 01 01 61 69 41  16 00 02 42 43  50 00 00"))
    #expect(message.records == [NDEFRecord(tnf: .media, type: [0x61], identifier: [0x69], payload: [0x41, 0x42, 0x43]),
                                NDEFRecord(tnf: .empty)])
  }

  @Test func errorsCompareByCodeOnly() {
    #expect(NDEFError(code: .truncated, offset: 1, reason: "a") == NDEFError(code: .truncated, offset: 9, reason: "b"))
    #expect(NDEFError(code: .truncated, offset: 1, reason: "a") != NDEFError(code: .empty, offset: 1, reason: "a"))
  }
}

@Suite struct MoreProperties {
  /// Writes `message` with every record split into random chunks (NDEF 1.0 §3.3.3).
  static func chunked(_ message: NDEFMessage, using rng: inout SplitMix64) -> [UInt8] {
    var out: [UInt8] = []
    for (index, record) in message.records.enumerated() {
      var pieces: [[UInt8]] = []
      var rest = record.payload[...]
      repeat {
        let n = Int.random(in: 0...max(rest.count, 1), using: &rng)
        pieces.append(Array(rest.prefix(n)))
        rest = rest.dropFirst(n)
      } while !rest.isEmpty
      for (p, piece) in pieces.enumerated() {
        let firstChunk = p == 0, lastChunk = p == pieces.count - 1
        var header: UInt8 = firstChunk ? record.tnf.rawValue : 6
        if index == 0 && firstChunk { header |= 0x80 }
        if index == message.records.count - 1 && lastChunk { header |= 0x40 }
        if !lastChunk { header |= 0x20 }
        header |= 0x10
        if firstChunk && !record.identifier.isEmpty { header |= 0x08 }
        out.append(header)
        out.append(firstChunk ? UInt8(record.type.count) : 0)
        out.append(UInt8(piece.count))
        if firstChunk && !record.identifier.isEmpty { out.append(UInt8(record.identifier.count)) }
        if firstChunk { out += record.type + record.identifier }
        out += piece
      }
    }
    return out
  }

  @Test func randomChunkingReassemblesToTheSameRecords() throws {
    var rng = SplitMix64(state: 99)
    for _ in 0..<300 {
      var records: [NDEFRecord] = []
      for _ in 0..<Int.random(in: 1...3, using: &rng) {
        let tnf = [TypeNameFormat.wellKnown, .media, .external, .unknown].randomElement(using: &rng) ?? .media
        let payload = (0..<Int.random(in: 0...200, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
        records.append(NDEFRecord(tnf: tnf, type: tnf == .unknown ? [] : [0x78], identifier: Bool.random(using: &rng) ? [0x69] : [],
                                  payload: payload))
      }
      let message = NDEFMessage(records: records)
      let decoded = try NDEFMessage(decoding: Self.chunked(message, using: &rng))
      #expect(decoded == message)
      #expect(try decoded.encoded() == message.encoded())
    }
  }

  @Test func mutatedTypedRecordsNeverTrap() throws {
    let seeds: [NDEFMessage] = [
      NDEFMessage(records: [SmartPosterRecord(uri: "https://a.org", titles: [TextRecord(text: "t", encoding: .utf16)], action: 1, size: 9).record]),
      NDEFMessage(records: [HandoverRecord(kind: .select, carriers: [.init(powerState: 1, dataReference: [0x30], auxiliaryReferences: [[1]])]).record,
                            BluetoothOOBRecord(kind: .classic, address: [1, 2, 3, 4, 5, 6], name: "n", classOfDevice: 1).record]),
      NDEFMessage(records: [WiFiCredential(ssid: [0x61], networkKey: [0x62]).record,
                            BluetoothOOBRecord(kind: .lowEnergy, address: [1, 2, 3, 4, 5, 6], role: 0).record]),
    ]
    var rng = SplitMix64(state: 5)
    var parsed = 0
    for seed in seeds {
      let bytes = try seed.encoded()
      for _ in 0..<2000 {
        var mutated = bytes
        for _ in 0..<Int.random(in: 1...3, using: &rng) {
          let i = Int.random(in: 0..<mutated.count, using: &rng)
          mutated[i] = UInt8.random(in: 0...255, using: &rng)
        }
        guard let message = try? NDEFMessage(decoding: mutated) else { continue }
        for record in message.records {
          if SmartPosterRecord(record) != nil || HandoverRecord(record) != nil || WiFiCredential(record) != nil
            || BluetoothOOBRecord(record) != nil || TextRecord(record) != nil || URIRecord(record) != nil { parsed += 1 }
          _ = try? record.nestedMessage()
        }
      }
    }
    #expect(parsed > 0)
  }
}
