import Testing
@testable import NTAG424

/// The URL forms of a SUN message, parsed then verified (NXP AN12196 rev 2.0 §3.4's URLs).
@Suite struct SUNURLTests {
  @Test func queryFormOfSUN1() throws {
    let url = try SUNURL(parsing: "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086",
                         piccDataParameter: "e")
    #expect(url.encryptedPICCData == bytes("EF963FF7828658A599F3041510671E88"))
    #expect(url.sdmMAC == bytes("94EED9EE65337086"))
    #expect(url.macInput == [] && url.encryptedFileData == nil)
    let message = try SecureDynamicMessaging.verify(
      encryptedPICCData: url.encryptedPICCData, sdmMAC: url.sdmMAC, macInput: url.macInput,
      encryptedFileData: url.encryptedFileData, metaReadKey: .factory, fileReadKey: .factory)
    #expect(message.readCounter == 61)
  }

  @Test func queryFormOfSUN2WithFileData() throws {
    let url = try SUNURL(
      parsing: "https://www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=CEE9A53E3E463EF1F459635736738962&cmac=ECC1E7F6C6C73BF6",
      piccDataParameter: "picc_data", macParameter: "cmac")
    #expect(url.macInput == Array("CEE9A53E3E463EF1F459635736738962&cmac=".utf8))
    let message = try SecureDynamicMessaging.verify(
      encryptedPICCData: url.encryptedPICCData, sdmMAC: url.sdmMAC, macInput: url.macInput,
      encryptedFileData: url.encryptedFileData, metaReadKey: .factory, fileReadKey: .factory)
    #expect(message.fileData == Array("xxxxxxxxxxxxxxxx".utf8))
  }

  @Test func offsetsForm() throws {
    let text = "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
    let layout = SUNURLLayout(piccDataOffset: 27, macInputOffset: 62, macOffset: 62)
    let url = try SUNURL(parsing: text, layout: layout)
    #expect(url == (try SUNURL(parsing: text, piccDataParameter: "e")))
    #expect(throws: SUNURLError.offsetOutOfRange(field: "SDMMAC", offset: 70, urlLength: 78)) {
      try SUNURL(parsing: text, layout: SUNURLLayout(piccDataOffset: 27, macInputOffset: 62, macOffset: 70))
    }
    #expect(throws: SUNURLError.offsetOutOfRange(field: "SDMMACInput", offset: 63, urlLength: 78)) {
      try SUNURL(parsing: text, layout: SUNURLLayout(piccDataOffset: 27, macInputOffset: 63, macOffset: 62))
    }
  }

  @Test func typedErrors() {
    #expect(throws: SUNURLError.noQuery) { try SUNURL(parsing: "https://example.com/t") }
    #expect(throws: SUNURLError.missingParameter("c")) {
      try SUNURL(parsing: "https://example.com/t?p=EF963FF7828658A599F3041510671E88")
    }
    #expect(throws: SUNURLError.duplicateParameter("p")) {
      try SUNURL(parsing: "https://e.com/?p=EF963FF7828658A599F3041510671E88&p=00&c=94EED9EE65337086")
    }
    #expect(throws: SUNURLError.wrongLength(parameter: "p", expectedDigits: 32, actualDigits: 30)) {
      try SUNURL(parsing: "https://e.com/?p=EF963FF7828658A599F3041510671E&c=94EED9EE65337086")
    }
    #expect(throws: SUNURLError.notHex(parameter: "c")) {
      try SUNURL(parsing: "https://e.com/?p=EF963FF7828658A599F3041510671E88&c=94EED9EE6533708G")
    }
    #expect(throws: SUNURLError.macBeforeFileData) {
      try SUNURL(parsing: "https://e.com/?p=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086&enc=CEE9A53E3E463EF1F459635736738962")
    }
  }

  /// Surrounding whitespace (a pasted URL, a trailing newline) is not part of
  /// the URL, and a value's percent-encoded characters are the characters (RFC 3986 §2.1).
  @Test func whitespaceIsTrimmedAndValuesArePercentDecoded() throws {
    let plain = "https://ntag.nxp.com/424?e=EF963FF7828658A599F3041510671E88&c=94EED9EE65337086"
    let expected = try SUNURL(parsing: plain, piccDataParameter: "e")
    for variant in [" \(plain) ", plain + "\n", "\t" + plain + "\r\n",
                    "https://ntag.nxp.com/424?e=%45%46963FF7828658A599F3041510671E88&c=94EED9EE6533708%36",
                    "https://ntag.nxp.com/424?%65=EF963FF7828658A599F3041510671E88&c=94eed9ee65337086 "] {
      #expect(try SUNURL(parsing: variant, piccDataParameter: "e") == expected, "\(variant)")
    }
    // With file data, the MAC input is the decoded digits and the text between as the tag wrote it.
    let sun2 = "https://www.my424dna.com/?picc_data=FD91EC264309878BE6345CBE53BADF40&enc=%43EE9A53E3E463EF1F459635736738962&cmac=ECC1E7F6C6C73BF6\n"
    let url = try SUNURL(parsing: sun2, piccDataParameter: "picc_data", macParameter: "cmac")
    #expect(url.macInput == Array("CEE9A53E3E463EF1F459635736738962&cmac=".utf8))
    #expect(throws: SUNURLError.notHex(parameter: "e")) {
      try SUNURL(parsing: "https://e.com/?e=%4GF963FF7828658A599F3041510671E8&c=94EED9EE65337086", piccDataParameter: "e")
    }
  }

  /// 48 hex digits of PICCData are an LRP-mode SUN (PICCRand, 8 bytes, then 16 encrypted:
  /// NT4H2421Gx datasheet §9.3.4.2), said as such rather than as a wrong length; 47 or 49 digits,
  /// or 48 that are not hex, stay what they are.
  @Test func anLRPModeSUNIsNamed() {
    let lrp = "https://e.com/?p=" + String(repeating: "0123456789ABCDEF", count: 3) + "&c=94EED9EE65337086"
    #expect(throws: SUNURLError.lrpMode(parameter: "p")) { try SUNURL(parsing: lrp) }
    #expect(SUNURLError.lrpMode(parameter: "p").description
            == "an LRP-mode SUN (48-hex-digit PICCData in 'p'), not supported: only AES-mode SUN messages are verified")
    #expect(throws: SUNURLError.wrongLength(parameter: "p", expectedDigits: 32, actualDigits: 47)) {
      try SUNURL(parsing: "https://e.com/?p=" + String(repeating: "A", count: 47) + "&c=94EED9EE65337086")
    }
    #expect(throws: SUNURLError.wrongLength(parameter: "p", expectedDigits: 32, actualDigits: 48)) {
      try SUNURL(parsing: "https://e.com/?p=" + String(repeating: "G", count: 48) + "&c=94EED9EE65337086")
    }
  }
}
