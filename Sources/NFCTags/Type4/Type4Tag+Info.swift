import NFCTransport
import NTAG424Commands

/// What `info` shows of a Type 4 tag: the application, the CC's limits and access, the ATS.
extension Type4Tag {
  public func info() throws(TagError) -> TagInfo {
    let cc: Type4CapabilityContainer
    do {
      cc = try discover()
    } catch {
      guard case .notFormatted(let why) = error else { throw error }
      let none = TagInfoFact("NDEF application", key: "ndefApplication", text: "no NDEF application", value: .bool(false))
      // A DESFire without the NDEF application (a factory card) is still named, from GetVersion.
      if mayBeDESFire, let desfire = try readDESFireVersion() {
        return TagInfo(platform: .type4, chip: desfire.version.productName, identifier: identifier,
                       memorySize: desfire.version.storageBytes ?? 0,
                       ndef: NDEFStatusReport(status: .notSupported, capacity: 0), capabilityContainer: [],
                       version: desfire.bytes, locks: [none],
                       details: [.ndefProblem(why)] + atsDetails + (try desfireFacts(desfire.version)))
      }
      return TagInfo(platform: .type4, chip: chipName(cc: nil), identifier: identifier, memorySize: 0,
                     ndef: NDEFStatusReport(status: .notSupported, capacity: 0), capabilityContainer: [],
                     locks: [none], details: [.ndefProblem(why)] + atsDetails)
    }
    let report = try queryNDEFStatus()
    func access(_ label: String, key: String, _ b: UInt8) -> TagInfoFact {
      let (words, meaning) = b == 0x00 ? ("00 (granted)", "granted")
        : (b == 0xFF ? ("FF (none)", "none") : ("\(hexString([b])) (proprietary)", "proprietary"))
      return TagInfoFact(label, key: key, text: "\(label == "NDEF file write access" ? label : "read access") \(words)",
                         value: accessValue(b, meaning: meaning))
    }
    let locks = [access("NDEF file write access", key: "writeAccess", cc.writeAccess),
                 access("NDEF file read access", key: "readAccess", cc.readAccess)]
    let aid = isVersion1 ? "D2760000850100" : "D2760000850101"
    let (read, write) = (readChunk(cc), writeChunk(cc))
    var details: [TagInfoFact] = [
      TagInfoFact("Application", key: "application",
                  text: isVersion1 ? "NDEF Tag Application v1 (\(aid))" : "NDEF Tag Application (\(aid))",
                  value: .members(["aid": .string(aid), "version": .number(isVersion1 ? 1 : 2)])),
      TagInfoFact("Mapping version", key: "mappingVersion", text: cc.versionText, value: .string(cc.versionText)),
      TagInfoFact("MLe / MLc", key: "maxData", text: "\(cc.maxResponseData) / \(cc.maxCommandData) bytes",
                  value: .members(["mle": .number(cc.maxResponseData), "mlc": .number(cc.maxCommandData)])),
      TagInfoFact("NDEF file", key: "ndefFile",
                  text: "\(hexString(cc.ndefFileID)), \(cc.ndefFileSize) bytes, \(cc.lengthFieldSize)-byte length field",
                  value: .members(["id": .bytes(cc.ndefFileID), "size": .number(cc.ndefFileSize),
                                   "lengthFieldSize": .number(cc.lengthFieldSize)])),
      TagInfoFact("Link", key: "link", text: "\(read) bytes per READ BINARY, \(write) per UPDATE BINARY",
                  value: .members(["readBinaryBytes": .number(read), "updateBinaryBytes": .number(write)])),
    ]
    details += atsDetails
    // Only GetVersion names a 424 DNA (NTAG424Identification, as `sdm setup` and `keys` identify
    // it); the ATS only decides whether to ask. A tag that looks like one but is not says why.
    if mayBeNTAG424 {
      switch try readNTAG424() {
      case .success(let ntag424):
        var info = TagInfo(platform: .type4, chip: ntag424.chipName, identifier: identifier, memorySize: 416,
                           ndef: ntag424.ndefStatus(report),
                           capabilityContainer: cc.bytes, version: ntag424.versionBytes, locks: locks,
                           details: details + ntag424.facts)
        info.originalitySignature = ntag424.originality
        return info
      case .failure(let why):
        // A Part 3 reader shows a DESFire's historical byte as a 424 DNA's: ask it as a DESFire.
        if mayBeDESFire, let desfire = try readDESFireVersion() {
          return try desfireInfo(desfire, cc: cc, report: report, locks: locks, details: details)
        }
        details.append(TagInfoFact("Identification", key: "ntag424", text: why.description,
                                   value: .members(["identified": .bool(false), "error": .string(why.description)])))
      }
    } else if mayBeDESFire, let desfire = try readDESFireVersion() {
      return try desfireInfo(desfire, cc: cc, report: report, locks: locks, details: details)
    }
    return TagInfo(platform: .type4, chip: chipName(cc: cc), identifier: identifier,
                   memorySize: cc.length + cc.ndefFileSize, ndef: report,
                   capabilityContainer: cc.bytes, locks: locks, details: details)
  }

  /// A DESFire's info: named and sized from GetVersion, its version and free memory added.
  private func desfireInfo(_ desfire: (version: DESFireVersionInfo, bytes: [UInt8]), cc: Type4CapabilityContainer,
                           report: NDEFStatusReport, locks: [TagInfoFact], details: [TagInfoFact]) throws(TagError) -> TagInfo {
    TagInfo(platform: .type4, chip: desfire.version.productName, identifier: identifier,
            memorySize: desfire.version.storageBytes ?? cc.length + cc.ndefFileSize, ndef: report,
            capabilityContainer: cc.bytes, version: desfire.bytes, locks: locks,
            details: details + (try desfireFacts(desfire.version)))
  }

  /// The chip, as far as the CC tells: never a product (only GetVersion names the chip).
  private func chipName(cc: Type4CapabilityContainer?) -> String {
    guard let cc else { return "ISO-DEP card" }
    return "Type 4 tag (mapping version \(cc.versionText))"
  }

  private var atsDetails: [TagInfoFact] {
    if let ats { return [.bytes("ATS", key: "ats", ats)] }
    if !historicalBytes.isEmpty { return [.bytes("Historical bytes", key: "historicalBytes", historicalBytes)] }
    return []
  }
}
