import NFCTransport
import NTAG424Commands

/// What `info` reads of an NTAG 424 DNA without a key: GetVersion, GetFileSettings of the three
/// files, GetKeyVersion of the five keys and Read_Sig, each a native command in CommMode.Plain,
/// which the chip takes outside an authentication (NT4H2421Gx datasheet §9.1.8; GetVersion
/// §10.5.2, GetKeyVersion §10.6.2, GetFileSettings §10.7.2, and Read_Sig; NT4H2421Tx the same for
/// the 424 DNA TT).
///
/// The signature is read, not checked: the check needs ECDSA on secp224r1, which the tool does
/// with OpenSSL (NTAG424Originality), a library these platforms do not link.
struct NTAG424Reading {
  var version: ChipVersion
  /// The GetVersion frames' data, joined.
  var versionBytes: [UInt8]
  /// Each file's properties, or the status the tag answered.
  var files: [(number: UInt8, result: Result<FileProperties, NTAG424InfoFailure>)]
  /// Each key's version, or the status the tag answered.
  var keyVersions: [Result<UInt8, NTAG424InfoFailure>]
  /// Read_Sig's 56 bytes, or why there are none.
  var signature: Result<[UInt8], NTAG424InfoFailure>
}

extension NTAG424Reading {
  /// The NDEF status with the NDEF file's own access rights: the 424 DNA's CC keeps saying write
  /// access 00h whatever its file settings, and a file whose Write and Read&Write rights are both
  /// Fh ("no access", NT4H2421Gx datasheet §8.2.3.3: `nfctag lock`, `provision --lock`) takes no
  /// write from anyone, so it is read-only.
  func ndefStatus(_ report: NDEFStatusReport) -> NDEFStatusReport {
    guard report.status == .readWrite,
          let file = files.first(where: { $0.number == NativeCommand.ndefFile }),
          case .success(let properties) = file.result,
          properties.settings.accessRights.write == .never, properties.settings.accessRights.readWrite == .never
    else { return report }
    var readOnly = report
    readOnly.status = .readOnly
    return readOnly
  }
}

/// Why one of the 424 DNA's plain commands gave nothing: its status word, or an answer that does
/// not parse.
struct NTAG424InfoFailure: Error, CustomStringConvertible {
  var description: String
  /// The status word the tag answered, when that is the reason.
  var status: (UInt8, UInt8)? = nil
}

extension Type4Tag {
  /// The ATS of an NTAG 424 DNA (NT4H2421Gx datasheet §8.1.1: FSCI 7, TA 77h, TB 71h, TC 02h,
  /// historical byte 80h); a Part 3 reader shows only the historical byte.
  static let ntag424ATS: [UInt8] = [0x06, 0x77, 0x77, 0x71, 0x02, 0x80]

  /// The most data bytes of an UPDATE BINARY that goes in one ISO/IEC 14443-4 frame of a 424 DNA,
  /// which it then protects against tearing (NT4H2421Gx datasheet §8.2.3.1): its ATS announces
  /// FSCI 7, frames of 128 bytes (§8.1.1), which hold the block's PCB (1), a CID (1: TC 02h lets
  /// the reader send one) and the CRC (2) around the APDU, whose header takes 5.
  static let ntag424SingleFrameUpdate = 128 - (1 + 1 + 2) - 5

  /// Whether the ATS allows the tag to be a 424 DNA, so that `info` asks it GetVersion.
  var mayBeNTAG424: Bool { ats.map { $0 == Self.ntag424ATS } ?? (historicalBytes == [0x80]) }

