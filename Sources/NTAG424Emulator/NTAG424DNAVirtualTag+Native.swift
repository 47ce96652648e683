import NFCEmulator
import NTAG424

/// The native commands (CLA 90h, NT4H2421Gx datasheet §10.4–§10.8, Table 22).
///
/// Frames: `90 CMD 00 00 [Lc CmdHeader CmdData] [00]`; the answer is RespData, then `91 xx`
/// (Table 23). Outside an authentication every command travels in plain and only free (Eh) access
/// rights are granted. Inside one (after AuthenticateEV2First), each command's MAC is checked for
/// the current CmdCtr (`91 1E` when wrong) and its answer MACed or encrypted as its communication
/// mode says (§9.1.8–§9.1.10, ``PICCSession``): GetFileSettings, GetKeyVersion MAC; GetCardUID,
/// GetFileCounters, ChangeFileSettings, ChangeKey, SetConfiguration, Read_Sig Full; ReadData and
/// WriteData the file's CommMode. Any status but `91 00` and `91 AF` ends the authentication.
extension NTAG424DNAVirtualTag {
  /// The answer to one native command: its bytes with the status, or the error status.
  typealias Answer = Result<[UInt8], NTAG424Status>

  func nativeCommand(_ frame: [UInt8]) -> [UInt8] {
    guard let apdu = ShortAPDU(frame), apdu.p1 == 0, apdu.p2 == 0 else {
      endAuthentication()
      return NTAG424Status.lengthError.bytes
    }
    if apdu.ins != 0xAF {
      pendingAuthentication = nil
      pendingVersionFrame = nil
    }
    let answer: Answer
    switch apdu.ins {
    case 0x60: answer = getVersion(apdu.data)
    case 0xAF: answer = additionalFrame(apdu.data)
    case 0x71: answer = authenticatePart1(apdu.data, first: true)
    case 0x77: answer = authenticatePart1(apdu.data, first: false)
    case 0x3C: answer = readSignature(apdu.data)
    default:
      guard applicationSelected else { answer = .failure(.permissionDenied); break }
      switch apdu.ins {
      case 0x51: answer = getCardUID(apdu.data)
      case 0x5C: answer = setConfiguration(apdu.data)
      case 0x5F: answer = changeFileSettings(apdu.data)
      case 0x64: answer = getKeyVersion(apdu.data)
      case 0x8D: answer = writeData(apdu.data)
      case 0xAD: answer = readData(apdu.data)
      case 0xC4: answer = changeKey(apdu.data)
      case 0xF5: answer = getFileSettings(apdu.data)
      case 0xF6: answer = getFileCounters(apdu.data)
      default: answer = .failure(.illegalCommand)
      }
    }
    switch answer {
    case .success(let bytes): return bytes
    case .failure(let status):
      endAuthentication()
      return status.bytes
    }
  }

  // MARK: - Secure messaging

  /// CmdHeader and the plain CmdData: the MAC checked and the data decrypted inside an
  /// authentication, the body as it is outside one.
  func unwrap(_ code: UInt8, _ body: [UInt8], headerLength: Int,
              mode: CommunicationMode) -> Result<(header: [UInt8], data: [UInt8]), NTAG424Status> {
    guard body.count >= headerLength else { return .failure(.lengthError) }
    let header = Array(body[..<headerLength]), rest = Array(body[headerLength...])
    guard let session else { return .success((header, rest)) }
    guard !session.isExhausted else { return .failure(.authenticationError) }
    do throws(PICCMessagingError) {
      return .success((header, try session.unwrapCommand(code, header: header, body: rest, mode: mode)))
    } catch {
      return .failure(Self.status(of: error))
    }
  }

