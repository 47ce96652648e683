import NFCTags
import NFCTestSupport
import NFCTransport
import Testing

/// An ACR122U-sized ISO-DEP link: R-APDUs of 250 data bytes, C-APDUs of 252 bytes.
let acr122uISODEP = LinkCapabilities(maxResponseLength: 250, maxCommandLength: 252, rawCommands: true)
let t4UID = hex("04 52 7A 1A 9B 6E 80")
/// The NTAG 424 DNA CC as shipped, first 15 bytes: CCLEN 0017, v2.0, MLe 0100, MLc 00FF, TLV 04 06 E104 0100 00 00.
let ntag424CC = hex("0017 20 0100 00FF 0406 E104 0100 00 00")
/// The ATR an ACR122U builds for an NTAG 424 DNA: the whole ATS as historical bytes.
let ntag424ATR: [UInt8] = {
  var atr = hex("3B 86 80 01 06 77 77 71 02 80")
  atr.append(atr.dropFirst().reduce(0, ^))
  return atr
}()

private let ok = hex("90 00")
private let selectV2 = hex("00 A4 04 00 07 D2 76 00 00 85 01 01 00")
private let selectCC = hex("00 A4 00 0C 02 E1 03")
private let readCC = hex("00 B0 00 00 0F")
private let selectNDEF = hex("00 A4 00 0C 02 E1 04")

/// The four steps every operation starts with on an NTAG 424 DNA.
private func discovery(cc: [UInt8] = ntag424CC) -> [EmbeddedTransceiver.Step] {
  [
    (selectV2, .success(ok)),                 // SELECT the NDEF Tag Application by its v2 name, Le 00
    (selectCC, .success(ok)),                 // SELECT the CC file E103 (P2 0C: no FCI)
    (readCC, .success(cc + ok)),              // READ BINARY 15 bytes of the CC
    (selectNDEF, .success(ok)),               // SELECT the NDEF file E104 named by the CC
  ]
}

@Suite struct Type4ReadTests {
  @Test func readsElephantWithNLENAndDataInOneReadBinary() throws {
    let file = hex("00 0F") + elephant + [UInt8](repeating: 0, count: 250 - 17)
    let link = EmbeddedTransceiver([
      (selectV2, .success(ok)),                                   // SELECT NDEF application v2 → 90 00
      (selectCC, .success(ok)),                                   // SELECT CC file E103 → 90 00
      (readCC, .success(ntag424CC + ok)),                         // READ BINARY CC: MLe 256, MLc 255, E104 of 256 bytes, r/w 00
      (selectNDEF, .success(ok)),                                 // SELECT NDEF file E104 → 90 00
      (hex("00 B0 00 00 FA"), .success(file + ok)),               // READ BINARY 250 bytes at 0: NLEN 000F + "elephant" record
    ], capabilities: acr122uISODEP)
    let tag = Type4Tag(identifier: t4UID, link: link, atr: ntag424ATR)
    #expect(try tag.readNDEF() == elephant)
    #expect(tag.ats == hex("06 77 77 71 02 80"))
    #expect(link.finish() == .clean)
  }

  @Test func readsAMaximumMessageInTwoReadBinaries() throws {
    let message = (0..<254).map { UInt8(truncatingIfNeeded: $0 * 3) }
    let file = hex("00 FE") + message
    let link = CountingTransceiver(EmbeddedTransceiver(discovery() + [
      (hex("00 B0 00 00 FA"), .success(Array(file[0..<250]) + ok)),   // READ BINARY 250 bytes at 0: NLEN 00FE + 248 bytes
      (hex("00 B0 00 FA 06"), .success(Array(file[250...]) + ok)),     // READ BINARY the last 6 bytes at 250
    ], capabilities: acr122uISODEP))
    let tag = Type4Tag(identifier: t4UID, link: link)
    #expect(try tag.readNDEF() == message)
    #expect(link.count == 6)
  }

