@testable import NDEF
import NFCTestSupport
import Testing

/// Bytes from hex digits; spaces, newlines and `//` comments (to the end of the line) are skipped.
func hex(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  var high: UInt8? = nil
  var inComment = false
  var previous: UInt8 = 0
  for c in text.utf8 {
    defer { previous = c }
    if inComment { if c == 0x0A { inComment = false }; continue }
    if c == 0x2F, previous == 0x2F { inComment = true; continue }
    let v: UInt8
    switch c {
    case 0x30...0x39: v = c - 0x30
    case 0x61...0x66: v = c - 0x57
    case 0x41...0x46: v = c - 0x37
    default: continue
    }
    if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
  }
  return out
}

func decodeError(_ bytes: [UInt8]) -> NDEFError? {
  do { _ = try NDEFMessage(decoding: bytes); return nil } catch { return error }
}

@Suite struct WorkedExamples {
  @Test func textElephantFromTheSpecExample() throws {
    // D1: MB ME SR TNF=1; type length 1; payload 0B; type T; 02 "en" "elephant"
    let message = try NDEFMessage(decoding: hex("D1 01 0B 54 02 65 6E 65 6C 65 70 68 61 6E 74"))
    let record = try #require(message.records.first)
    #expect(message.records.count == 1)
    let text = try #require(TextRecord(record))
    #expect(text.text == "elephant")
    #expect(text.language == "en")
    #expect(text.encoding == .utf8)
  }

  @Test func uriExampleDotCom() throws {
    let bytes = hex("D1 01 0D 55 01 65 78 61 6D 70 6C 65 2E 63 6F 6D 2F")
    let message = try NDEFMessage(decoding: bytes)
    let first = try #require(message.records.first)
    let uri = try #require(URIRecord(first))
    #expect(uri.uri == "http://www.example.com/")
    #expect(try NDEFMessage(records: [URIRecord(uri: "http://www.example.com/").record]).encoded() == bytes)
  }

  @Test func longRecordAndIDRoundTrip() throws {
    let payload = [UInt8](repeating: 0x41, count: 300)
    let record = NDEFRecord(tnf: .media, type: Array("text/plain".utf8), identifier: Array("id1".utf8), payload: payload)
    let bytes = try NDEFMessage(records: [record]).encoded()
    #expect(bytes[0] == 0xC0 | 0x08 | 0x02)  // MB ME IL, no SR: 300 bytes need the long form
    #expect(Array(bytes[2..<6]) == [0, 0, 0x01, 0x2C])
    #expect(try NDEFMessage(decoding: bytes).records == [record])
  }

  @Test func shortFormChosenUpTo255Bytes() throws {
    let bytes = try NDEFMessage(records: [NDEFRecord(tnf: .unknown, payload: [UInt8](repeating: 1, count: 255))]).encoded()
    #expect(bytes[0] & 0x10 != 0)
    #expect(bytes[2] == 255)
  }

  @Test func emptyRecordMessage() throws {
    let message = try NDEFMessage(decoding: hex("D0 00 00"))
    #expect(message.records == [NDEFRecord(tnf: .empty)])
    #expect(try message.encoded() == hex("D0 00 00"))
  }

  @Test func threeRecordsFlags() throws {
    let m = NDEFMessage(records: [TextRecord(text: "a").record, URIRecord(uri: "tel:1").record, NDEFRecord(tnf: .empty)])
    let bytes = try m.encoded()
    #expect(bytes[0] & 0xC0 == 0x80)  // first: MB only
    #expect(try NDEFMessage(decoding: bytes) == m)
  }
}

