import NFCReaders
import Testing
@testable import nfctag

/// `doctor`'s reader checks (ReaderChecks.swift) on machines described, not probed: what each
/// reader needs (the CCID driver's ifdDriverOptions for escapes, pn533_usb kept off the ACR122U
/// and SCL3711, a driver for the ACR1552U) and the fix it prints.
@Suite struct ReaderChecks {
  static func plist(_ options: String, _ products: String) -> String {
    "<dict>\n\t<key>ifdFriendlyName</key>\n\t<array><string>ACS ACR1252 Dual Reader</string></array>\n\t<key>ifdProductID</key>\n\t<array>\(products)</array>\n\t<key>ifdDriverOptions</key>\n\t<string>\(options)</string>\n</dict>"
  }

  func environment(readers: [(String, ReaderIdentification)] = [], usb: [ReaderEnvironment.USBDevice] = [],
                   options: String = "0x0000", products: String = "<string>0x223B</string>", acsccid: Bool = false) -> ReaderEnvironment {
    ReaderEnvironment(readers: readers.map { (name: $0.0, identification: $0.1) }, usbDevices: usb,
                      ccidInfoPlist: Self.plist(options, products), acsccidInstalled: acsccid)
  }

  @Test func anACR1252UWhoseEscapesAreRefusedGetsTheDriverOptionFix() {
    let name = "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 00 00"
    let checks = readerChecks(environment(readers: [(name, .byName(name))]))
    #expect(checks.count == 2)
    guard case .note(let text, let fix)? = checks.last else { Issue.record("\(checks)"); return }
    #expect(text.contains(name) && text.contains("escapes"))
    #expect(fix.contains("ifdDriverOptions to 0x0001") && fix.contains("Info.plist"))
    // A reader another driver serves (acsccid's name): no note about the CCID driver.
    let acsccid = "ACS ACR1252 1S CL Reader PICC 00 00"
    #expect(readerChecks(environment(readers: [(acsccid, .byName(acsccid))])).count == 1)
    // Authorised: no note.
    #expect(readerChecks(environment(readers: [(name, .byName(name))], options: "0x0001")).count == 1)
    // Answered its firmware: no note either.
    let answered = ReaderIdentification(model: .acr1252u, evidence: .firmware("ACR1252U_V202.2", controlCode: 1))
    #expect(readerChecks(environment(readers: [(name, answered)])) == [.ok("reader 0: \(name): \(answered.description): \(ReaderModel.acr1252u.capabilities.summary)")])
  }

  @Test func anACR122UOrSCL3711ClaimedByPN533IsAProblemWithTheModprobeFix() {
    for (product, model) in [(UInt16(0x2200), "ACS ACR122U"), (0x5591, "SCM SCL3711")] {
      let vendor: UInt16 = product == 0x2200 ? 0x072F : 0x04E6
      let checks = readerChecks(environment(usb: [.init(vendor: vendor, product: product, drivers: ["pn533_usb"])]))
      guard case .problem(let text, let fix)? = checks.first else { Issue.record("\(checks)"); continue }
      #expect(text.contains(model) && text.contains("pn533_usb"))
      #expect(fix.contains("modprobe -r pn533_usb") && fix.contains("blacklist pn533_usb"))
    }
    // An ACR122U on the CCID driver: nothing to say.
    #expect(readerChecks(environment(usb: [.init(vendor: 0x072F, product: 0x2200, drivers: ["usbfs"])])).isEmpty)
  }

  @Test func anACR1552UWithoutADriverThatListsItIsAProblem() {
    let device = ReaderEnvironment.USBDevice(vendor: 0x072F, product: 0x2303, drivers: [])
    let checks = readerChecks(environment(usb: [device]))
    guard case .problem(let text, let fix)? = checks.first else { Issue.record("\(checks)"); return }
    #expect(text.contains("ACR1552U") && text.contains("072f:2303"))
    #expect(fix.contains("libacsccid1"))
    #expect(readerChecks(environment(usb: [device], acsccid: true)).isEmpty)
    #expect(readerChecks(environment(usb: [device], products: "<string>0x2303</string>")).isEmpty)
  }

  @Test func theDriverOptionIsReadFromThePlist() {
    #expect(environment(options: "0x0001").ccidEscapesAuthorized == true)
    #expect(environment(options: "0x0005").ccidEscapesAuthorized == true)
    #expect(environment(options: "0x0004").ccidEscapesAuthorized == false)
    #expect(ReaderEnvironment(readers: [], usbDevices: [], ccidInfoPlist: nil, acsccidInstalled: false).ccidEscapesAuthorized == nil)
  }
}

/// What `nfctag reader …` says when a reader takes none of its commands: the reader, why, and
/// what would work.
@Suite struct ReaderCommandRefusals {
  @Test func anACSReaderWhoseDriverRefusesEscapesGetsTheDriverFix() {
    let acr1252 = "ACS ACR1252 Dual Reader [ACR1252 Dual Reader PICC] 00 00"
    let line = ReaderTarget.refusal(acr1252, cardPresent: false, driverSays: "no escapes")
    #expect(line.hasPrefix(acr1252 + " (ACS ACR1252U by its name) answered no ACS escape"))
    #expect(line.contains("ifdDriverOptions 0x0001") && line.contains("put a tag on it"))
    let acr1552 = "ACS ACR1552 1S CL Reader PICC 00 00"
    #expect(!ReaderTarget.refusal(acr1552, cardPresent: true, driverSays: nil).contains("put a tag"))
  }

  @Test func aReaderWithoutLEDsNamesTheReadersThatHaveThem() {
    let utrust = "Identiv uTrust 3700 F CL Reader 00 00"
    #expect(ReaderTarget.refusal(utrust, cardPresent: true, driverSays: nil)
            == "\(utrust): the Identiv uTrust 3700 F has no LED or buzzer command nfctag can send; readers with them: ACS ACR122U, ACS ACR1252U, ACS ACR1552U")
    #expect(ReaderTarget.refusal("Virtual PCD 00 00", cardPresent: false, driverSays: "Virtual PCD 00 00 takes reader commands only with a tag")
            == "Virtual PCD 00 00 takes reader commands only with a tag: put a tag on it and try again")
  }
}