  /// RespData and `91 00`, MACed or encrypted inside an authentication (CmdCtr advances).
  func reply(_ data: [UInt8], mode: CommunicationMode) -> Answer {
    guard var current = session else { return .success(data + NTAG424Status.ok.bytes) }
    do throws(PICCMessagingError) {
      let body = try current.wrapResponse(data, mode: mode)
      session = current
      return .success(body + NTAG424Status.ok.bytes)
    } catch {
      return .failure(Self.status(of: error))
    }
  }

  static func status(of error: PICCMessagingError) -> NTAG424Status {
    NTAG424Status(rawValue: error.statusByte) ?? .memoryError
  }

  /// Whether access condition `condition` is granted now: free, or the session's key.
  func granted(_ condition: UInt8) -> Bool {
    condition == 0xE || (session.map { $0.keyNumber == condition } ?? false)
  }

  /// The file index (0–2) of FileNo 1–3.
  func fileIndex(_ number: UInt8) -> Int? { (1...3).contains(number) ? Int(number) - 1 : nil }

  // MARK: - GetVersion (§10.5.2)

  /// The three frames: hardware (NTAG, 50 pF, subtype 02h with strong back modulation and 82h
  /// with standard, as the HW option says: §10.5.2, Table 54; HW 30h.00h, 256 < storage < 512
  /// bytes, ISO 14443-4), software 01h.02h, production (UID, a fixed batch number, calendar week
  /// 26 of 2021). CWProd and YearProd are BCD, as the datasheet's GetVersion table gives them
  /// (§10.5.2): week 26 is 26h, 2021 is 21h.
  var versionFrames: [[UInt8]] {
    [[0x04, 0x04, hardwareOption & 0x01 == 0 ? 0x82 : 0x02, 0x30, 0x00, 0x11, 0x05],
     [0x04, 0x04, 0x02, 0x01, 0x02, 0x11, 0x05],
     identifier + [0xCF, 0x39, 0x41, 0x44, 0x40, 0x26, 0x21]]
  }

  private func getVersion(_ body: [UInt8]) -> Answer {
    if session == nil { guard body.isEmpty else { return .failure(.lengthError) } }
    if case .failure(let status) = unwrap(0x60, body, headerLength: 0, mode: .mac) { return .failure(status) }
    pendingVersionFrame = 1
    return .success(versionFrames[0] + NTAG424Status.additionalFrame.bytes)
  }

  private func additionalFrame(_ body: [UInt8]) -> Answer {
    if let pending = pendingAuthentication {
      pendingAuthentication = nil
      return authenticatePart2(body, pending)
    }
    guard let frame = pendingVersionFrame, body.isEmpty else { return .failure(.illegalCommand) }
    if frame == 1 {
      pendingVersionFrame = 2
      return .success(versionFrames[1] + NTAG424Status.additionalFrame.bytes)
    }
    pendingVersionFrame = nil
    guard session != nil else { return .success(versionFrames[2] + NTAG424Status.ok.bytes) }
    // The MAC of an authenticated GetVersion covers all three frames (Table 22, note 1).
    let all = versionFrames.flatMap { $0 }
    return reply(all, mode: .mac).map { Array($0.suffix(versionFrames[2].count + 8 + 2)) }
  }

  // MARK: - AuthenticateEV2First / NonFirst (§10.4.1, §10.4.2)

