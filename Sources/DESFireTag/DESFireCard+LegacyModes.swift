import DESFire
import Hex
import NFCTags

/// The host's side of the legacy (D40) secure messaging after Authenticate (0Ah) with a DES or
/// 2K3DES key (NXP MIFARE DESFire data sheet M075031; the byte layouts as libfreefare's
/// `mifare_desfire_crypto.c` has them for a session that is not EV1's; DESFire's
/// ``DESFireLegacyChannel``): plain commands and answers carry no MAC, so nothing is checked or
/// moved for them; the data of ReadData and WriteData (and of the value and record commands,
/// DESFireCard+LegacyFiles.swift) in MAC mode carries a 4-byte MAC after it, in full mode goes as
/// `data ‖ CRC16(data) ‖ 00…` enciphered, each message from a zero IV.
public final class DESFireLegacySecureMessaging: DESFireSecureMessaging {
  /// The session key's channel.
  public let channel: DESFireLegacyChannel
  /// The key number the session authenticated.
  public let keyNumber: UInt8

  /// A session from the Authenticate (0Ah) session key.
  public init(sessionKey: DESFireKeyMaterial, keyNumber: UInt8 = 0) throws(DESFireCryptoError) {
    channel = try DESFireLegacyChannel(sessionKey: sessionKey)
    self.keyNumber = keyNumber
  }

  /// Plain commands carry no MAC in the legacy scheme.
  public func willSend(_ command: [UInt8], command name: String) throws(DESFireCommandError) {}
  /// Plain answers carry no MAC in the legacy scheme: the data as it came.
  public func received(_ answer: [UInt8], command name: String) throws(DESFireCommandError) -> [UInt8] { answer }
}

extension DESFireCard {
  /// ReadData (BDh) in MAC or full mode under a legacy session: the answer's MAC or CRC16 checked
  /// (an answer that fails is `DESFireCommandError/integrity(_:command:)` and ends the session).
  func legacyReadData(file number: UInt8, offset: Int, length: Int, communication: DESFireFileCommunication,
                      session: DESFireLegacySecureMessaging) throws(DESFireCommandError) -> [UInt8] {
    guard (0...0xFF_FFFF).contains(offset), (0...0xFF_FFFF).contains(length) else {
      throw .invalidArgument("offset \(offset) or length \(length) is past 16777215")
    }
    return try legacyRead(0xBD, [number] + Self.uint24(offset) + Self.uint24(length), length: length == 0 ? nil : length,
                          communication: communication, session: session, name: "ReadData \(hexString([number]))")
  }

  /// WriteData (3Dh) in MAC or full mode under a legacy session: `data ‖ MAC(data)`, or
  /// `data ‖ CRC16(data) ‖ 00…` in send mode (the card answers `91 1E` to a wrong one).
  func legacyWriteData(file number: UInt8, offset: Int, _ bytes: [UInt8], communication: DESFireFileCommunication,
                       session: DESFireLegacySecureMessaging) throws(DESFireCommandError) {
    guard !bytes.isEmpty, (0...0xFF_FFFF).contains(offset), bytes.count <= 0xFF_FFFF else {
      throw .invalidArgument("WriteData needs 1 to 16777215 bytes at an offset up to 16777215")
    }
    try legacyWrite(0x3D, [number] + Self.uint24(offset) + Self.uint24(bytes.count), bytes, communication: communication,
                    session: session, name: "WriteData \(hexString([number]))")
  }

