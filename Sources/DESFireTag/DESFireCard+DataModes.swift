import DESFire
import Hex
import NFCTags

/// ReadData (BDh) and WriteData (3Dh) in the three communication modes of a file (NXP
/// MF3ICDx21_41_81 data sheet §2.5 and §9.6) under EV1 secure messaging (after AuthenticateISO
/// 1Ah or AuthenticateAES AAh):
///
/// - plain: as `DESFireCard/readData(file:offset:length:)`; in a session the answer's CMAC is
///   checked;
/// - MAC: ReadData as plain (the card's answer carries the CMAC of `data ‖ 00`, checked);
///   WriteData carries the first 8 bytes of `CMAC(3D ‖ header ‖ data)` after the data;
/// - full: ReadData's answer is `data ‖ CRC32(data ‖ 00) ‖ 00…` enciphered (no CMAC), checked;
///   WriteData's data goes as `data ‖ CRC32(3D ‖ header ‖ data) ‖ 00…` enciphered.
///
/// The mode is the caller's to give: the file's (GetFileSettings) when the authenticated key is
/// what grants the access, plain when the right is free (Eh). MAC and full need a session.
/// After the legacy Authenticate (0Ah) MAC and full are the legacy scheme's
/// (DESFireCard+LegacyModes.swift: a 4-byte MAC, or `data ‖ CRC16 ‖ 00…` enciphered). Without a
/// session the host refuses MAC and full before sending anything. An answer that fails its check is
/// `DESFireCommandError/integrity(_:command:)`, its data never given back, and the session ends.
extension DESFireCard {
  /// ReadData (BDh) of `length` bytes of file `number` from `offset` (0: to the end), in
  /// `communication`.
  /// - Throws: `DESFireCommandError/invalidArgument(_:)` (nothing sent) for MAC or full without a
  ///   session; `DESFireCommandError/integrity(_:command:)` for an answer whose CMAC, CRC32 or
  ///   padding is wrong; the card's refusals and the link's failures.
  public func readData(file number: UInt8, offset: Int, length: Int,
                       communication: DESFireFileCommunication) throws(DESFireCommandError) -> [UInt8] {
    let name = "ReadData \(hexString([number]))"
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {  // DESFireCard+EV2Commands.swift
      return try ev2ReadData(file: number, offset: offset, length: length, communication: communication, session: ev2)
    }
    if communication != .plain, let legacy = secureMessaging as? DESFireLegacySecureMessaging {
      return try legacyReadData(file: number, offset: offset, length: length, communication: communication, session: legacy)
    }
    switch communication {
    case .plain:
      return try readData(file: number, offset: offset, length: length)
    case .mac:
      _ = try ev1Session(name, needs: "MAC mode")
      return try readData(file: number, offset: offset, length: length)
    case .full:
      let session = try ev1Session(name, needs: "full mode")
      guard (0...0xFF_FFFF).contains(offset), (0...0xFF_FFFF).contains(length) else {
        throw .invalidArgument("offset \(offset) or length \(length) is past 16777215")
      }
      let header = [number] + Self.uint24(offset) + Self.uint24(length)
      try session.willSend([0xBD] + header, command: name)  // the command's CMAC (not sent) moves the IV
      return try sendProtected(0xBD, header, name: name, session: session) { session, answer throws(DESFireCommandError) in
        try Self.decipher(answer, session: session, length: length == 0 ? nil : length, name: name)
      }
    }
  }

  /// WriteData (3Dh) of `bytes` into file `number` at `offset`, in `communication` (in frames as
  /// needed).
  /// - Throws: as ``readData(file:offset:length:communication:)``.
  public func writeData(file number: UInt8, offset: Int, _ bytes: [UInt8],
                        communication: DESFireFileCommunication) throws(DESFireCommandError) {
    let name = "WriteData \(hexString([number]))"
    if let ev2 = secureMessaging as? DESFireEV2SecureMessaging {  // DESFireCard+EV2Commands.swift
      return try ev2WriteData(0x3D, file: number, offset: offset, bytes, communication: communication, name: name, session: ev2)
    }
    guard communication != .plain else { return try writeData(file: number, offset: offset, bytes) }
    if let legacy = secureMessaging as? DESFireLegacySecureMessaging {
      return try legacyWriteData(file: number, offset: offset, bytes, communication: communication, session: legacy)
    }
    let session = try ev1Session(name, needs: communication == .mac ? "MAC mode" : "full mode")
    guard !bytes.isEmpty, (0...0xFF_FFFF).contains(offset), bytes.count <= 0xFF_FFFF else {
      throw .invalidArgument("WriteData needs 1 to 16777215 bytes at an offset up to 16777215")
    }
    let header = [number] + Self.uint24(offset) + Self.uint24(bytes.count)
    let protected: [UInt8]
    do {
      protected = communication == .mac ? bytes + (try session.channel.mac([0x3D] + header + bytes))
                                        : try session.channel.encipherCommand(prefix: [0x3D] + header, bytes)
    } catch {
      secureMessaging = nil
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
    let answer = try sendProtected(0x3D, header + protected, name: name, session: session) { session, answer throws(DESFireCommandError) in
      try session.received(answer, command: name)
    }
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }

  // MARK: Helpers shared with DESFireCard+ChangeKey.swift

  /// The EV1 session a protected exchange needs, or the refusal (nothing sent). Every caller
  /// takes a legacy session's way first, so the refusal is for no session at all.
  func ev1Session(_ name: String, needs what: String) throws(DESFireCommandError) -> DESFireEV1SecureMessaging {
    guard let session = secureMessaging as? DESFireEV1SecureMessaging else {
      throw .invalidArgument("\(name) in \(what) needs an authentication first "
                             + "(Authenticate 0Ah, AuthenticateISO 1Ah or AuthenticateAES AAh)")
    }
    return session
  }

  /// Sends a command the caller protected itself (a MAC appended, data enciphered): the session is
  /// set aside so that `send(_:_:name:)` neither MACs the command nor checks the answer, then
  /// `check` checks the answer with it. The session stays only when everything passed: a refusal
  /// ends it on the card, and a failed check leaves the host nothing to trust.
  func sendProtected(_ code: UInt8, _ data: [UInt8], name: String, session: DESFireEV1SecureMessaging,
                     check: (DESFireEV1SecureMessaging, [UInt8]) throws(DESFireCommandError) -> [UInt8]) throws(DESFireCommandError) -> [UInt8] {
    secureMessaging = nil
    let answer = try send(code, data, name: name)
    let result = try check(session, answer)
    secureMessaging = session
    return result
  }

  /// A full-mode answer's data (`length` bytes, or nil: found by its CRC32), or the integrity failure.
  static func decipher(_ answer: [UInt8], session: DESFireEV1SecureMessaging, length: Int?,
                       name: String) throws(DESFireCommandError) -> [UInt8] {
    try decipher(answer, session: session, lengths: length.map { [$0] }, name: name)
  }

  /// ``decipher(_:session:length:name:)`` with the lengths the data may have, tried in order.
  static func decipher(_ answer: [UInt8], session: DESFireEV1SecureMessaging, lengths: [Int]?,
                       name: String) throws(DESFireCommandError) -> [UInt8] {
    let data: [UInt8]?
    do { data = try session.channel.decipherAnswer(answer, lengths: lengths) } catch {
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
    guard let data else {
      throw .integrity("the enciphered answer (\(answer.count) bytes) does not decipher to data, CRC32 and zero padding", command: name)
    }
    return data
  }

  static func uint24(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
}
