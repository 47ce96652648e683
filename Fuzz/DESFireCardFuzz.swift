// libFuzzer entry point over the virtual MIFARE DESFire (Sources/NFCEmulator/DESFire): hostile
// frames, native, wrapped (CLA 90) and ISO/IEC 7816-4 (CLA 00), in any order and any state (chains
// left open, authentications half done, files in MAC and full mode); and its image loader
// (`DESF 01`) fed hostile bytes. Built by scripts/fuzz.sh with NFCTransport, NFCTags and
// NFCEmulator (in the "tags" binary), without the DESFire module's ciphers: when the input asks,
// the card authenticates with `FuzzDESFireSecurity`, which accepts a token whose first byte is
// even, MACs with zeros and "enciphers" as the identity, so that the commands behind an
// authentication and the MAC and full modes are reached; on the EV2 chip it also takes
// AuthenticateEV2First/NonFirst with AES keys (`FuzzEV2Authentication`: the same even first
// token byte), and its EV2 session takes zero MACs and Full-mode data as the identity with
// `80 00…` padding, so that the EV2 session's paths (DESFireVirtualTag+EV2.swift) are reached.
//
// Input: byte 0: bit 0 the card comes from an image (else a factory card), bit 1 the fuzz
// security is installed, bits 2-3 the chip (EV1 2K, 4K, 8K, EV2 4K), bit 4 a DESFire Light instead
// (its fixed files; an image of its size loads as one); with an image, two bytes of length
// (least significant first) and the image; then frames, each a length byte (FFh: the field goes
// off and on) and that many bytes.
//
// Invariants: never a crash or a hang; every non-empty frame is answered with a status (a native
// status first, `6E 00` on a DESFire Light, `91 xx` last after CLA 90, an ISO status word, or two
// bytes of ISO status for a malformed APDU); no answer longer than a short APDU's; the free memory stays within the chip's;
// at most 28 applications; the card's image reloads as the same card (round trip), and an image
// that loads saves and loads again to the same bytes.

/// Authenticates every key of the right family for the command; `finish` accepts an even first
/// token byte.
struct FuzzDESFireSecurity: DESFireSecurity {
  func authenticate(command: UInt8, key: DESFireKey) -> (any DESFireAuthenticating)? {
    guard (command == 0xAA) == (key.type == .aes) else { return nil }
    let block = command == 0x0A || key.type == .des ? 8 : 16
    return FuzzDESFireAuthentication(legacy: command == 0x0A, blockLength: block)
  }

  func authenticateEV2(key: DESFireKey, keyNumber: UInt8) -> (any DESFireEV2Authenticating)? {
    key.type == .aes ? FuzzEV2Authentication() : nil
  }
}

/// AuthenticateEV2First/NonFirst: a token whose first byte is even passes.
final class FuzzEV2Authentication: DESFireEV2Authenticating {
  var challenge: [UInt8] { [UInt8](repeating: 0xB0, count: 16) }
  func finishFirst(_ token: [UInt8], pcdCap2: [UInt8]) -> (answer: [UInt8], session: any DESFireEV2Session)? {
    guard let first = token.first, first & 1 == 0 else { return nil }
    return ([UInt8](repeating: 0xA0, count: 32), FuzzEV2Session(commandCounter: 0))
  }
  func finishNonFirst(_ token: [UInt8], continuing session: any DESFireEV2Session) -> (answer: [UInt8], session: any DESFireEV2Session)? {
    guard let first = token.first, first & 1 == 0 else { return nil }
    return ([UInt8](repeating: 0xA0, count: 16), FuzzEV2Session(commandCounter: session.commandCounter))
  }
}

