/// AuthenticateEV2First (71h), AuthenticateEV2NonFirst (77h) and the EV2 secure messaging they
/// start, on the EV2 and EV3 kinds (the EV1 answers both `91 1C`). The frames and the scheme are
/// the NTAG 424 DNA's (NT4H2421Gx data sheet §9.1.5–9.1.10, §10.4.1), which NXP AN12343 shows on
/// the DESFire Light and EV2/EV3; which command travels in which mode follows Proxmark3's
/// `client/src/mifare/desfiresecurechan.c` (its EV1/EV2 table, header lengths) and, for file
/// commands, the file's settings as in EV1 (``transfer(_:granting:)``). The cryptography is the
/// installed ``DESFireSecurity``'s (``DESFireEV2Session``).
///
/// In a session every command's MACt is checked before anything else (1Eh, the session ends),
/// Full-mode data is deciphered, each answer `91 00` advances CmdCtr (plain ones too, without a
/// MAC), answers are protected once in the command's mode and then cut into frames, and any error
/// status ends the session (``secured(_:)``). SelectApplication ends it too.
struct DESFireEV2PendingAuthentication {
  /// The key number part 1 named.
  let keyNumber: UInt8
  /// The card's side, between part 1 and part 2.
  let authentication: any DESFireEV2Authenticating
  /// PCDcap2 as part 1 sent it (First), echoed in part 2's answer.
  let pcdCap2: [UInt8]
  /// The session a NonFirst continues; nil for First.
  let continuing: (any DESFireEV2Session)?
}

extension DESFireVirtualTag {
  /// Whether the chip takes 71h and 77h: the EV2 and EV3 (hardware major 12h and 33h).
  var speaksEV2: Bool {
    chip.hardwareVersion.count > 3 && chip.hardwareVersion[3] >= 0x10
  }