  private func authenticatePart1(_ body: [UInt8], first: Bool) -> Answer {
    guard let keyNumber = body.first else { return .failure(.lengthError) }
    var pcdCap2: [UInt8] = []
    if first {
      guard body.count >= 2, body.count == 2 + Int(body[1]), body[1] <= 6 else { return .failure(.lengthError) }
      pcdCap2 = Array(body[2...])
    } else {
      guard body.count == 1 else { return .failure(.lengthError) }
      guard session != nil else { return .failure(.permissionDenied) }
    }
    guard keyNumber <= 4 else { return .failure(.noSuchKey) }
    guard applicationSelected else { return .failure(.permissionDenied) }
    if testAuthenticationDelays > 0 {
      if testAuthenticationDelays != .max { testAuthenticationDelays -= 1 }
      return .failure(.authenticationDelay)
    }
    if first, testLRPMode {
      // Table 19: AES asked of an LRP tag is refused; LRP asked gets the 18-byte answer.
      guard let capabilities = pcdCap2.first, capabilities & 0x02 != 0 else { return .failure(.permissionDenied) }
      session = nil
      return .success([0x01] + (testRandomness?.rndB ?? random(16)) + NTAG424Status.additionalFrame.bytes)
    }
    // A key whose TotFailCtr reached TotFailCtrLimit is locked (Table 39).
    if failedCounterEnabled, failedAuthentications[Int(keyNumber)] >= failedCounterLimit { return .failure(.permissionDenied) }
    if first { session = nil }
    guard let key = try? AESKey(bytes: keys[Int(keyNumber)]),
          let challenge = try? PICCAuthentication(key: key, keyNumber: keyNumber, rndB: testRandomness?.rndB ?? random(16)) else {
      return .failure(.memoryError)
    }
    pendingAuthentication = (challenge, first, pcdCap2)
    return .success(challenge.encryptedRndB + NTAG424Status.additionalFrame.bytes)
  }

  private func authenticatePart2(_ body: [UInt8], _ pending: (challenge: PICCAuthentication, first: Bool, pcdCap2: [UInt8])) -> Answer {
    guard body.count == 32 else { return .failure(.lengthError) }
    let keyIndex = Int(pending.challenge.keyNumber)
    do throws(NTAG424Error) {
      let answer: (response: [UInt8], session: PICCSession)
      if pending.first {
        answer = try pending.challenge.answerFirst(
          body, transactionIdentifier: testRandomness?.transactionIdentifier ?? random(4),
          pdCap2: [0, 0, 0, 0] + pdCap2Tail, pcdCap2: pending.pcdCap2)
      } else {
        guard let transaction = session else { return .failure(.permissionDenied) }
        answer = try pending.challenge.answerNonFirst(body, continuing: transaction)
      }
      session = answer.session
      if failedCounterEnabled, failedAuthentications[keyIndex] > 0 {
        failedAuthentications[keyIndex] -= min(failedAuthentications[keyIndex], failedCounterDecrement)
        memoryGeneration += 1
      }
      return .success(answer.response + NTAG424Status.ok.bytes)
    } catch .authenticationFailed {
      if failedCounterEnabled, failedAuthentications[keyIndex] < .max {
        failedAuthentications[keyIndex] += 1
        memoryGeneration += 1
      }
      return .failure(.authenticationError)
    } catch .invalidLength {
      return .failure(.lengthError)
    } catch {
      return .failure(.memoryError)
    }
  }

  // MARK: - Keys (§10.6)

  private func changeKey(_ body: [UInt8]) -> Answer {
    guard let current = session, current.keyNumber == 0 else { return .failure(.authenticationError) }
    let header: [UInt8], data: [UInt8]
    switch unwrap(0xC4, body, headerLength: 1, mode: .full) {
    case .success(let parts): (header, data) = parts
    case .failure(let status): return .failure(status)
    }
    let keyNumber = header[0]
    guard keyNumber <= 4 else { return .failure(.noSuchKey) }
    let decoded: (newKey: [UInt8], version: UInt8)
    do throws(PICCMessagingError) {
      decoded = try PICCKeyChange.decode(data, keyNumber: keyNumber, oldKey: keys[Int(keyNumber)])
    } catch {
      return .failure(Self.status(of: error))
    }
    keys[Int(keyNumber)] = decoded.newKey
    keyVersions[Int(keyNumber)] = decoded.version
    memoryGeneration += 1
    guard keyNumber == current.keyNumber else { return reply([], mode: .full) }
    // The session's own key: `91 00` without a MAC, and the authentication ends (AN12196 §5.16).
    endAuthentication()
    return .success(NTAG424Status.ok.bytes)
  }

