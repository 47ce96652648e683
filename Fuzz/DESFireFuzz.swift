// libFuzzer entry point over the host's MIFARE DESFire answer parsers (Sources/NFCTags/DESFire):
// GetVersion (`DESFireVersionInfo`), GetKeySettings (`DESFireKeySettingsInfo`), AIDs on the wire,
// the native status table, GetFileSettings (`DESFireFileSettings`), a GetDFNames entry
// (`DESFireDFNameEntry`), and `DESFireCard`'s wrapped commands (`90 Cmd 00 00 [Lc data] 00`,
// answers `data 91 xx`, `91 AF` frames fetched and joined, long commands sent in frames) against a
// scripted card whose every answer comes from the input; then a Type 4 tag with a DESFire's ATS
// (`info` and `format`, which ask GetVersion, GetFreeMemory, the key settings, file settings).
// Built by scripts/fuzz.sh with NFCTransport and NFCTags (in the "tags" binary).
//
// Input: byte 0 picks the part (0 GetVersion, 1 key settings, 2 AIDs, status bytes, file settings and a
// GetDFNames entry, 3 a card
// command, 4 a Type 4 DESFire's info, format, read); for 3 and 4 byte 1 picks the command and its
// parameters come next (see `runDESFireCommand`), then the answers, each a control byte: 00-3F that
// many data bytes and `91`, then the next input byte as the status; 40-7F (c & 3F) data bytes and
// `91 AF`; 80-BF (c & 3F) raw bytes (no status word, or an ISO one); C0-FF a link error.
//
// Invariants: never a crash or a hang; at most `DESFireCard.maxFrames` answer frames per command
// (plus the frames of the command itself); what a command returns is the answers' data joined,
// never more; a parse that succeeds has the fields of the bytes (the UID from byte 14, the storage
// size from the size byte, the key count from the low nibble; a GetDFNames entry from 6 to 21
// bytes, its DF name the bytes after the AID and ISO FID; GetDFNames' entries exactly the frames' bytes).

/// A card whose answers come from the fuzz input; records the data of each answer.
final class DESFireScriptedLink: Transceiver {
  var input: ArraySlice<UInt8>
  let capabilities = LinkCapabilities(maxResponseLength: 258, maxCommandLength: 261, rawCommands: false)
  /// Exchanges since the last `startCommand()`.
  var exchanges = 0
  /// The answers' data (without status word) since the last `startCommand()`.
  var received: [UInt8] = []

  init(input: ArraySlice<UInt8>) { self.input = input }

  func startCommand() {
    exchanges = 0
    received = []
  }

  func take(_ n: Int) -> [UInt8] {
    let part = Array(input.prefix(n))
    input = input.dropFirst(part.count)
    return part + [UInt8](repeating: 0, count: n - part.count)
  }

