// libFuzzer entry point over the NTAG 424 DNA's secure-messaging answers, past the MAC: the frames
// joined (`91 AF`), the status word, RespData and MACt apart, the lengths, the padding removed
// after decryption, then the parser of the command's answer (GetVersion, GetFileSettings,
// GetCardUID, GetKeyVersion, GetFileCounters, Read_Sig, ReadData).
//
// Built by scripts/fuzz.sh with NTAG424Commands and EV2SecureMessaging, without swift-crypto: the
// MAC check and the decryption are `FuzzCipher`'s (`FuzzAES`'s for the shared session), which
// accepts every MAC (or only 8 zero bytes) and "decrypts" to the ciphertext itself, so that
// generated answers reach the decoding the real MAC would guard.
//
// Input: byte 0 picks the mode (bits 0–1: plain, MAC, full), the MAC policy (bit 2: accept all,
// or only zeros) and the parser (bits 3–5); bytes 1–2 are CmdCtr after the command; byte 3 the
// ReadData length asked for; then frames, each a length byte and that many bytes of a reply.
//
// Invariants: never a crash; never RespData longer than the bytes received; the MAC input and the
// IV input the decoder builds have the datasheet's form; a decoded answer, framed again the way
// the tag frames it, decodes to the same bytes; the host session NTAG424 uses (the shared
// `EV2HostSession`, over `FuzzAES`: the same identity "cipher", MACt of zeros) decodes the same
// body to the same bytes or refuses it as the decoder does; a parser's result has its exact length.

/// Accepts any MAC (or only zeros), decrypts as the identity, and checks the inputs it is given.
struct FuzzCipher: SecureMessagingResponseCipher {
  let acceptsAll: Bool
  let transactionIdentifier: [UInt8]
  let counter: UInt16

  func macMatches(_ mac: ArraySlice<UInt8>, over message: [UInt8]) throws(NTAG424Error) -> Bool {
    let head: [UInt8] = [0x00, UInt8(counter & 0xFF), UInt8(counter >> 8)] + transactionIdentifier
    guard mac.count == SecureMessagingResponse.macLength, message.count >= head.count, Array(message.prefix(head.count)) == head else {
      fatalError("MAC input or MAC out of shape: \(message.count) bytes, MAC \(mac.count)")
    }
    return acceptsAll || mac.allSatisfy { $0 == 0 }
  }

  func decrypt(_ ciphertext: [UInt8], ivInput: [UInt8]) throws(NTAG424Error) -> [UInt8] {
    guard ciphertext.count % 16 == 0, !ciphertext.isEmpty, ivInput.count == 16, ivInput[0] == 0x5A, ivInput[1] == 0xA5,
          Array(ivInput[2..<6]) == transactionIdentifier, ivInput[6] == UInt8(counter & 0xFF), ivInput[7] == UInt8(counter >> 8),
          ivInput[8...].allSatisfy({ $0 == 0 }) else {
      fatalError("decryption asked for \(ciphertext.count) bytes with an IV input out of shape")
    }
    return ciphertext
  }
}

/// `FuzzCipher`'s policy "only zeros" as an `EV2Cipher` for the shared session: every CMAC is 16
/// zero bytes (so MACt is 8 zeros), every block cipher the identity.
enum FuzzAES: EV2Cipher {
  static func encryptBlock(_ block: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8] { block }
  static func cbcEncrypt(_ plaintext: [UInt8], key: [UInt8], iv: [UInt8]) throws(EV2Error) -> [UInt8] { plaintext }
  static func cbcDecrypt(_ ciphertext: [UInt8], key: [UInt8], iv: [UInt8]) throws(EV2Error) -> [UInt8] { ciphertext }
  static func cmac(_ message: [UInt8], key: [UInt8]) throws(EV2Error) -> [UInt8] { [UInt8](repeating: 0, count: 16) }
}

