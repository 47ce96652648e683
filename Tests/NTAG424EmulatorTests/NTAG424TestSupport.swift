import NFCTransport
import NTAG424
import NFCEmulator
@testable import NTAG424Emulator

/// Installs the virtual 424 DNA as NFCEmulator's `ntag424dna` factory, as nfctag-provision does at
/// start: every test that makes the tag by its kind (`sim:ntag424dna`, a feed, an image file)
/// calls it first. Idempotent, and the same factory for every caller, so tests running in
/// parallel may all call it.
func registerVirtualNTAG424() { NTAG424Emulator.register() }

/// Bytes from a transcript's hex, spaces allowed; a typo in a test's own constant traps.
func hex424(_ text: String) -> [UInt8] {
  guard let decoded = parseLenientHex(Array(text.utf8)) else { fatalError("bad hex in a test: \(text)") }
  return decoded
}

/// A key from a transcript's 32 hex digits.
func key424(_ text: String) -> AESKey {
  do { return try AESKey(bytes: hex424(text)) } catch { fatalError("bad key in a test: \(error)") }
}

extension NTAG424DNAVirtualTag {
  /// The answer to one APDU given as hex (data, then SW1 SW2); empty when the tag stays mute.
  @discardableResult
  func send(_ text: String) -> [UInt8] { send(hex424(text)) }

  /// The answer to one APDU (data, then SW1 SW2); empty when the tag stays mute.
  @discardableResult
  func send(_ apdu: [UInt8]) -> [UInt8] {
    guard case .data(let answer) = respond(to: apdu) else { return [] }
    return answer
  }

  /// SELECT of the NDEF application by name (`00 A4 04 0C 07 D2760000850101`).
  @discardableResult
  func selectApplication() -> [UInt8] { send("00A4040C07D276000085010100") }

  /// A secure-messaging session with known keys, as a transcript's state (tests only).
  func install(_ session: PICCSession) {
    self.session = session
  }
}

/// The host side of one authenticated exchange: the command built by `session`, the tag's answer
/// checked and decrypted by it.
func exchange(_ tag: NTAG424DNAVirtualTag, _ session: inout SecureMessagingSession, _ code: UInt8,
              header: [UInt8] = [], data: [UInt8] = [], mode: CommunicationMode,
              responseMode: CommunicationMode? = nil) throws -> [UInt8] {
  let answer = tag.send(try session.command(code, header: header, data: data, mode: mode))
  return try session.response(to: code, answer, mode: responseMode ?? mode)
}

/// AuthenticateEV2First with `key` through the host's EV2Authentication.
func authenticate(_ tag: NTAG424DNAVirtualTag, keyNumber: UInt8, key: AESKey = .factory) throws -> SecureMessagingSession {
  let first = tag.send(try EV2Authentication.firstCommand(keyNumber: keyNumber))
  let auth = try EV2Authentication(key: key, keyNumber: keyNumber, encryptedRndB: first.dropLast(2))
  return try auth.finish(response: tag.send(try auth.secondCommand))
}