  private func getKeyVersion(_ body: [UInt8]) -> Answer {
    unwrap(0x64, body, headerLength: 1, mode: .mac).flatMap { header, data in
      guard data.isEmpty else { return .failure(.lengthError) }
      guard header[0] <= 4 else { return .failure(.noSuchKey) }
      return reply([keyVersions[Int(header[0])]], mode: .mac)
    }
  }

  // MARK: - GetCardUID, Read_Sig, SetConfiguration (§10.5)

  private func getCardUID(_ body: [UInt8]) -> Answer {
    guard session != nil else { return .failure(.authenticationError) }
    return unwrap(0x51, body, headerLength: 0, mode: .mac).flatMap { _, data in
      data.isEmpty ? reply(identifier, mode: .full) : .failure(.lengthError)
    }
  }

  private func readSignature(_ body: [UInt8]) -> Answer {
    unwrap(0x3C, body, headerLength: 1, mode: .mac).flatMap { header, data in
      guard data.isEmpty else { return .failure(.lengthError) }
      guard header[0] == 0x00 else { return .failure(.parameterError) }
      return reply(originalitySignature, mode: .full)
    }
  }

  /// Options 00h (PICC configuration; Random ID not modelled), 04h (SMConfig), 05h (PDCap2.5 and
  /// .6; LRP not modelled), 0Ah (failed-authentication counter), 0Bh (HW option), Table 50.
  private func setConfiguration(_ body: [UInt8]) -> Answer {
    guard let current = session, current.keyNumber == 0 else { return .failure(.authenticationError) }
    return unwrap(0x5C, body, headerLength: 1, mode: .full).flatMap { header, data in
      let lengths: [UInt8: Int] = [0x00: 1, 0x04: 2, 0x05: 10, 0x0A: 5, 0x0B: 1]
      guard let length = lengths[header[0]] else { return .failure(.parameterError) }
      guard data.count == length else { return .failure(.lengthError) }
      switch header[0] {
      case 0x00:
        guard data[0] == 0 else { return .failure(.parameterError) }
      case 0x04:
        smConfig = [smConfig[0] | data[0] & 0x04, smConfig[1]]
      case 0x05:
        guard data[4] & 0x02 == 0 else { return .failure(.parameterError) }
        pdCap2Tail = [data[8], data[9]]
      case 0x0A:
        let limit = UInt16(data[1]) | UInt16(data[2]) << 8
        if data[0] & 0x01 != 0 {
          guard limit > 0 else { return .failure(.parameterError) }
          failedCounterLimit = limit
          failedCounterDecrement = UInt16(data[3]) | UInt16(data[4]) << 8
        }
        failedCounterEnabled = data[0] & 0x01 != 0
      default:
        hardwareOption = data[0] & 0x01
      }
      memoryGeneration += 1
      return reply([], mode: .full)
    }
  }

  // MARK: - Files (§10.7, §10.8)

  private func getFileSettings(_ body: [UInt8]) -> Answer {
    unwrap(0xF5, body, headerLength: 1, mode: .mac).flatMap { header, data in
      guard data.isEmpty else { return .failure(.lengthError) }
      guard let file = fileIndex(header[0]) else { return .failure(.fileNotFound) }
      return reply(settings[file].encoded, mode: .mac)
    }
  }

  private func getFileCounters(_ body: [UInt8]) -> Answer {
    guard let number = body.first, let file = fileIndex(number) else {
      return .failure(body.isEmpty ? .lengthError : .fileNotFound)
    }
    guard let sdm = settings[file].sdm, sdm.counterRetrieval != 0xF else { return .failure(.permissionDenied) }
    guard granted(sdm.counterRetrieval) else { return .failure(.authenticationError) }
    return unwrap(0xF6, body, headerLength: 1, mode: .mac).flatMap { _, data in
      data.isEmpty ? reply(le3(readCounters[file]) + [0x00, 0x00], mode: .full) : .failure(.lengthError)
    }
  }