  /// The EV2 part of ``native(_:_:)``: part 2 of an EV2 authentication, 71h and 77h on the EV2 and
  /// EV3, and every command of a running EV2 session; nil for everything else (the EV1 path).
  func ev2Native(_ command: UInt8, _ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8])? {
    if let waiting = ev2Authentication {
      ev2Authentication = nil
      guard command == 0xAF else {
        pending = nil
        return secured((.commandAborted, []))
      }
      return secured(finishEV2Authentication(waiting, token: Array(data)))
    }
    if command == 0x71 || command == 0x77 {
      guard speaksEV2 else { return nil }  // perform answers 1Ch
      if pending != nil {
        pending = nil
        return secured((.commandAborted, []))
      }
      return secured(authenticateEV2(nonFirst: command == 0x77, data))
    }
    guard let session = ev2Session, ![0x0A, 0x1A, 0xAA, 0x5A].contains(command) else { return nil }
    if command == 0xAF {
      guard let chain = pending else { return secured((.illegalCommand, [])) }
      pending = nil
      switch chain {
      case .answer(let frames):
        answerProtected = true
        return chained(frames: frames)
      case .write(let command, let header, let mode, let expected, let received):
        return ev2Write(command, header: header, mode: mode, expected: expected, received: received + data, session: session)
      case .authentication:
        return secured((.illegalCommand, []))
      }
    }
    if pending != nil {
      pending = nil
      return secured((.commandAborted, []))
    }
    guard !session.isExhausted else { return secured((.permissionDenied, [])) }
    let (mode, headerLength) = ev2Mode(command, data)
    if command == 0x3D || command == 0x3B || (command == 0x8D && chip.isLight) {
      let header = Array(data.prefix(7))
      guard header.count == 7, let length = DESFireBytes.uint24(header[...], at: 4), length > 0 else {
        return secured((.lengthError, []))
      }
      let expected = mode == .full ? (length / 16 + 1) * 16 + 8 : length + (mode == .mac ? 8 : 0)
      return ev2Write(command, header: header, mode: mode, expected: expected, received: Array(data.dropFirst(7)), session: session)
    }
    let header = Array(data.prefix(headerLength))
    let plain: [UInt8]
    switch session.unwrapCommand(command, header: header, body: Array(data.dropFirst(headerLength)), mode: mode) {
    case .failure(let status): return secured((status, []))
    case .success(let opened): plain = header + opened
    }
    switch command {
    case 0xC4: return ev2ChangeKey(plain, session: session)
    case 0x54: return ev2Answer(ev2ChangeKeySettings(plain), mode: mode, session: session)
    case 0x51: return ev2Answer(plain.isEmpty ? (.operationOK, uid) : (.lengthError, []), mode: mode, session: session)  // the real UID
    case 0x5F: return ev2Answer(ev2ChangeFileSettings(plain), mode: mode, session: session)
    case 0x5C: return ev2Answer(lightSetConfiguration(plain) ?? ev2SetConfiguration(plain), mode: mode, session: session)
    default: return ev2Answer(perform(command, plain[...]), mode: mode, session: session)
    }
  }

  /// Part 1: First `KeyNo LenCap [PCDcap2]` (LenCap 0–6), NonFirst `KeyNo` in a running EV2
  /// session → `E(K, RndB)` and AFh. 7Eh wrong lengths, 40h no such key, AEh a key that is not AES
  /// or a NonFirst without a session. Any earlier authentication ends first.
  private func authenticateEV2(nonFirst: Bool, _ data: ArraySlice<UInt8>) -> (DESFireStatus, [UInt8]) {
    guard let security else { return (.illegalCommand, []) }
    guard let keyNumber = data.first else { return (.lengthError, []) }
    var pcdCap2: [UInt8] = []
    if nonFirst {
      guard data.count == 1 else { return (.lengthError, []) }
    } else {
      guard data.count >= 2 else { return (.lengthError, []) }
      let lenCap = Int(data[data.startIndex + 1])
      guard lenCap <= 6, data.count == 2 + lenCap else { return (.lengthError, []) }
      pcdCap2 = Array(data.dropFirst(2))
    }
    let continuing = ev2Session
    endAuthentication()
    let keys = (currentApplication ?? picc).keys
    guard Int(keyNumber) < keys.count else { return (.noSuchKey, []) }
    guard !nonFirst || continuing != nil else { return (.authenticationError, []) }
    let key = keys[Int(keyNumber)]
    guard key.type == .aes, let authentication = security.authenticateEV2(key: key, keyNumber: keyNumber) else {
      return (.authenticationError, [])
    }
    ev2Authentication = DESFireEV2PendingAuthentication(keyNumber: keyNumber, authentication: authentication,
                                                         pcdCap2: pcdCap2, continuing: nonFirst ? continuing : nil)
    return (.additionalFrame, authentication.challenge)
  }

  /// Part 2: `E(K, RndA ‖ RndB')` (32 bytes, else 7Eh) → the card's cryptogram and a session, or
  /// AEh (the authentication state is reset).
  private func finishEV2Authentication(_ waiting: DESFireEV2PendingAuthentication, token: [UInt8]) -> (DESFireStatus, [UInt8]) {
    guard token.count == 32 else { return (.lengthError, []) }
    let finished = if let continuing = waiting.continuing {
      waiting.authentication.finishNonFirst(token, continuing: continuing)
    } else {
      waiting.authentication.finishFirst(token, pcdCap2: waiting.pcdCap2)
    }
    guard let (answer, session) = finished else { return (.authenticationError, []) }
    authenticatedKey = waiting.keyNumber
    channel = nil
    ev2Session = session
    answerProtected = true
    return (.operationOK, answer)
  }

  /// The mode a command travels in within an EV2 session and how many of its bytes stay plain
  /// in Full mode (Proxmark3 desfiresecurechan.c's table and header lengths).
  func ev2Mode(_ command: UInt8, _ data: ArraySlice<UInt8>) -> (mode: DESFireCommunicationMode, header: Int) {
    switch command {
    case 0xBD, 0xBB: return (ev2FileMode(data.first) { [$0.read, $0.readWrite] }, 7)
    case 0x3D, 0x3B: return (ev2FileMode(data.first) { [$0.write, $0.readWrite] }, 7)
    case 0xAD where chip.isLight: return (ev2FileMode(data.first) { [$0.read, $0.readWrite] }, 7)  // AN12343's codes
    case 0x8D where chip.isLight: return (ev2FileMode(data.first) { [$0.write, $0.readWrite] }, 7)
    case 0x6C:
      if let number = data.first, let file = currentApplication?.files[number], case .value(let value) = file.kind,
         value.freeGetValue {
        return (.plain, 1)
      }
      return (ev2FileMode(data.first) { [$0.read, $0.write, $0.readWrite] }, 1)
    case 0xDC: return (ev2FileMode(data.first) { [$0.read, $0.write, $0.readWrite] }, 1)
    case 0x0C: return (ev2FileMode(data.first) { [$0.readWrite] }, 1)
    case 0x1C: return (ev2FileMode(data.first) { [$0.write, $0.readWrite] }, 1)
    case 0x51, 0x54: return (.full, 0)
    case 0xC4, 0x5C: return (.full, 1)
    case 0xCE: return (.full, 5)  // CreateTransactionMACFile: FileNo FileOption AR(2) TMKeyOption plain
    case 0x5F:
      if let number = data.first, currentApplication?.files[number]?.access.change == DESFireAccessRights.free {
        return (.plain, 1)
      }
      return (.full, 1)
    default: return (.mac, 0)
    }
  }

  /// A file command's mode: the file's when the authenticated key is what grants the access, else
  /// plain (a free right, or no such file: the command fails after its checks).
  private func ev2FileMode(_ number: UInt8?, granting nibbles: (DESFireAccessRights) -> [UInt8]) -> DESFireCommunicationMode {
    guard let number, let file = currentApplication?.files[number], let key = authenticatedKey,
          nibbles(file.access).contains(key) else { return .plain }
    return file.communication
  }

  /// WriteData or WriteRecord: AFh until the `expected` bytes are in; then the MAC checked, the
  /// data deciphered, and the command performed on the plain data.
  private func ev2Write(_ command: UInt8, header: [UInt8], mode: DESFireCommunicationMode, expected: Int, received: [UInt8],
                        session: any DESFireEV2Session) -> (DESFireStatus, [UInt8]) {
    guard received.count <= expected else { return secured((.lengthError, [])) }
    guard received.count == expected else {
      pending = .write(command: command, header: header, mode: mode, expected: expected, received: received)
      return (.additionalFrame, [])
    }
    switch session.unwrapCommand(command, header: header, body: received, mode: mode) {
    case .failure(let status): return secured((status, []))
    case .success(let plain): return ev2Answer(perform(command, (header + plain)[...]), mode: mode, session: session)
    }
  }

  /// A command's answer in an EV2 session: an error as ``secured(_:)`` sends it (the session ends);
  /// a success's data, every frame of a chain joined, protected once in `mode` (CmdCtr advances),
  /// then cut into frames: a MAC-mode answer keeps its frames, the MAC in the last; a Full-mode
  /// answer in frames of ``frameData`` bytes.
  func ev2Answer(_ result: (DESFireStatus, [UInt8]), mode: DESFireCommunicationMode,
                 session: any DESFireEV2Session) -> (DESFireStatus, [UInt8]) {
    let (status, first) = result
    guard status == .operationOK || status == .additionalFrame else { return secured(result) }
    var frames = [first]
    if status == .additionalFrame {
      guard case .answer(let rest)? = pending else { return result }  // a command waiting for more
      frames += rest
      pending = nil
    }
    guard let wrapped = session.wrapResponse(frames.flatMap { $0 }, mode: mode) else { return secured((.integrityError, [])) }
    answerProtected = true
    switch mode {
    case .plain:
      return chained(frames: frames)
    case .mac:
      let mac = Array(wrapped.suffix(8))
      guard let last = frames.indices.last else { return (.operationOK, mac) }
      let tail = frames[last] + mac
      frames[last] = Array(tail.prefix(Self.frameData))
      if tail.count > Self.frameData { frames.append(Array(tail.dropFirst(Self.frameData))) }
      return chained(frames: frames)
    case .full:
      return chained(wrapped)
    }
  }
}