  func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    exchanges += 1
    // Every exchange takes at least one input byte, so a host that loops without bound is caught.
    guard exchanges <= 4096 else { fatalError("the host goes on exchanging after \(exchanges) frames") }
    guard let control = input.popFirst() else { throw .tagRemoved }
    switch control {
    case 0x00...0x3F:
      let data = take(Int(control))
      received += data
      return data + [0x91] + take(1)
    case 0x40...0x7F:
      let data = take(Int(control & 0x3F))
      received += data
      return data + [0x91, 0xAF]
    case 0x80...0xBF:
      let raw = take(Int(control & 0x3F))
      // Only a `91 xx` answer's data reaches the host's command.
      if raw.count >= 2, raw[raw.count - 2] == 0x91 { received += raw.dropLast(2) }
      return raw
    default:
      switch control & 0x03 {
      case 0: throw .timeout
      case 1: throw .tagRemoved
      case 2: let sw = take(2); throw .status(StatusWord(sw[0], sw[1]))
      default: throw .transport("hostile transport failure")
      }
    }
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  guard let selector = input.first else { return 0 }
  let bytes = Array(input.dropFirst())
  switch selector % 5 {
  case 0: checkDESFireVersion(bytes)
  case 1:  // GetKeySettings: two bytes only, the count and type from the second
    guard let settings = try? DESFireKeySettingsInfo(parsing: bytes) else { return 0 }
    guard bytes.count == 2, settings.settings == bytes[0], settings.keyCount == Int(bytes[1] & 0x0F),
          (settings.keyType == nil) == (bytes[1] & 0xC0 == 0xC0) else { fatalError("GetKeySettings parsed \(bytes)") }
    _ = (settings.masterKeyChangeable, settings.freeDirectoryList, settings.freeCreateDelete, settings.settingsChangeable)
  case 2:  // AIDs from 3 bytes round-trip; every status byte has a line; file settings
    if let aid = DESFireApplicationID(wire: bytes) {
      guard bytes.count == 3, aid.wireBytes == bytes, DESFireApplicationID(aid.value) == aid, aid.description.count == 6 else {
        fatalError("AID \(bytes) does not round-trip")
      }
    } else if bytes.count == 3 {
      fatalError("3 bytes refused as an AID")
    }
    for byte in bytes.prefix(16) {
      let status = DESFireAnswerStatus(rawValue: byte)
      guard !status.description.isEmpty, !status.meaning.isEmpty else { fatalError("status \(byte) has no text") }
      _ = (status.name, DESFireCommandError.status(status, command: "fuzz").tagError)
    }
    // GetFileSettings: the first 4 bytes as they are; 17 bytes are enough for every file type.
    if let file = try? DESFireFileSettings(parsing: bytes) {
      guard bytes.count >= 4, file.fileTypeByte == bytes[0], file.communicationByte == bytes[1], file.rest == Array(bytes[4...]),
            (file.size != nil) == (file.fileType == .standardData || file.fileType == .backupData) else {
        fatalError("GetFileSettings parsed \(bytes)")
      }
      _ = (file.communication, file.valueLimits, file.records, DESFireFileAccess.rightText(file.access.read))
    } else if bytes.count >= 17 {
      fatalError("GetFileSettings of \(bytes.count) bytes refused")
    }
    // GetDFNames: one entry, AID(3) ISO FID(2) DF name(1-16); any other length is malformed.
    if let entry = try? DESFireDFNameEntry(parsing: bytes) {
      guard (6...21).contains(bytes.count), entry.aid.wireBytes == Array(bytes[0..<3]),
            entry.isoFileID == UInt16(bytes[3]) | UInt16(bytes[4]) << 8, entry.dfName == Array(bytes[5...]) else {
        fatalError("GetDFNames entry parsed \(bytes)")
      }
    } else if (6...21).contains(bytes.count) {
      fatalError("GetDFNames entry of \(bytes.count) bytes refused")
    }
  case 3:
    guard bytes.count >= 1 else { return 0 }
    let link = DESFireScriptedLink(input: bytes.dropFirst())
    runDESFireCommand(bytes[0], link: link)
  default:
    guard bytes.count >= 1 else { return 0 }
    runDESFireType4(bytes[0], link: DESFireScriptedLink(input: bytes.dropFirst()))
  }
  return 0
}

/// GetVersion's answer: 28 bytes or more parse, with the fields where the data sheet puts them.
func checkDESFireVersion(_ bytes: [UInt8]) {
  guard let version = try? DESFireVersionInfo(parsing: bytes) else {
    if bytes.count >= 28 { fatalError("GetVersion refused \(bytes.count) bytes") }
    return
  }
  guard bytes.count >= 28, version.hardware.vendor == bytes[0], version.hardware.storageSize == bytes[5],
        version.software.majorVersion == bytes[10], version.uid == Array(bytes[14..<21]),
        version.batchNumber == Array(bytes[21..<26]), version.productionWeek == bytes[26], version.productionYear == bytes[27]
  else { fatalError("GetVersion fields out of place for \(bytes.count) bytes") }
  let exponent = Int(bytes[5] >> 1)
  guard version.storageBytes == (exponent <= 30 ? 1 << exponent : nil) else { fatalError("storage size from \(bytes[5])") }
  guard !version.productName.isEmpty, !version.storageText.isEmpty else { fatalError("GetVersion has no name") }
  _ = version.generation.description
}

