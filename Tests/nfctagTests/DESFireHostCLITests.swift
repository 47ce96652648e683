import Foundation
import Testing

/// The host side of MIFARE DESFire through the CLI, in process, on `sim:` readers: detection.
@Suite struct DESFireHostCLI {
  @Test(arguments: ["sim:desfire-ev1-4k", "sim:desfire-ev1-4k@acr1552u"])
  func scanAndInfoNameAFactoryCard(reader: String) throws {
    let scan = try runTool(["scan", "--reader", reader])
    #expect(scan.status == 0, "\(scan.stderr)")
    #expect(scan.stdout.contains("chip:   MIFARE DESFire EV1 4K (Type 4)"), "\(scan.stdout)")
    #expect(scan.stdout.contains("not NDEF formatted"))
    let info = try runTool(["info", "--reader", reader])
    #expect(info.status == 0, "\(info.stderr)")
    #expect(info.stdout.contains("memory:"), "\(info.stdout)")
    #expect(info.stdout.contains("4096 bytes"))
    #expect(info.stdout.contains("Free memory:"))
    #expect(info.stdout.contains("software 1.4, 4K"))
  }

  @Test func infoJSONCarriesTheVersion() throws {
    let info = try runTool(["info", "--json", "--reader", "sim:desfire-ev1-2k"])
    #expect(info.status == 0, "\(info.stderr)")
    let object = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as? [String: Any])
    #expect(object["chip"] as? String == "MIFARE DESFire EV1 2K")
    #expect(object["memorySize"] as? Int == 2048)
    #expect((object["version"] as? String)?.hasPrefix("04010101001605040101010416") == true)
    let details = try #require(object["details"] as? [String: Any])
    let version = try #require(details["desfireVersion"] as? [String: Any])
    #expect(version["generation"] as? String == "EV1")
    #expect(version["storageBytes"] as? Int == 2048)
    #expect(details["freeMemory"] as? Int == 2048)
  }

  @Test func otherType4TagsAreNotAskedAsDESFire() throws {
    let scan = try runTool(["scan", "--reader", "sim:type4"])
    #expect(scan.status == 0, "\(scan.stderr)")
    #expect(!scan.stdout.contains("DESFire"), "\(scan.stdout)")
  }

  @Test func readingAFactoryCardSaysToFormat() throws {
    let read = try runTool(["read", "--reader", "sim:desfire-ev1-4k"])
    #expect(read.status == 65)
    #expect(read.stderr.contains("not NDEF formatted"), "\(read.stderr)")
    #expect(read.stderr.contains("run `nfctag format`"))
    #expect(read.stderr.split(separator: "\n").count == 1)
  }

  @Test func formatThenTheType4CommandsWorkOnAFactoryCard() throws {
    let image = FileManager.default.temporaryDirectory.appendingPathComponent("desfire-host-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).img").path
    defer { try? FileManager.default.removeItem(atPath: image) }
    for reader in ["sim:desfire-ev1-4k:\(image)", "sim:desfire-ev1-4k@acr1552u:\(image)"] {
      try? FileManager.default.removeItem(atPath: image)
      let format = try runTool(["format", "--reader", reader])
      #expect(format.status == 0, "\(reader): \(format.stderr)")
      let write = try runTool(["write", "url", "https://example.com/desfire", "--reader", reader])
      #expect(write.status == 0, "\(write.stderr)")
      let read = try runTool(["read", "--reader", reader])
      #expect(read.status == 0, "\(read.stderr)")
      #expect(read.stdout.contains("https://example.com/desfire"), "\(read.stdout)")
      let info = try runTool(["info", "--reader", reader])
      #expect(info.stdout.contains("MIFARE DESFire EV1 4K (Type 4)"), "\(info.stdout)")
      #expect(info.stdout.contains("NDEF Tag Application (D2760000850101)"))
      #expect(info.stdout.contains("e104, 4064 bytes"))
      let dump = try runTool(["dump", "--reader", reader])
      #expect(dump.status == 0, "\(dump.stderr)")
      #expect(!dump.stdout.isEmpty)
      let erase = try runTool(["erase", "--reader", reader])
      #expect(erase.status == 0, "\(erase.stderr)")
      let empty = try runTool(["read", "--reader", reader])
      #expect(empty.status == 0 && !empty.stdout.contains("example.com"), "\(empty.stdout)")
      // Formatting again keeps the application and writes an empty message.
      #expect(try runTool(["format", "--reader", reader]).status == 0)
    }
  }

  /// The program registers the virtual DESFire's cryptography at start (a process: the in-process
  /// runner calls no `main`): Authenticate answers the card's challenge, not `91 1C`.
  @Test func theProgramsVirtualDESFireAuthenticates() throws {
    let send = try runNFCTag(["send", "--reader", "sim:desfire-ev1-4k", "900A0000010000"])
    #expect(send.status == 0, "\(send.stderr)")
    #expect(send.stdout.contains("91 af"), "\(send.stdout)")
    #expect(!send.stdout.contains("91 1c"))
  }
}