/// An EV2 session whose MACs are eight zero bytes and whose cipher is the identity (`80 00…` padding).
final class FuzzEV2Session: DESFireEV2Session {
  var commandCounter: UInt16
  init(commandCounter: UInt16) { self.commandCounter = commandCounter }
  var transactionIdentifier: [UInt8] { [0, 0, 0, 0] }
  var isExhausted: Bool { commandCounter == .max }
  func unwrapCommand(_ code: UInt8, header: [UInt8], body: [UInt8], mode: DESFireCommunicationMode) -> Result<[UInt8], DESFireStatus> {
    guard mode != .plain else { return .success(body) }
    guard body.count >= 8 else { return .failure(.lengthError) }
    guard body.suffix(8).allSatisfy({ $0 == 0 }) else { return .failure(.integrityError) }
    let sent = Array(body.dropLast(8))
    guard mode == .full, !sent.isEmpty else { return .success(sent) }
    guard sent.count % 16 == 0, let end = sent.lastIndex(where: { $0 != 0 }), sent[end] == 0x80 else { return .failure(.integrityError) }
    return .success(Array(sent[..<end]))
  }
  func wrapResponse(_ data: [UInt8], mode: DESFireCommunicationMode) -> [UInt8]? {
    commandCounter &+= 1
    let mac = [UInt8](repeating: 0, count: 8)
    switch mode {
    case .plain: return data
    case .mac: return data + mac
    case .full:
      guard !data.isEmpty else { return mac }
      let padded = data + [0x80]
      return padded + [UInt8](repeating: 0, count: (16 - padded.count % 16) % 16) + mac
    }
  }
  func countUnMACedResponse() { commandCounter &+= 1 }
  func openChangeKey(_ keyData: [UInt8], oldKey: [UInt8]?) -> Result<(key: [UInt8], version: UInt8), DESFireStatus> {
    if let oldKey, oldKey.count != 16 { fatalError("EV2 ChangeKey's old key has \(oldKey.count) bytes") }
    guard keyData.count == (oldKey == nil ? 17 : 21) else { return .failure(.lengthError) }
    return .success((Array(keyData.prefix(16)), keyData[16]))
  }
}

final class FuzzDESFireAuthentication: DESFireAuthenticating {
  let legacy: Bool
  let blockLength: Int
  init(legacy: Bool, blockLength: Int) {
    self.legacy = legacy
    self.blockLength = blockLength
  }
  var challenge: [UInt8] { [UInt8](repeating: 0xB0, count: blockLength) }
  func finish(_ token: [UInt8]) -> (answer: [UInt8], channel: any DESFireSecureChannel)? {
    guard let first = token.first, first & 1 == 0 else { return nil }
    return ([UInt8](repeating: 0xA0, count: blockLength), FuzzDESFireChannel(isLegacy: legacy, blockLength: blockLength))
  }
}