/// One `DESFireCard` command against the scripted card, its result checked against the answers.
func runDESFireCommand(_ pick: UInt8, link: DESFireScriptedLink) {
  let card = DESFireCard(link: link)
  // The command's own frames: a long WriteData goes in frames of `frameData` bytes.
  var commandFrames = 1
  func check(_ result: [UInt8]) {
    guard result.count <= link.received.count else {
      fatalError("\(result.count) bytes returned from \(link.received.count) received")
    }
    guard link.exchanges <= commandFrames + DESFireCard.maxFrames else { fatalError("\(link.exchanges) frames for one command") }
  }
  func failed(_ error: DESFireCommandError) {
    guard link.exchanges <= commandFrames + DESFireCard.maxFrames else { fatalError("\(link.exchanges) frames for one command") }
    guard !error.description.isEmpty else { fatalError("an error without a line") }
    _ = (error.tagError, error.status)
  }
  link.startCommand()
  do throws(DESFireCommandError) {
    switch pick % 12 {
    case 0:
      let version = try card.getVersion()
      guard link.received.count >= 28, version.uid == Array(link.received[14..<21]) else { fatalError("GetVersion from frames") }
    case 1:
      let aids = try card.applicationIDs()
      guard aids.count * 3 == link.received.count, aids.allSatisfy({ $0.value <= 0xFF_FFFF }) else { fatalError("AIDs") }
    case 2:
      let settings = try card.keySettings()
      guard (0...15).contains(settings.keyCount) else { fatalError("key count \(settings.keyCount)") }
    case 3:
      let free = try card.freeMemory()
      guard (0...0xFF_FFFF).contains(free) else { fatalError("free memory \(free)") }
    case 4:
      check(try card.fileIDs())
    case 5:
      let size = try card.dataFileSize(link.take(1)[0])
      guard (0...0xFF_FFFF).contains(size) else { fatalError("file size \(size)") }
    case 6:
      let header = link.take(2)
      let length = Int(header[1]) * 8
      let read = try card.readData(file: header[0], offset: 0, length: length)
      check(read)
      guard length == 0 || read.count == length else { fatalError("ReadData gave \(read.count) of \(length)") }
    case 7:
      let length = 1 + Int(link.take(1)[0]) * 2
      commandFrames = (7 + length + DESFireCard.frameData - 1) / DESFireCard.frameData
      try card.writeData(file: 1, offset: 0, [UInt8](repeating: 0x5A, count: length))
    case 8:
      let raw = link.take(2)
      guard let aid = DESFireApplicationID(UInt32(raw[0]) << 8 | UInt32(raw[1])) else { return }
      try card.createApplication(aid, settings: 0x0F, keyCount: Int(raw[1] & 0x0F), keyType: .aes, isoFileID: 0xE110,
                                 dfName: raw[0] & 1 == 0 ? nil : [0xD2, 0x76, 0x00, 0x00, 0x85, 0x01, 0x01])
    case 9:
      try card.selectApplication(.ndefApplication)
      try card.createStandardDataFile(2, isoFileID: 0xE104, access: .free, size: 32)
    case 10:
      let entries = try card.dfNames()
      guard entries.reduce(0, { $0 + 5 + $1.dfName.count }) == link.received.count,
            Set(entries.map(\.aid)).count == entries.count, entries.allSatisfy({ (1...16).contains($0.dfName.count) }) else {
        fatalError("GetDFNames: \(entries.count) entries from \(link.received.count) bytes")
      }
    default:
      let code = link.take(1)[0]
      let data = link.take(Int(link.take(1)[0]) % 128)
      commandFrames = max(1, (data.count + DESFireCard.frameData - 1) / DESFireCard.frameData)
      check(try card.send(code, data, name: "fuzz"))
    }
    check([])
  } catch {
    failed(error)
  }
}

/// A Type 4 tag whose ATS is a DESFire's: `info` (GetVersion, GetFreeMemory), `format` (AN11004's
/// application and files), then the NDEF status and a read.
func runDESFireType4(_ shape: UInt8, link: DESFireScriptedLink) {
  // The ACR122U's ATR carries the whole ATS; a Part 3 reader's only the historical byte 80h.
  let atr: [UInt8] = shape & 1 == 0 ? [0x3B, 0x86, 0x80, 0x01, 0x06, 0x75, 0x77, 0x81, 0x02, 0x80, 0x00]
                                    : [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80]
  let tag = Type4Tag(identifier: [0x04, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06], link: link, atr: atr)
  func step(_ body: () throws(TagError) -> Void) {
    link.startCommand()
    do { try body() } catch { _ = error.description }
  }
  if shape & 2 == 0 { step { () throws(TagError) in _ = try tag.info() } }
  step { () throws(TagError) in try tag.format() }
  step { () throws(TagError) in
    let report = try tag.queryNDEFStatus()
    if report.capacity < 0 { fatalError("negative capacity \(report.capacity)") }
  }
  step { () throws(TagError) in _ = try tag.readNDEF() }
}