  @Test func remembersTheSelectionBetweenOperations() throws {
    let link = EmbeddedTransceiver(discovery() + [
      (hex("00 B0 00 00 02"), .success(hex("00 0F") + ok)),               // query: READ BINARY NLEN
      (hex("00 B0 00 00 FA"), .success(hex("00 0F") + elephant + ok)),    // read: only READ BINARY, the selection is remembered
    ], capabilities: acr122uISODEP)
    let tag = Type4Tag(identifier: t4UID, link: link)
    #expect(try tag.queryNDEFStatus() == NDEFStatusReport(status: .readWrite, capacity: 254, messageLength: 15))
    #expect(try tag.readNDEF() == elephant)
    #expect(link.finish() == .clean)
  }

  @Test func selectsAgainWhenARememberedSelectionWasLost() throws {
    let link = EmbeddedTransceiver(discovery() + [
      (hex("00 B0 00 00 02"), .success(hex("00 00") + ok)),       // query: NLEN 0000
      (hex("00 B0 00 00 FA"), .success(hex("69 86"))),            // read: the tag was reset, no current file
      (selectV2, .success(ok)),                                   // SELECT the application again
      (selectNDEF, .success(ok)),                                 // SELECT the NDEF file again (the CC is remembered)
      (hex("00 B0 00 00 FA"), .success(hex("00 00") + ok)),       // READ BINARY: empty message
    ], capabilities: acr122uISODEP)
    let tag = Type4Tag(identifier: t4UID, link: link)
    #expect(try tag.queryNDEFStatus().messageLength == 0)
    #expect(try tag.readNDEF() == [])
    #expect(link.finish() == .clean)
  }

  @Test func fallsBackToTheVersion1Application() throws {
    let link = EmbeddedTransceiver([
      (selectV2, .success(hex("6A 82"))),                                   // v2 name: not found
      (hex("00 A4 04 00 07 D2 76 00 00 85 01 00"), .success(ok)),            // v1 name (no Le) → 90 00
      (hex("00 A4 00 00 02 E1 03"), .success(ok)),                          // SELECT CC with P2 00 (v1)
      (readCC, .success(hex("000F 10 003B 0034 0406 E104 0800 00 00") + ok)), // CC v1.0, MLe 59, MLc 52, 2048-byte file
      (hex("00 A4 00 00 02 E1 04"), .success(ok)),                          // SELECT NDEF file, P2 00
      (hex("00 B0 00 00 3B"), .success(hex("00 0F") + elephant + [UInt8](repeating: 0, count: 42) + ok)), // 59 bytes
    ])
    let tag = Type4Tag(identifier: t4UID, link: link)
    #expect(try tag.readNDEF() == elephant)
    #expect(tag.isVersion1)
    #expect(link.finish() == .clean)
  }

  @Test func readsAnENDEFFileOfMappingVersion3() throws {
    let cc = hex("0011 30 0100 00FF 0608 E104 00010000 00 00")
    let link = EmbeddedTransceiver([
      (selectV2, .success(ok)),                                   // SELECT application
      (selectCC, .success(ok)),                                   // SELECT CC
      (readCC, .success(Array(cc[0..<15]) + ok)),                 // READ 15 CC bytes: TLV 06 (ENDEF) found
      (hex("00 B0 00 0F 02"), .success(Array(cc[15...]) + ok)),   // READ the last 2 (read and write access)
      (selectNDEF, .success(ok)),                                 // SELECT E104
      (hex("00 B0 00 00 00"), .success(hex("0000000F") + elephant + [UInt8](repeating: 0, count: 237) + ok)),  // Le 00 = 256: ENLEN + data
    ])
    let tag = Type4Tag(identifier: t4UID, link: link)
    #expect(try tag.readNDEF() == elephant)
    #expect(tag.capabilityContainer?.capacity == 65536 - 4)
    #expect(link.finish() == .clean)
  }