@Suite struct URIAbbreviations {
  @Test(arguments: 0..<URIRecord.prefixes.count)
  func everyCodeDecodesAndEncodes(code: Int) throws {
    let prefix = URIRecord.prefixes[code]
    let rest = code == 0 ? "example" : "x"
    let record = NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [UInt8(code)] + Array(rest.utf8))
    let uri = try #require(URIRecord(record))
    #expect(uri.uri == prefix + rest)
    // Re-encoding picks the longest prefix, which for these inputs is the same code.
    #expect(URIRecord(uri: prefix + rest).record.payload.first == UInt8(code))
  }

  @Test func codesFrom0x24AreNotParsed() {
    #expect(URIRecord(NDEFRecord(tnf: .wellKnown, type: [0x55], payload: [0x24, 0x61])) == nil)
  }

  @Test func longestPrefixWinsAndIsCaseSensitive() {
    #expect(URIRecord(uri: "https://www.a.org").abbreviated.code == 0x02)
    #expect(URIRecord(uri: "ftp://ftp.a.org").abbreviated.code == 0x08)
    #expect(URIRecord(uri: "urn:epc:id:x").abbreviated.code == 0x1E)
    #expect(URIRecord(uri: "HTTPS://a.org").abbreviated.code == 0x00)
  }
}

@Suite struct TextEncodings {
  @Test func utf16WithBigEndianBOM() throws {
    let record = NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x82] + Array("en".utf8) + [0xFE, 0xFF, 0x00, 0x48, 0x00, 0x69])
    #expect(TextRecord(record)?.text == "Hi")
    #expect(TextRecord(record)?.encoding == .utf16)
  }

  @Test func utf16WithLittleEndianBOM() {
    let record = NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x82] + Array("en".utf8) + [0xFF, 0xFE, 0x48, 0x00, 0x69, 0x00])
    #expect(TextRecord(record)?.text == "Hi")
  }

  @Test func utf16WithoutBOMIsBigEndian() {
    let record = NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x82] + Array("en".utf8) + [0x00, 0x48, 0x00, 0x69])
    #expect(TextRecord(record)?.text == "Hi")
  }

  @Test func utf16EncodesBigEndianWithBOM() {
    let payload = TextRecord(text: "é", language: "fr", encoding: .utf16).record.payload
    #expect(payload == [0x82, 0x66, 0x72, 0xFE, 0xFF, 0x00, 0xE9])
  }

  @Test func invalidUTF8IsNotRepaired() {
    #expect(TextRecord(NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x02, 0x65, 0x6E, 0xFF])) == nil)
  }

  @Test func loneSurrogateIsNotRepaired() {
    #expect(TextRecord(NDEFRecord(tnf: .wellKnown, type: [0x54], payload: [0x82, 0x65, 0x6E, 0xD8, 0x00])) == nil)
  }
}

@Suite struct Chunking {
  @Test func twoChunksReassemble() throws {
    // B5: MB CF SR TNF5 (unknown) "ab"; 56: ME SR TNF6 "cd"
    let m = try NDEFMessage(decoding: hex("B5 00 02 61 62  56 00 02 63 64"))
    #expect(m.records == [NDEFRecord(tnf: .unknown, payload: Array("abcd".utf8))])
  }

  @Test func threeChunksWithTypeAndID() throws {
    // B9: MB CF SR IL TNF1; type T, id "x"; then 36 (CF SR TNF6), then 56 (ME SR TNF6)
    let m = try NDEFMessage(decoding: hex("B9 01 03 01 54 78 02 65 6E  36 00 01 68  56 00 01 69"))
    let record = try #require(m.records.first)
    #expect(record.identifier == [0x78])
    #expect(TextRecord(record)?.text == "hi")
    // Encoding is canonical: one unchunked record.
    #expect(try m.encoded() == hex("D9 01 05 01 54 78 02 65 6E 68 69"))
  }
}

