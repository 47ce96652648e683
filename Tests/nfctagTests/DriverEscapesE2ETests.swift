import Foundation
import Testing

/// `nfctag reader …` through the real pcscd and nfctag's pcsc-lite driver (docs/ifd-handler.md):
/// the PCSC module's `SCardControl` on a direct connection reaches the face; an ACR1252U is told
/// by its answer to ACS's firmware escape and takes its LED and buzzer escapes, and a reader
/// without either (uTrust 3700 F) is refused with one line naming it and the readers that have them.
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .enabled(if: ifdHandlerInstalled, ifdHandlerSkipReason))
struct DriverEscapesEndToEnd {
  @Test func anACR1252UTakesFirmwareLEDAndBeepThroughItsEscapes() throws {
    try withDriverReader(face: "acr1252u", tag: "ntag215") { driver, _ in
      let reader = driver.name
      var firmware = try runNFCTag(["reader", "firmware", "--reader", reader])
      for _ in 0..<40 where firmware.status != 0 {  // until the emulator is attached
        Thread.sleep(forTimeInterval: 0.25)
        firmware = try runNFCTag(["reader", "firmware", "--reader", reader])
      }
      #expect(firmware.status == 0, "\(firmware.stderr)")
      #expect(firmware.stdout.hasPrefix("ACR1252U"))
      #expect(try runNFCTag(["reader", "led", "--red", "--reader", reader]).stdout == "red on, green off\n")
      #expect(try runNFCTag(["reader", "beep", "--reader", reader]).status == 0)
      let readers = try runNFCTag(["readers"])
      #expect(readers.stdout.contains("ACS ACR1252U (firmware ACR1252U"), "\(readers.stdout)")
      let blink = try runNFCTag(["reader", "led", "--green", "--blink", "2", "--reader", reader])
      #expect(blink.status == 65)
      #expect(blink.stderr.contains(reader) && blink.stderr.contains("ACR122U"))
    }
  }

  @Test func aUTrust3700FHasNoLEDAndSaysWhichReadersDo() throws {
    try withDriverReader(face: "utrust3700f", tag: "ntag215") { driver, _ in
      let reader = driver.name
      var led = try runNFCTag(["reader", "led", "--green", "--reader", reader])
      for _ in 0..<40 where !led.stderr.contains("no LED") {  // until the tag is there (the ACR122U check needs it)
        Thread.sleep(forTimeInterval: 0.25)
        led = try runNFCTag(["reader", "led", "--green", "--reader", reader])
      }
      #expect(led.status == 65)
      #expect(led.stderr.hasPrefix("nfctag: \(reader): the Identiv uTrust 3700 F has no LED or buzzer"), "\(led.stderr)")
      #expect(led.stderr.contains("ACS ACR1252U"))
    }
  }
}