  @Test func reportsNoApplicationAsNotFormattedAndRefusesToFormat() throws {
    let link = EmbeddedTransceiver([
      (selectV2, .success(hex("6A 82"))),                         // v2: not found
      (hex("00 A4 04 00 07 D2 76 00 00 85 01 00"), .success(hex("6A 82"))),  // v1: not found
      (selectV2, .success(hex("6A 82"))),
      (hex("00 A4 04 00 07 D2 76 00 00 85 01 00"), .success(hex("6A 82"))),
    ])
    let tag = Type4Tag(identifier: t4UID, link: link)
    guard case .notFormatted(let reason)? = tagError({ () throws(TagError) in _ = try tag.readNDEF() }) else {
      Issue.record("expected notFormatted"); return
    }
    #expect(reason.hasSuffix("answered 6a 82 (v2, file or application not found) and 6a 82 (v1, file or application not found)"))
    guard case .unsupported(let why)? = tagError({ () throws(TagError) in try tag.format() }) else {
      Issue.record("expected unsupported"); return
    }
    #expect(why.contains("NDEF application"))
    #expect(link.finish() == .clean)
  }

  @Test func rejectsAnNLENPastTheFileAndShortAnswers() throws {
    let bad = EmbeddedTransceiver(discovery() + [
      (hex("00 B0 00 00 FA"), .success(hex("01 00") + ok)),       // NLEN 256 in a 256-byte file
    ], capabilities: acr122uISODEP)
    guard case .malformed? = tagError({ () throws(TagError) in _ = try Type4Tag(identifier: t4UID, link: bad).readNDEF() }) else {
      Issue.record("expected malformed"); return
    }
    let short = EmbeddedTransceiver([(selectV2, .success(hex("90")))])  // one byte: no status word
    guard case .transceive(.malformedResponse, _, _)? = tagError({ () throws(TagError) in
      _ = try Type4Tag(identifier: t4UID, link: short).readNDEF()
    }) else { Issue.record("expected malformedResponse"); return }
    let badCC = EmbeddedTransceiver([
      (selectV2, .success(ok)), (selectCC, .success(ok)),
      (readCC, .success(hex("000F 20 0000 00FF 0406 E104 0100 00 00") + ok)),   // MLe 0
    ])
    guard case .malformed? = tagError({ () throws(TagError) in _ = try Type4Tag(identifier: t4UID, link: badCC).readNDEF() }) else {
      Issue.record("expected malformed CC"); return
    }
  }
}

@Suite struct Type4WriteTests {
  /// A message that fits one command still goes NLEN 0000, the data, NLEN: nothing named this tag
  /// a 424 DNA (Type4TearSafeWriteTests has the one exception).
  @Test func writesAMessageThatFitsOneUpdateNLENFirstAndLast() throws {
    let link = EmbeddedTransceiver([
      (selectV2, .success(ok)),                                           // SELECT NDEF application v2
      (selectCC, .success(ok)),                                           // SELECT CC file
      (readCC, .success(ntag424CC + ok)),                                 // READ BINARY CC: write access 00, 254-byte capacity
      (selectNDEF, .success(ok)),                                         // SELECT NDEF file E104
      (hex("00 B0 00 10 01"), .success(hex("00") + ok)),                  // READ BINARY the message's last byte: the file is that big
      (hex("00 D6 00 00 02 0000"), .success(ok)),                         // UPDATE NLEN 0000: an empty message
      (hex("00 D6 00 02 0F") + elephant, .success(ok)),                   // UPDATE the message at 2
      (hex("00 D6 00 00 02 000F"), .success(ok)),                         // UPDATE NLEN 000F: the message is there
      (hex("00 B0 00 00 11"), .success(hex("000F") + elephant + ok)),     // READ BINARY 17 bytes: read-back
    ], capabilities: acr122uISODEP)
    let tag = Type4Tag(identifier: t4UID, link: link)
    try tag.writeNDEF(elephant, verify: true)
    #expect(link.finish() == .clean)
  }