@Suite struct ValidationRules {
  @Test func emptyInput() { #expect(decodeError([])?.code == .empty) }
  @Test func truncatedHeader() { #expect(decodeError([0xD1])?.code == .truncated) }
  @Test func truncatedPayload() { #expect(decodeError(hex("D1 01 05 54 02"))?.code == .truncated) }
  @Test func claimedHugePayloadIsTruncationNotAllocation() {
    let error = decodeError(hex("C1 01 FF FF FF FF 54 00 00 00 00 00 00 00 00 00 00 00 00 00"))
    #expect(error?.code == .truncated)
    #expect(error?.offset == 7)
  }
  @Test func firstRecordWithoutMB() { #expect(decodeError(hex("51 01 00 54"))?.code == .missingMessageBegin) }
  @Test func mbOnLaterRecord() { #expect(decodeError(hex("91 01 00 54  D1 01 00 54"))?.code == .unexpectedMessageBegin) }
  @Test func noMessageEnd() { #expect(decodeError(hex("91 01 00 54"))?.code == .missingMessageEnd) }
  @Test func bytesAfterME() {
    let error = decodeError(hex("D1 01 00 54 00"))
    #expect(error?.code == .trailingBytes)
    #expect(error?.offset == 4)
  }
  @Test func meOnAChunkWithCF() { #expect(decodeError(hex("F5 00 01 61"))?.code == .chunkWithMessageEnd) }
  @Test func meOnAMiddleChunkWithCF() {
    #expect(decodeError(hex("B5 00 01 61  76 00 01 62"))?.code == .chunkWithMessageEnd)
  }
  @Test func cfOnTheLastRecord() {
    // A text record, then a chunk (CF, no ME) that nothing continues.
    let error = decodeError(hex("91 01 00 54  35 00 01 61"))
    #expect(error?.code == .chunkNotContinued)
    #expect(error?.offset == 4)
  }
  @Test func chunkFollowedByOtherRecord() { #expect(decodeError(hex("B5 00 01 61  51 01 00 54"))?.code == .chunkInterrupted) }
  @Test func unchangedOutsideChunk() { #expect(decodeError(hex("D6 00 01 61"))?.code == .unexpectedUnchanged) }
  @Test func idOnLaterChunk() { #expect(decodeError(hex("B5 00 01 61  5E 00 01 01 78 62"))?.code == .chunkHasTypeOrID) }
  @Test func typeOnLaterChunk() { #expect(decodeError(hex("B5 00 01 61  56 01 01 54 62"))?.code == .chunkHasTypeOrID) }
  @Test func nonEmptyEmptyRecord() { #expect(decodeError(hex("D0 00 01 61"))?.code == .emptyRecordNotEmpty) }
  @Test func unknownWithType() { #expect(decodeError(hex("D5 01 00 54"))?.code == .unexpectedType) }
  @Test func nestingTooDeep() throws {
    // Smart Posters nested ten deep: the outer one does not parse, and the nested message
    // reports the rule; eight levels are fine.
    func poster(levels: Int) throws -> NDEFRecord {
      let uri = URIRecord(uri: "https://a").record
      var records = [uri]
      for _ in 0..<levels {
        records = [uri, NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: try NDEFMessage(records: records).encoded())]
      }
      return records[1]
    }
    let deep = try poster(levels: 10)
    #expect(SmartPosterRecord(deep) == nil)
    #expect(throws: NDEFError(code: .nestingTooDeep, offset: 0, reason: "")) { try deep.nestedMessage() }
    let fine = try poster(levels: maximumNestingDepth)
    #expect(try fine.nestedMessage()?.records.count == 2)
    #expect(SmartPosterRecord(fine) != nil)
    // The decoder itself refuses to start past the cap.
    #expect(throws: NDEFError(code: .nestingTooDeep, offset: 0, reason: "")) {
      try NDEFDecoder(hex("D0 00 00")[...], depth: maximumNestingDepth + 1).decodeMessage()
    }
  }
  @Test func handoverNestingTooDeep() throws {
    var record = NDEFRecord(tnf: .wellKnown, type: Array("ac".utf8), payload: [1, 1, 0x30, 0])
    for _ in 0..<12 {
      record = NDEFRecord(tnf: .wellKnown, type: Array("Hs".utf8), payload: [0x13] + (try NDEFMessage(records: [record]).encoded()))
    }
    #expect(HandoverRecord(record) == nil)
    #expect(throws: NDEFError(code: .nestingTooDeep, offset: 0, reason: "")) { try record.nestedMessage() }
  }
  @Test func truncatedInLongPayloadLength() {
    let error = decodeError(hex("C1 01 00 00"))
    #expect(error?.code == .truncated)
    #expect(error?.offset == 2)
  }
  @Test func truncatedBeforeIDLength() {
    let error = decodeError(hex("D9 01 01"))
    #expect(error?.code == .truncated)
    #expect(error?.offset == 3)
  }
  @Test func typeLengthPastTheEnd() {
    let error = decodeError(hex("D2 0A 00 74 65 78 74"))
    #expect(error?.code == .truncated)
    #expect(error?.offset == 3)
  }
  @Test func idLengthPastTheEnd() {
    let error = decodeError(hex("D9 01 00 05 54 61"))
    #expect(error?.code == .truncated)
    #expect(error?.offset == 5)
  }
  @Test func truncatedInSecondRecord() {
    let error = decodeError(hex("91 01 00 54  51 01"))
    #expect(error?.code == .truncated)
    #expect(error?.offset == 6)
  }
  @Test func errorDescriptionNamesRuleAndOffset() {
    #expect(decodeError(hex("D1 01 00 54 00"))?.code == .trailingBytes)
    #expect(decodeError(hex("D1 01 00 54 00"))?.description.hasSuffix(" at byte 4") == true)
    #expect(decodeError(hex("D1 01 00 54 00"))?.description.contains("trailingBytes") == false)  // no internal names
  }
}

@Suite struct Leniency {
  @Test func wellKnownWithEmptyTypeDecodesWithAWarningAndRoundTrips() throws {
    // The CoreNFC tutorial record: TNF 1, empty type, payload 02 "en" "Hi".
    let bytes = hex("D1 00 05 02 65 6E 48 69")
    let m = try NDEFMessage(decoding: bytes)
    #expect(m.records.first?.warnings.isEmpty == false)
    #expect(try m.encoded() == bytes)
  }

  @Test func reservedTNFDecodesButNeverEncodes() throws {
    let m = try NDEFMessage(decoding: hex("D7 00 01 61"))
    #expect(m.records.first?.tnf == .reserved)
    #expect(throws: NDEFError.self) { try m.encoded() }
  }

  @Test func emptyMessageDoesNotEncode() {
    #expect(throws: NDEFError.self) { try NDEFMessage(records: []).encoded() }
  }
}

@Suite struct TypedRecords {
  @Test func smartPosterRoundTrip() throws {
    var sp = SmartPosterRecord(uri: "https://nfc.org", titles: [TextRecord(text: "NFC", language: "en")], action: 0, size: 1234, mimeType: "text/html")
    sp.icons = []
    let parsed = try #require(SmartPosterRecord(sp.record))
    #expect(parsed.uri == "https://nfc.org")
    #expect(parsed.titles.map(\.text) == ["NFC"])
    #expect(parsed.action == 0)
    #expect(parsed.size == 1234)
    #expect(parsed.mimeType == "text/html")
  }

  @Test func smartPosterWithoutURIIsNotParsed() throws {
    let payload = try NDEFMessage(records: [TextRecord(text: "x").record]).encoded()
    #expect(SmartPosterRecord(NDEFRecord(tnf: .wellKnown, type: Array("Sp".utf8), payload: payload)) == nil)
  }

  @Test func wifiCredentialKnownBytes() throws {
    let record = WiFiCredential(ssid: Array("Home".utf8), networkKey: Array("secret12".utf8)).record
    #expect(record.type == Array("application/vnd.wfa.wsc".utf8))
    // Version1 attribute first, then the credential.
    #expect(Array(record.payload.prefix(9)) == [0x10, 0x4A, 0x00, 0x01, 0x10, 0x10, 0x0E, 0x00, 0x2F]) // credential: 5+8+6+6+12+10 bytes
    #expect(record.payload.count == 9 + 0x2F + 10)
    let parsed = try #require(WiFiCredential(record))
    #expect(parsed.ssid == Array("Home".utf8))
    #expect(parsed.networkKey == Array("secret12".utf8))
    #expect(WiFiCredential.authenticationNames(parsed.authentication) == ["wpa2-personal"])
    #expect(WiFiCredential.encryptionNames(parsed.encryption) == ["aes"])
  }

  @Test func bluetoothClassicExample() throws {
    // OOB length 0x0014 LE, address 01:07:80:80:BF:A1 stored LE, name "Hi", class 0x240404
    let payload = hex("14 00 A1 BF 80 80 07 01  03 09 48 69  04 0D 04 04 24")
    let record = NDEFRecord(tnf: .media, type: Array("application/vnd.bluetooth.ep.oob".utf8), payload: payload + [0, 0, 0])
    let bt = try #require(BluetoothOOBRecord(record))
    #expect(bt.address == [0x01, 0x07, 0x80, 0x80, 0xBF, 0xA1])
    #expect(bt.name == "Hi")
    #expect(bt.classOfDevice == 0x240404)
  }

  @Test func handoverSelectWithOneCarrier() throws {
    let ac = NDEFRecord(tnf: .wellKnown, type: Array("ac".utf8), payload: [0x01, 0x01, 0x30, 0x00])
    let nested = try NDEFMessage(records: [ac]).encoded()
    let hs = try #require(HandoverRecord(NDEFRecord(tnf: .wellKnown, type: Array("Hs".utf8), payload: [0x12] + nested)))
    #expect(hs.kind == .select)
    #expect(hs.majorVersion == 1 && hs.minorVersion == 2)
    #expect(hs.carriers == [HandoverRecord.Carrier(powerState: 1, dataReference: [0x30])])
  }

  @Test func externalTypeValidation() throws {
    let ext = try ExternalTypeRecord(type: "Example.com:myType", payload: [1])
    #expect(ext.record.type == Array("example.com:myType".utf8))
    #expect(throws: NDEFError.self) { try ExternalTypeRecord(type: "nocolon", payload: []) }
    #expect(throws: NDEFError.self) { try ExternalTypeRecord(type: ":type", payload: []) }
    #expect(throws: NDEFError.self) { try ExternalTypeRecord(type: "exa mple.com:t", payload: []) }
  }

  @Test func androidApplicationRecord() throws {
    let record = AndroidApplicationRecord(packageName: "com.example.app").record
    #expect(record.tnf == .external)
    #expect(record.type == Array("android.com:pkg".utf8))
    #expect(AndroidApplicationRecord(record)?.packageName == "com.example.app")
  }
}

@Suite struct Properties {
  @Test func decodeOfEncodeIsIdentityFor500RandomMessages() throws {
    var rng = SplitMix64(state: 42)
    for _ in 0..<500 {
      var records: [NDEFRecord] = []
      for _ in 0..<Int.random(in: 1...4, using: &rng) {
        let tnf = [TypeNameFormat.empty, .wellKnown, .media, .absoluteURI, .external, .unknown].randomElement(using: &rng) ?? .unknown
        func bytes(_ max: Int) -> [UInt8] { (0..<Int.random(in: 0...max, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) } }
        var record = NDEFRecord(tnf: tnf)
        if tnf != .empty {
          record.payload = bytes(Bool.random(using: &rng) ? 20 : 400)
          record.identifier = bytes(3)
          if tnf != .unknown { record.type = bytes(6); if record.type.isEmpty { record.type = [0x41] } }
        }
        records.append(record)
      }
      let message = NDEFMessage(records: records)
      let encoded = try message.encoded()
      #expect(try NDEFMessage(decoding: encoded) == message)
      #expect(try NDEFMessage(decoding: encoded).encoded() == encoded)
    }
  }

  @Test func decodingRandomBytesNeverTraps() {
    var rng = SplitMix64(state: 7)
    for _ in 0..<5000 {
      let bytes = (0..<Int.random(in: 0...40, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
      if let m = try? NDEFMessage(decoding: bytes) { #expect(!m.records.isEmpty) }
    }
  }
}