  /// Sends `code ‖ header` (plain) and reads the answer's data in MAC mode (`data ‖ MAC(data)`)
  /// or full mode (`data ‖ CRC16(data) ‖ 00…` CBC-enciphered; `length` data bytes, or nil to find
  /// them by the CRC16). A failed check is `DESFireCommandError/integrity(_:command:)` and ends the
  /// session: ReadData, ReadRecords, GetValue and GetCardUID.
  func legacyRead(_ code: UInt8, _ header: [UInt8], length: Int?, communication: DESFireFileCommunication,
                  session: DESFireLegacySecureMessaging, name: String) throws(DESFireCommandError) -> [UInt8] {
    let answer = try send(code, header, name: name)
    do {
      if communication == .full {
        if let data = try session.channel.decipherAnswer(answer, length: length) { return data }
        secureMessaging = nil
        throw DESFireCommandError.integrity("the enciphered answer (\(answer.count) bytes) does not decipher to data, CRC16 and zero padding",
                                            command: name)
      }
      guard answer.count >= 4 else {
        secureMessaging = nil
        throw DESFireCommandError.integrity("\(answer.count) bytes, no MAC", command: name)
      }
      let data = Array(answer.dropLast(4))
      guard !data.isEmpty, try session.channel.checkMAC(data, mac: Array(answer.suffix(4))) else {
        secureMessaging = nil
        throw DESFireCommandError.integrity("the answer's MAC does not match", command: name)
      }
      return data
    } catch let error as DESFireCommandError {
      throw error
    } catch {
      secureMessaging = nil
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
  }

  /// Sends `code ‖ header ‖` the data MACed (`data ‖ MAC(data)`) or enciphered (`data ‖
  /// CRC16(data) ‖ 00…` in send mode), the header plain and outside both; the answer a bare `00`:
  /// WriteData, WriteRecord, Credit, Debit, LimitedCredit and (full) ChangeFileSettings.
  func legacyWrite(_ code: UInt8, _ header: [UInt8], _ bytes: [UInt8], communication: DESFireFileCommunication,
                   session: DESFireLegacySecureMessaging, name: String) throws(DESFireCommandError) {
    let protected: [UInt8]
    do {
      protected = communication == .mac ? bytes + (try session.channel.mac(bytes)) : try session.channel.encipherCommand(bytes)
    } catch {
      secureMessaging = nil
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
    let answer = try send(code, header + protected, name: name)
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }
}

extension DESFireCard {
  /// ChangeKey (C4h) after 0Ah: `C4 ‖ KeyNo ‖` the legacy cryptogram (CRC16s over the key bytes,
  /// send mode; DESFireLegacyChannel's `changeKeyCryptogram`). The authenticated key itself ends
  /// the session; another key needs `oldKey`. The answer is a bare `00` (no MAC in this scheme).
  func legacyChangeKey(number: UInt8, keyByte: UInt8, to newKey: DESFireKeyMaterial, version: UInt8, oldKey: DESFireKeyMaterial?,
                       name: String, session: DESFireLegacySecureMessaging) throws(DESFireCommandError) {
    let sameKey = number == session.keyNumber
    guard sameKey || oldKey != nil else {
      throw .invalidArgument("\(name): key \(number) is not the authenticated key \(session.keyNumber), so its current value is needed")
    }
    let cryptogram: [UInt8]
    do {
      cryptogram = try session.channel.changeKeyCryptogram(newKey: newKey, version: version, oldKey: sameKey ? nil : oldKey)
    } catch .invalidLength {
      throw .invalidArgument("\(name): the current key given is not of the new key's type")
    } catch {
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
    if sameKey { secureMessaging = nil }  // the card ends the session
    let answer = try send(0xC4, [keyByte] + cryptogram, name: name)
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }

  /// ChangeKeySettings (54h) after 0Ah: `KS1 ‖ CRC16(KS1) ‖ 00…` in send mode; the answer a bare `00`.
  func legacyChangeKeySettings(_ settings: UInt8, session: DESFireLegacySecureMessaging) throws(DESFireCommandError) {
    let name = "ChangeKeySettings"
    let cryptogram: [UInt8]
    do { cryptogram = try session.channel.encipherCommand([settings]) } catch {
      secureMessaging = nil
      throw .malformed("the host's cipher failed: \(error)", command: name)
    }
    let answer = try send(0x54, cryptogram, name: name)
    guard answer.isEmpty else { throw .malformed("\(answer.count) unexpected bytes", command: name) }
  }
}
