import NFCTransport

/// How `scan` and `info` tell a MIFARE DESFire among Type 4 tags: GetVersion, asked only when the
/// ATS is a DESFire's (or, on a Part 3 reader that shows only the historical bytes, when those are
/// the DESFire's and the 424 DNA's one byte 80h), as the NTAG 424 DNA is told.
extension Type4Tag {
  /// The ATS of a MIFARE DESFire EV1, EV2 and EV3 (FSCI 5, TA 77h, TB 81h, TC 02h, historical
  /// byte 80h; MF3ICDx21_41_81 §8, the ISO/IEC 14443-4 parameters, and NXP TagInfo's reports).
  static let desfireATS: [UInt8] = [0x06, 0x75, 0x77, 0x81, 0x02, 0x80]

  /// Whether the ATS allows the tag to be a DESFire, so that `info` asks it GetVersion.
  var mayBeDESFire: Bool { ats.map { $0 == Self.desfireATS } ?? (historicalBytes == [0x80]) }

  /// GetVersion's answer when it names a MIFARE DESFire, else nil (another chip, or a status:
  /// then it is some other Type 4 tag). Only a lost link is thrown.
  func readDESFireVersion() throws(TagError) -> (version: DESFireVersionInfo, bytes: [UInt8])? {
    let card = DESFireCard(link: link)
    let bytes: [UInt8]
    do {
      bytes = try card.send(0x60, name: "GetVersion")
    } catch {
      if case .link = error { throw error.tagError }
      return nil
    }
    guard let version = try? DESFireVersionInfo(parsing: bytes), version.isDESFire else { return nil }
    return (version, bytes)
  }

  /// What `info` adds for a DESFire: the version and the free memory (GetFreeMemory, free at the
  /// PICC level of an EV1: MF3ICDx21_41_81 §9; not asked of a DESFire Light, which lacks it).
  func desfireFacts(_ version: DESFireVersionInfo) throws(TagError) -> [TagInfoFact] {
    let hw = version.hardware, sw = version.software
    let text = "hardware \(hw.majorVersion).\(hw.minorVersion), software \(sw.majorVersion).\(sw.minorVersion), "
      + "\(version.storageText), produced in week \(hexString([version.productionWeek])) of 20\(hexString([version.productionYear])), "
      + "batch \(hexString(version.batchNumber))"
    var facts = [TagInfoFact("Version", key: "desfireVersion", text: text, value: .members([
      "generation": .string(version.isLight ? "Light" : version.generation.description),
      "hardware": .members(["vendor": .number(Int(hw.vendor)), "type": .number(Int(hw.type)), "subType": .number(Int(hw.subType)),
                            "major": .number(Int(hw.majorVersion)), "minor": .number(Int(hw.minorVersion)),
                            "storageSize": .number(Int(hw.storageSize))]),
      "software": .members(["major": .number(Int(sw.majorVersion)), "minor": .number(Int(sw.minorVersion))]),
      "storageBytes": version.storageBytes.map { .number($0) } ?? .null,
      "uid": .bytes(version.uid),
      "productionWeek": .string(hexString([version.productionWeek])),
      "productionYear": .string(hexString([version.productionYear])),
      "batch": .bytes(version.batchNumber),
    ]))]
    guard !version.isLight else { return facts }  // a Light has no GetFreeMemory: its files are fixed
    do {
      let free = try DESFireCard(link: link).freeMemory()
      facts.append(TagInfoFact("Free memory", key: "freeMemory", text: "\(free) bytes", value: .number(free)))
    } catch {
      if case .link = error { throw error.tagError }
      facts.append(TagInfoFact("Free memory", key: "freeMemory", text: error.description,
                               value: .members(["error": .string(error.description)])))
    }
    return facts
  }
}
