import DESFire
import Testing
import EV2SecureMessaging
@testable import NFCEmulator

/// The bytes of hex digits as published transcripts print them (spaces, colons and line breaks
/// between bytes are skipped).
func hex(_ text: String) -> [UInt8] {
  var out: [UInt8] = []
  var high: UInt8?
  for c in text.unicodeScalars {
    guard let v = UInt8(String(c), radix: 16) else { continue }
    if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
  }
  return out
}

/// The host's EV2 session and authentication over DESFire's OpenSSL backend.
typealias HostSession = EV2HostSession<DESFireEV2Cipher>
typealias HostAuthentication = EV2HostAuthentication<DESFireEV2Cipher>

/// The factory AES key, 00×16.
let zeroKey = [UInt8](repeating: 0, count: 16)

extension DESFireVirtualTag {
  /// The card's answer to one command (empty when it answers nothing).
  func send(_ bytes: [UInt8]) -> [UInt8] {
    guard case .data(let answer) = respond(to: bytes) else { return [] }
    return answer
  }

  /// ``send(_:)`` of a command written in hex.
  func send(_ text: String) -> [UInt8] { send(hex(text)) }
}

/// AuthenticateEV2First (or NonFirst, continuing `session`) with the shared host side.
func authenticate(_ tag: DESFireVirtualTag, keyNumber: UInt8, key: [UInt8] = zeroKey,
                          continuing session: HostSession? = nil) throws -> HostSession {
  let first = tag.send(HostAuthentication.firstCommand(keyNumber: keyNumber, nonFirst: session != nil))
  try #require(first.suffix(2) == [0x91, 0xAF], "\(first)")
  let host = try HostAuthentication(key: key, keyNumber: keyNumber, nonFirst: session != nil, encryptedRndB: first.dropLast(2))
  let answer = tag.send(try host.secondCommand())
  if let session { return try host.finish(response: answer, continuing: session) }
  return try host.finish(response: answer)
}

/// One command through the host session: the answer's frames joined, its status and MAC checked.
func exchange(_ tag: DESFireVirtualTag, _ session: inout HostSession, _ code: UInt8, header: [UInt8] = [],
                      data: [UInt8] = [], mode: CommunicationMode) throws -> [UInt8] {
  var answer = tag.send(try session.command(code, header: header, data: data, mode: mode))
  var body: [UInt8] = []
  while answer.suffix(2) == [0x91, 0xAF] {
    body += answer.dropLast(2)
    answer = tag.send([0x90, 0xAF, 0x00, 0x00, 0x00])
  }
  try #require(answer.suffix(2) == [0x91, 0x00], "\(answer)")
  return try session.answerData(to: code, body: body + answer.dropLast(2), mode: mode)
}