  /// The 424 DNA's facts, or why the tag is not one when its answer to GetVersion does not name
  /// a 424 DNA (``NTAG424Identification``, the identification `sdm setup` and `keys` use too;
  /// then it is some other Type 4 tag, and nothing else is sent).
  /// - Throws: a link failure (the tag left).
  func readNTAG424() throws(TagError) -> Result<NTAG424Reading, NTAG424InfoFailure> {
    let versionBytes: [UInt8], identification: NTAG424Identification
    switch try native(NativeCommand.getVersion, what: "GetVersion") {
    case .success(let data):
      versionBytes = data
      identification = NTAG424Identification(getVersionData: data, sw1: 0x91, sw2: 0x00)
    case .failure(let why):
      guard let sw = why.status else { return .failure(NTAG424InfoFailure(description: NTAG424Identification.refusal("GetVersion \(why)"))) }
      versionBytes = []
      identification = NTAG424Identification(getVersionData: [], sw1: sw.0, sw2: sw.1)
    }
    guard case .ntag424(let version) = identification else {
      return .failure(NTAG424InfoFailure(description: identification.refusal ?? ""))
    }
    protectsSingleFrameWrites = true  // the chip's own answer names it: single-frame writes are tearing protected
    var files: [(UInt8, Result<FileProperties, NTAG424InfoFailure>)] = []
    for file in [NativeCommand.capabilityContainerFile, NativeCommand.ndefFile, NativeCommand.proprietaryFile] {
      let answer = try native(NativeCommand.getFileSettings, header: [file], what: "GetFileSettings")
      files.append((file, answer.flatMap { data in
        Result { () throws(NTAG424Error) in try FileProperties(parsing: data) }.mapError { NTAG424InfoFailure(description: "\($0)") }
      }))
    }
    var keys: [Result<UInt8, NTAG424InfoFailure>] = []
    for key in UInt8(0)...4 {
      let answer = try native(NativeCommand.getKeyVersion, header: [key], what: "GetKeyVersion")
      keys.append(answer.flatMap { data in
        Result { () throws(NTAG424Error) in try NativeCommand.parseKeyVersion(data) }.mapError { NTAG424InfoFailure(description: "\($0)") }
      })
    }
    let signature = try native(NativeCommand.readSignature, header: [0x00], what: "Read_Sig").flatMap { data in
      Result { () throws(NTAG424Error) in try NativeCommand.parseSignature(data) }.mapError { NTAG424InfoFailure(description: "\($0)") }
    }
    return .success(NTAG424Reading(version: version, versionBytes: versionBytes, files: files, keyVersions: keys, signature: signature))
  }

  /// One native command in CommMode.Plain (`90 Cmd 00 00 [Lc header] 00`); the frames of a `91 AF`
  /// chain joined. The data on `91 00`, the status otherwise.
  private func native(_ code: UInt8, header: [UInt8] = [], what: String) throws(TagError) -> Result<[UInt8], NTAG424InfoFailure> {
    guard var command = try? NativeCommand.plainCommand(code, header: header) else {
      return .failure(NTAG424InfoFailure(description: "\(what) cannot be framed"))
    }
    var data: [UInt8] = []
    for _ in 0..<4 {
      let (part, sw) = try exchange(command, what: what, address: nil)
      data += part
      switch (sw.sw1, sw.sw2) {
      case (0x91, 0x00): return .success(data)
      case (0x91, 0xAF): command = [0x90, NativeCommand.additionalFrame, 0x00, 0x00, 0x00]
      default: return .failure(NTAG424InfoFailure(description: "answered \(hexString(sw.bytes, separator: " "))", status: (sw.sw1, sw.sw2)))
      }
    }
    return .failure(NTAG424InfoFailure(description: "answered more frames than the command has"))
  }
}

extension NTAG424Reading {
  /// The chip's name: "NTAG 424 DNA" or "NTAG 424 DNA TT".
  var chipName: String { "\(version.chip)" }

  /// The UID the originality signature is over: GetVersion's, which is the real one (a tag that
  /// shows a random ID answers zeros there, and then the signature cannot be checked without a key).
  var signedUID: [UInt8]? { version.uid.allSatisfy { $0 == 0 } ? nil : version.uid }

  /// The signature and the UID it is over, or why it cannot be checked.
  var originality: OriginalitySignatureRead {
    guard let uid = signedUID else {
      return OriginalitySignatureRead(uid: [], signature: [], problem: "the tag shows a random ID; the signature is over the real UID, which GetCardUID gives with a key")
    }
    switch signature {
    case .success(let bytes): return OriginalitySignatureRead(uid: uid, signature: bytes)
    case .failure(let why): return OriginalitySignatureRead(uid: uid, signature: [], problem: "Read_Sig \(why)")
    }
  }

  /// The facts `info` shows, in order: version, the three files, the key versions, and the
  /// originality signature as read (the tool adds what checking it says).
  var facts: [TagInfoFact] {
    let hw = version.hardware, sw = version.software
    let versionText = "hardware \(hexString([hw.majorVersion])).\(hexString([hw.minorVersion])), software "
      + "\(hexString([sw.majorVersion])).\(hexString([sw.minorVersion])), \(ChipVersion.storageText(hw.storageSize)), "
      + (version.strongBackModulation ? "strong" : "standard") + " back modulation, produced in week "
      + "\(hexString([version.productionWeek])) of 20\(hexString([version.productionYear])), batch \(hexString(version.batchNumber))"
    var facts = [TagInfoFact("Version", key: "chipVersion", text: versionText, value: .members([
      "hardware": .members(["major": .number(Int(hw.majorVersion)), "minor": .number(Int(hw.minorVersion)),
                            "subType": .number(Int(hw.subType)), "storageSize": .number(Int(hw.storageSize))]),
      "software": .members(["major": .number(Int(sw.majorVersion)), "minor": .number(Int(sw.minorVersion))]),
      "strongBackModulation": .bool(version.strongBackModulation),
      "productionWeek": .string(hexString([version.productionWeek])),
      "productionYear": .string(hexString([version.productionYear])),
      "batch": .bytes(version.batchNumber),
    ]))]
    for (number, result) in files {
      let name = ["CC", "NDEF", "proprietary"][Int(number) - 1]
      let label = "File \(hexString([number])) (\(name))", key = "file\(number)Settings"
      switch result {
      case .success(let file): facts.append(TagInfoFact(label, key: key, text: file.summary, value: file.infoValue))
      case .failure(let why): facts.append(TagInfoFact(label, key: key, text: why.description, value: .members(["error": .string(why.description)])))
      }
    }
    let versions = keyVersions.enumerated().map { key, result in
      switch result {
      case .success(let v): return ("key \(key): \(hexString([v]))", TagInfoValue.number(Int(v)))
      case .failure(let why): return ("key \(key): \(why)", TagInfoValue.null)
      }
    }
    facts.append(TagInfoFact("Key versions", key: "keyVersions", text: versions.map(\.0).joined(separator: ", "),
                             value: .list(versions.map(\.1))))
    return facts
  }
}