  @Test func writesALongMessageNLENFirstAndLast() throws {
    let message = (0..<20).map { UInt8($0) }
    // A link that carries 16 data bytes per UPDATE (5-byte header + 16).
    let link = EmbeddedTransceiver(discovery() + [
      (hex("00 B0 00 15 01"), .success(hex("00") + ok)),                    // READ BINARY byte 21: the file holds the message
      (hex("00 D6 00 00 02 0000"), .success(ok)),                           // UPDATE NLEN 0000: the file holds an empty message
      (hex("00 D6 00 02 10") + Array(message[0..<16]), .success(ok)),       // UPDATE 16 data bytes at 2
      (hex("00 D6 00 12 04") + Array(message[16...]), .success(ok)),        // UPDATE the last 4 at 18
      (hex("00 D6 00 00 02 0014"), .success(ok)),                           // UPDATE NLEN 0014: the message is there
    ], capabilities: LinkCapabilities(maxResponseLength: 250, maxCommandLength: 21, rawCommands: true))
    let tag = Type4Tag(identifier: t4UID, link: link)
    try tag.writeNDEF(message, verify: false)
    #expect(link.finish() == .clean)
  }

  @Test func refusesAReadOnlyTagAndATooLargeMessageBeforeWriting() throws {
    let readOnly = EmbeddedTransceiver([
      (selectV2, .success(ok)), (selectCC, .success(ok)),
      (readCC, .success(hex("0017 20 0100 00FF 0406 E104 0100 00 FF") + ok)),   // write access FF
    ])
    guard case .readOnly? = tagError({ () throws(TagError) in
      try Type4Tag(identifier: t4UID, link: readOnly).writeNDEF(elephant, verify: true)
    }) else { Issue.record("expected readOnly"); return }
    #expect(readOnly.finish() == .clean)

    let full = EmbeddedTransceiver([(selectV2, .success(ok)), (selectCC, .success(ok)), (readCC, .success(ntag424CC + ok))])
    guard case .insufficientCapacity(let needed, let capacity)? = tagError({ () throws(TagError) in
      try Type4Tag(identifier: t4UID, link: full).writeNDEF([UInt8](repeating: 1, count: 255), verify: true)
    }) else { Issue.record("expected insufficientCapacity"); return }
    #expect(needed == 255 && capacity == 254)
    #expect(full.finish() == .clean)
  }

  /// The length-only erase (`erase --fast`): one UPDATE BINARY.
  @Test func erasesWithOneUpdate() throws {
    let link = EmbeddedTransceiver(discovery() + [
      (hex("00 D6 00 00 02 0000"), .success(ok)),                 // UPDATE NLEN 0000
      (hex("00 B0 00 00 02"), .success(hex("0000") + ok)),        // read-back
    ])
    try Type4Tag(identifier: t4UID, link: link).erase(overwritingOldMessage: false)
    #expect(link.finish() == .clean)
  }

  @Test func locksWithEnablePermanentStateAndChecksTheCC() throws {
    let link = EmbeddedTransceiver(discovery() + [
      (hex("A2 28 00 02"), .success(ok)),                         // ST EnablePermanentState, write
      (selectCC, .success(ok)),                                   // SELECT CC again
      (readCC, .success(hex("0017 20 0100 00FF 0406 E104 0100 00 FF") + ok)),  // write access now FF
    ])
    let tag = Type4Tag(identifier: t4UID, link: link)
    try tag.makeReadOnly()
    #expect(tag.capabilityContainer?.writeAccess == 0xFF)
  }

  @Test func reportsATagThatCannotBeLockedAsUnsupported() throws {
    let link = EmbeddedTransceiver(discovery() + [
      (hex("A2 28 00 02"), .success(hex("6E 00"))),               // NTAG 424 DNA: class not supported
    ])
    guard case .unsupported(let why)? = tagError({ () throws(TagError) in
      try Type4Tag(identifier: t4UID, link: link).makeReadOnly()
    }) else { Issue.record("expected unsupported"); return }
    #expect(why.contains("EnablePermanentState"))
    #expect(link.finish() == .clean)
  }