/// MACs are eight zero bytes, the cipher is the identity, the CRC four zero bytes.
final class FuzzDESFireChannel: DESFireSecureChannel {
  let isLegacy: Bool
  let blockLength: Int
  init(isLegacy: Bool, blockLength: Int) {
    self.isLegacy = isLegacy
    self.blockLength = blockLength
  }
  func received(_ command: [UInt8]) {}
  func macAnswer(_ data: [UInt8]) -> [UInt8] { data + [UInt8](repeating: 0, count: 8) }
  func encipherAnswer(_ data: [UInt8]) -> [UInt8] {
    let plain = data + [0, 0, 0, 0]
    return plain + [UInt8](repeating: 0, count: (blockLength - plain.count % blockLength) % blockLength)
  }
  func checkMAC(_ message: [UInt8], mac: [UInt8]) -> Bool { mac.count == 8 && mac.allSatisfy { $0 == 0 } }
  func decipher(prefix: [UInt8], _ ciphertext: [UInt8], length: Int) -> [UInt8]? {
    guard !ciphertext.isEmpty, ciphertext.count % blockLength == 0, length >= 0, length + 4 <= ciphertext.count else { return nil }
    return Array(ciphertext.prefix(length))
  }
  func decipherChangeKey(keyNumber: UInt8, _ ciphertext: [UInt8], keyLength: Int, withVersion: Bool,
                         oldKey: [UInt8]?) -> (key: [UInt8], version: UInt8?)? {
    let body = keyLength + (withVersion ? 1 : 0)
    guard ciphertext.count % blockLength == 0, ciphertext.count >= body + 4 else { return nil }
    if let oldKey, oldKey.count != keyLength { fatalError("ChangeKey's old key has \(oldKey.count) bytes for \(keyLength)") }
    return (Array(ciphertext.prefix(keyLength)), withVersion ? ciphertext[keyLength] : nil)
  }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  guard let selector = input.first else { return 0 }
  let chips: [DESFireChip] = [.ev1With2K, .ev1With4K, .ev1With8K, .ev2With4K]  // the EV2: its random-FCI fault
  var rest = input.dropFirst()
  let tag: DESFireVirtualTag
  if selector & 1 != 0 {
    guard rest.count >= 2 else { return 0 }
    let length = Int(rest[rest.startIndex]) | Int(rest[rest.startIndex + 1]) << 8
    let image = Array(rest.dropFirst(2).prefix(length))
    rest = rest.dropFirst(2 + image.count)
    // The chip the image names when it names one, so that most images reach past the size check.
    let chip = (chips + [.light]).first { image.count > 5 && $0.hardwareVersion[5] == image[5] }
      ?? (selector & 0x10 != 0 ? .light : chips[Int(selector >> 2 & 3)])
    guard let loaded = try? DESFireImage.decode(image, chip: chip) else { return 0 }
    checkDESFireImage(loaded)
    tag = loaded
  } else {
    let made = selector & 0x10 != 0 ? try? DESFireVirtualTag.light() : try? DESFireVirtualTag(chip: chips[Int(selector >> 2 & 3)])
    guard let factory = made else { fatalError("no factory card") }
    tag = factory
  }
  tag.security = selector & 2 != 0 ? FuzzDESFireSecurity() : nil
  while let length = rest.popFirst() {
    if length == 0xFF {
      tag.reset()
      continue
    }
    let frame = Array(rest.prefix(Int(length)))
    rest = rest.dropFirst(frame.count)
    checkDESFireAnswer(tag.respond(to: frame), to: frame, light: tag.chip.isLight)
    guard (0...tag.chip.memorySize).contains(tag.freeMemory), tag.applications.count <= 28 else {
      fatalError("free memory \(tag.freeMemory) of \(tag.chip.memorySize), \(tag.applications.count) applications")
    }
  }
  checkDESFireImage(tag)
  return 0
}

/// Every frame but the empty one gets a status (on a DESFire Light, a native frame `6E 00`).
func checkDESFireAnswer(_ response: TagResponse, to frame: [UInt8], light: Bool = false) {
  guard let first = frame.first else { return }
  guard case .data(let answer) = response, answer.count >= 1, answer.count <= 258 else {
    fatalError("frame \(frame.prefix(8)) answered \(response)")
  }
  let statuses = Set(DESFireStatus.allCases.map(\.rawValue))
  switch first {
  case 0x90:
    let wrapped = answer.count >= 2 && answer[answer.count - 2] == 0x91 && statuses.contains(answer[answer.count - 1])
    guard wrapped || answer.count == 2 else { fatalError("wrapped frame \(frame.prefix(8)) answered without 91 xx") }
  case 0x00:
    guard answer.count >= 2 else { fatalError("ISO frame answered \(answer.count) bytes") }
  default:
    if light {
      guard answer == [0x6E, 0x00] else { fatalError("a DESFire Light answered a native frame \(answer.prefix(8))") }
      return
    }
    guard statuses.contains(answer[0]) else { fatalError("native frame answered status \(answer[0])") }
  }
}

/// The image of `tag` loads as a card whose image is the same bytes.
func checkDESFireImage(_ tag: DESFireVirtualTag) {
  let image = tag.memoryImage
  let again: DESFireVirtualTag
  do {
    again = try DESFireImage.decode(image, chip: tag.chip)
  } catch {
    fatalError("a card's own image does not load: \(error)")
  }
  guard again.memoryImage == image, again.uid == tag.uid, again.configuration == tag.configuration, again.freeMemory == tag.freeMemory,
        again.applications == tag.applications, again.picc == tag.picc else {
    fatalError("the image does not round-trip")
  }
}