  private func changeFileSettings(_ body: [UInt8]) -> Answer {
    guard let number = body.first, let file = fileIndex(number) else {
      return .failure(body.isEmpty ? .lengthError : .fileNotFound)
    }
    guard settings[file].change != 0xF else { return .failure(.permissionDenied) }
    guard granted(settings[file].change) else { return .failure(.authenticationError) }
    return unwrap(0x5F, body, headerLength: 1, mode: .full).flatMap { _, data in
      switch NTAG424FileSettings.parse(data, replacing: settings[file], fileNumber: file + 1, currentCounter: readCounters[file]) {
      case .failure(let status): return .failure(status)
      case .success(let new):
        settings[file] = new
        mirrored = nil
        memoryGeneration += 1
        return reply([], mode: .full)
      }
    }
  }

  /// FileNo, Offset and Length of ReadData and WriteData.
  private func fileReference(_ header: [UInt8]) -> Result<(file: Int, offset: Int, length: Int), NTAG424Status> {
    guard let file = fileIndex(header[0]) else { return .failure(.fileNotFound) }
    let offset = Int(header[1]) | Int(header[2]) << 8 | Int(header[3]) << 16
    let length = Int(header[4]) | Int(header[5]) << 8 | Int(header[6]) << 16
    return .success((file, offset, length))
  }

  private func readData(_ body: [UInt8]) -> Answer {
    guard body.count >= 7 else { return .failure(.lengthError) }
    guard case .success(let (file, offset, requested)) = fileReference(Array(body[0..<7])) else { return .failure(.fileNotFound) }
    let fileSettings = settings[file]
    var mode = CommunicationMode.plain
    if session != nil {
      guard granted(fileSettings.read) || granted(fileSettings.readWrite) else {
        return .failure(fileSettings.read == 0xF && fileSettings.readWrite == 0xF ? .permissionDenied : .authenticationError)
      }
      mode = fileSettings.commMode
    }
    guard offset < fileSettings.size else { return .failure(.boundaryError) }
    let length = requested == 0 ? fileSettings.size - offset : requested
    guard offset + length <= fileSettings.size else { return .failure(.boundaryError) }
    let sent = mode == .plain ? length : (mode == .mac ? length + 8 : (length / 16 + 1) * 16 + 8)
    guard sent <= 256 else { return .failure(.lengthError) }
    return unwrap(0xAD, body, headerLength: 7, mode: mode == .plain ? .plain : .mac).flatMap { _, data in
      guard data.isEmpty else { return .failure(.lengthError) }
      // Outside an authentication SDM applies (the mirrors and SDMReadCtr); inside, the file as stored.
      let contents: [UInt8]
      if session != nil {
        contents = files[file]
      } else {
        switch unauthenticatedContents(of: file) {
        case .success(let bytes): contents = bytes
        case .failure(let status): return .failure(status)
        }
      }
      return reply(Array(contents[offset..<(offset + length)]), mode: mode)
    }
  }

  private func writeData(_ body: [UInt8]) -> Answer {
    guard body.count >= 7 else { return .failure(.lengthError) }
    guard case .success(let (file, offset, length)) = fileReference(Array(body[0..<7])) else { return .failure(.fileNotFound) }
    let fileSettings = settings[file]
    guard granted(fileSettings.write) || granted(fileSettings.readWrite) else {
      return .failure(fileSettings.write == 0xF && fileSettings.readWrite == 0xF ? .permissionDenied : .authenticationError)
    }
    let mode = session == nil ? CommunicationMode.plain : fileSettings.commMode
    return unwrap(0x8D, body, headerLength: 7, mode: mode).flatMap { _, data in
      guard length >= 1, data.count == length else { return .failure(.lengthError) }
      guard offset + length <= fileSettings.size else { return .failure(.boundaryError) }
      store(data, in: file, at: offset)
      return reply([], mode: mode)
    }
  }
}