/// The shared host session's reading of `body` with CmdCtr+1 = `counter`: nil when it refuses it.
func sharedSessionData(_ body: [UInt8], mode: CommunicationMode, ti: [UInt8], counter: UInt16) -> [UInt8]? {
  let zero = [UInt8](repeating: 0, count: 16)
  guard let keys = try? EV2SessionKeys(encryption: zero, mac: zero),
        var session = try? EV2HostSession<FuzzAES>(transactionIdentifier: ti, keys: keys, keyNumber: 0, commandCounter: counter &- 1) else {
    fatalError("the shared session refused its set-up")
  }
  return try? session.answerData(to: 0x60, body: body, mode: mode)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  guard input.count >= 4 else { return 0 }
  let selector = input[0]
  let mode: CommunicationMode = [.plain, .mac, .full, .full][Int(selector & 3)]
  let counter = UInt16(input[1]) | UInt16(input[2]) << 8
  let readLength = Int(input[3])
  let ti: [UInt8] = [0x9D, 0x00, 0xC4, 0xDF]
  let cipher = FuzzCipher(acceptsAll: selector & 4 == 0, transactionIdentifier: ti, counter: counter)

  // The frames, joined as the host joins them.
  var answer = ChainedAnswer()
  var received = 0
  var index = 4
  var joined: [UInt8]?
  while index < input.count, joined == nil {
    let length = Int(input[index])
    let frame = Array(input[(index + 1)..<min(input.count, index + 1 + length)])
    index += 1 + length
    received += frame.count
    switch answer.add(frame) {
    case .more: continue
    case .complete(let reply): joined = reply
    case .malformed(let reply): if reply.count >= 2 { fatalError("a frame of \(reply.count) bytes called malformed") }; return 0
    case .tooManyFrames: return 0
    }
  }
  guard let reply = joined else { return 0 }
  guard reply.count <= received else { fatalError("joined \(reply.count) bytes from \(received)") }

  // Status, MAC, decryption, padding.
  guard let body = try? SecureMessagingResponse.body(of: reply, command: 0x60) else { return 0 }
  guard body.count == reply.count - 2 else { fatalError("body of \(body.count) bytes from \(reply.count)") }
  // The decoder and the shared session NTAG424's host uses agree (MACt of zeros: FuzzCipher's strict
  // policy), CmdCtr+1 being 1…FFFFh (the session refuses a counter at FFFFh before the command).
  if counter != 0 {
    let strict = FuzzCipher(acceptsAll: false, transactionIdentifier: ti, counter: counter)
    let decoded = try? SecureMessagingResponse.data(fromBody: body, command: 0x60, mode: mode, transactionIdentifier: ti,
                                                    counter: counter, cipher: strict)
    guard decoded == sharedSessionData(body, mode: mode, ti: ti, counter: counter) else {
      fatalError("the decoder and the shared session disagree (\(mode), \(body.count) bytes)")
    }
  }
  let plain: [UInt8]
  do {
    plain = try SecureMessagingResponse.data(fromBody: body, command: 0x60, mode: mode, transactionIdentifier: ti,
                                             counter: counter, cipher: cipher)
  } catch {
    return 0
  }
  let most = mode == .plain ? body.count : mode == .mac || body.count == 8 ? body.count - 8 : body.count - 9
  guard plain.count <= most else { fatalError("decoded \(plain.count) bytes from a body of \(body.count) (\(mode))") }

  // Framed again as the tag frames it (identity encryption, MACt of zeros), it decodes the same.
  var again = plain
  if mode == .full, !plain.isEmpty { again = SecureMessagingResponse.pad(plain) }
  if mode != .plain { again += [UInt8](repeating: 0, count: 8) }
  let reframed = try? SecureMessagingResponse.data(fromBody: try SecureMessagingResponse.body(of: again + [0x91, 0x00], command: 0x60),
                                                   command: 0x60, mode: mode, transactionIdentifier: ti, counter: counter, cipher: cipher)
  guard reframed == plain else { fatalError("a decoded answer does not round-trip (\(mode), \(plain.count) bytes)") }

  // The command's own parser.
  switch selector >> 3 & 7 {
  case 0:
    guard let version = try? ChipVersion(parsing: plain) else { return 0 }
    guard plain.count == 28 || plain.count == 29, version.uid == Array(plain[14..<21]) else { fatalError("GetVersion") }
  case 1:
    guard let file = try? FileProperties(parsing: plain) else { return 0 }
    _ = file.settings
  case 2:
    if (try? NativeCommand.parseCardUID(plain)) != nil, plain.count != 7 { fatalError("UID") }
  case 3:
    if (try? NativeCommand.parseKeyVersion(plain)) != nil, plain.count != 1 { fatalError("key version") }
  case 4:
    if let value = try? NativeCommand.parseFileCounter(plain), plain.count != 5 || value > 0xFF_FFFF { fatalError("counter") }
  case 5:
    if (try? NativeCommand.parseSignature(plain)) != nil, plain.count != 56 { fatalError("signature") }
  default:
    guard let read = try? NativeCommand.checkReadData(plain, length: readLength) else { return 0 }
    guard read == plain, readLength == 0 ? read.count <= NativeCommand.largestFileSize : read.count == readLength else {
      fatalError("ReadData of \(readLength) gave \(read.count) bytes")
    }
  }
  return 0
}