extension FileProperties {
  /// "256 bytes, Plain; read free, write key 0, read&write key 0, change key 0; SDM: …".
  var summary: String {
    let rights = settings.accessRights
    let mode = switch settings.communicationMode { case .plain: "Plain"; case .mac: "MAC"; case .full: "Full" }
    var text = "\(fileSize) bytes, \(mode); read \(rights.read), write \(rights.write), read&write \(rights.readWrite), change \(rights.change)"
    if let sdm = settings.sdm { text += "; SDM: " + sdm.summary } else { text += "; SDM off" }
    return text
  }

  var infoValue: TagInfoValue {
    let rights = settings.accessRights
    let mode = switch settings.communicationMode { case .plain: "plain"; case .mac: "mac"; case .full: "full" }
    return .members([
      "size": .number(fileSize), "communicationMode": .string(mode),
      "accessRights": .members(["read": rights.read.infoValue, "write": rights.write.infoValue,
                                "readWrite": rights.readWrite.infoValue, "change": rights.change.infoValue]),
      "sdm": settings.sdm?.infoValue ?? .null,
    ])
  }
}

extension AccessCondition {
  /// A key number, "free", "never", or "reserved".
  var infoValue: TagInfoValue {
    switch self {
    case .key(let number): return .number(Int(number))
    case .free: return .string("free")
    case .never: return .string("never")
    case .reserved: return .string("reserved")
    }
  }
}

extension SDMSettings {
  /// What is mirrored where, offsets in bytes from the start of the file (NT4H2421Gx datasheet §9.3).
  var summary: String {
    var parts: [String] = []
    let rights = accessRights
    switch rights.metaRead {
    case .free:
      if let uidOffset { parts.append("UID at \(uidOffset) (plain)") }
      if let readCounterOffset { parts.append("counter at \(readCounterOffset) (plain)") }
    case .key(let key):
      let what = [options.contains(.uid) ? "UID" : nil, options.contains(.readCounter) ? "counter" : nil].compactMap { $0 }
      parts.append("PICCData (\(what.isEmpty ? "nothing" : what.joined(separator: " and "))) at \(piccDataOffset.map(String.init) ?? "?"), key \(key)")
    default:
      parts.append("no UID or counter mirror")
    }
    if case .key(let key) = rights.fileRead {
      if let encryptedFileDataOffset, let encryptedFileDataLength {
        parts.append("SDMENCFileData at \(encryptedFileDataOffset), \(encryptedFileDataLength) digits")
      }
      parts.append("SDMMAC at \(macOffset.map(String.init) ?? "?") over the bytes from \(macInputOffset.map(String.init) ?? "?"), key \(key)")
    } else {
      parts.append("no SDMMAC")
    }
    if let readCounterLimit { parts.append("counter limit \(readCounterLimit)") }
    parts.append("counter retrieval \(rights.counterRetrieval)")
    return parts.joined(separator: ", ")
  }

  var infoValue: TagInfoValue {
    func number(_ value: Int?) -> TagInfoValue { value.map { .number($0) } ?? .null }
    return .members([
      "options": .number(Int(options.rawValue)),
      "uid": .bool(options.contains(.uid)), "readCounter": .bool(options.contains(.readCounter)),
      "metaRead": accessRights.metaRead.infoValue, "fileRead": accessRights.fileRead.infoValue,
      "counterRetrieval": accessRights.counterRetrieval.infoValue,
      "uidOffset": number(uidOffset), "readCounterOffset": number(readCounterOffset),
      "piccDataOffset": number(piccDataOffset), "macInputOffset": number(macInputOffset),
      "encryptedFileDataOffset": number(encryptedFileDataOffset),
      "encryptedFileDataLength": number(encryptedFileDataLength),
      "macOffset": number(macOffset), "readCounterLimit": number(readCounterLimit),
    ])
  }
}