  /// The 424 DNA's answers are hostile data: a GetVersion of the wrong length ends the 424 part
  /// (the Type 4 facts stay); an answer that does not parse becomes that fact's error, never a trap.
  @Test func ntag424AnswersThatDoNotParse() throws {
    let nlen = (hex("00 B0 00 00 02"), Result<[UInt8], TransceiveError>.success(hex("0000") + ok))
    let short = EmbeddedTransceiver(discovery() + [nlen,
      (hex("90 60 00 00 00"), .success(hex("04 04 02 30 00 11 05 91 AF"))),
      (hex("90 AF 00 00 00"), .success(hex("04 04 02 91 00")))])
    let fallback = try Type4Tag(identifier: t4UID, link: short, atr: ntag424ATR).info()
    #expect(fallback.chip == "Type 4 tag (mapping version 2.0)" && fallback.originalitySignature == nil)
    let version = hex("04 04 02 30 00 11 05") + hex("04 04 02 01 02 11 05") + hex("04 11 22 33 44 55 66 A1 B2 C3 D4 E0 21 24")
    var script = discovery() + [nlen,
      (hex("90 60 00 00 00"), .success(Array(version[0..<7]) + hex("91 AF"))),
      (hex("90 AF 00 00 00"), .success(Array(version[7..<14]) + hex("91 AF"))),
      (hex("90 AF 00 00 00"), .success(Array(version[14...]) + hex("91 00"))),
      (hex("90 F5 00 00 01 01 00"), .success(hex("00 00 00 E0 20 00 91 00"))),          // FileSize cut short
      (hex("90 F5 00 00 01 02 00"), .success(hex("00 40 E0 EE 00 01 00 01 91 00"))),    // SDM on, its fields missing
      (hex("90 F5 00 00 01 03 00"), .success(hex("91 9D")))]
    for key: UInt8 in 0...4 { script.append((hex("90 64 00 00 01") + [key, 0x00], .success(key == 3 ? hex("00 01 91 00") : hex("02 91 00")))) }
    script.append((hex("90 3C 00 00 01 00 00"), .success(hex("AA BB 91 00"))))
    let link = EmbeddedTransceiver(script)
    let info = try Type4Tag(identifier: t4UID, link: link, atr: ntag424ATR).info()
    #expect(link.finish() == .clean)
    #expect(info.chip == "NTAG 424 DNA")
    let facts = Dictionary(info.details.map { ($0.key, $0.text) }, uniquingKeysWith: { a, _ in a })
    #expect(facts["file1Settings"]?.contains("FileSize") == true, "\(facts)")
    #expect(facts["file2Settings"]?.contains("malformed answer") == true, "\(facts)")
    #expect(facts["file3Settings"] == "answered 91 9d")
    #expect(facts["keyVersions"]?.hasPrefix("key 0: 02, key 1: 02, key 2: 02, key 3: malformed answer") == true, "\(facts)")
    #expect(info.originalitySignature?.uid == hex("04112233445566"))
    #expect(info.originalitySignature?.problem?.hasPrefix("Read_Sig malformed answer") == true)
  }

  /// A tag with the 424 DNA's ATS and CC that refuses GetVersion (`6E 00`) is not named by them:
  /// GetVersion's hardware vendor, type and subtype identify the chip (NT4H2421Gx datasheet
  /// §10.5.2), and `info` says why it is not one in the words `sdm setup` and `keys` use.
  @Test func infoNamesThe424ByGetVersionOnly() throws {
    let link = EmbeddedTransceiver(discovery() + [(hex("00 B0 00 00 02"), .success(hex("0000") + ok)),
                                                  (hex("90 60 00 00 00"), .success(hex("6E 00")))])
    let info = try Type4Tag(identifier: t4UID, link: link, atr: ntag424ATR).info()
    #expect(info.chip == "Type 4 tag (mapping version 2.0)")
    #expect(info.memorySize == 0x17 + 256)
    #expect(info.details.first { $0.key == "ntag424" }?.text == "not an NTAG 424 DNA: GetVersion answered 6e00")
    #expect(info.lockState.contains("write access 00"))
    #expect(info.ndef == NDEFStatusReport(status: .readWrite, capacity: 254, messageLength: 0))
  }
}
