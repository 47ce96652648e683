import DESFire
import EV2SecureMessaging
import NFCTransport

/// A tiny in-test DESFire EV2 built from the shared CARD side of EV2 secure messaging
/// (`EV2CardAuthentication`/`EV2CardSession` over DESFireEV2Cipher): AuthenticateEV2First and
/// NonFirst with AES keys, native frames chained both ways (`91 AF`, at most 54 data bytes a
/// command frame and 59 an answer frame), and the commands the host's EV2 tests need, each
/// unwrapped and answered in its mode. Not a model of the card: a responder for the host's tests.
final class EV2ScriptedCard: Transceiver {
  struct File { var mode: CommunicationMode; var data: [UInt8] }
  var keys: [[UInt8]] = [[UInt8](repeating: 0, count: 16), [UInt8](repeating: 0x11, count: 16)]
  var keyVersions: [UInt8] = [0, 0]
  var files: [UInt8: File] = [:]
  var value: Int32 = 100
  var uid: [UInt8] = [0x04, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66]
  var transactionIdentifier: [UInt8] = [0xDE, 0xAD, 0xBE, 0xEF]
  private(set) var session: EV2CardSession<DESFireEV2Cipher>?
  private var pendingAuthentication: EV2CardAuthentication<DESFireEV2Cipher>?
  private var nonFirst = false
  private var incoming: (code: UInt8, data: [UInt8])?
  private var outgoing: [UInt8] = []
  /// Every command APDU received.
  private(set) var sent: [[UInt8]] = []
  /// The answer to the first frame of a command whose code passes is altered so.
  var tamper: ((UInt8, [UInt8]) -> [UInt8])?

  var capabilities: LinkCapabilities { .init(maxResponseLength: 256, maxCommandLength: 250, rawCommands: true) }
  var pathDescription: String { "scripted EV2 card" }

  func transceive(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    sent.append(apdu)
    guard apdu.count >= 5, apdu[0] == 0x90 else { return [0x6E, 0x00] }
    let data = apdu.count > 6 ? Array(apdu[5..<(apdu.count - 1)]) : []
    let code = apdu[1]
    if code == 0xAF, pendingAuthentication == nil {
      if !outgoing.isEmpty { return nextFrame() }
      guard var command = incoming else { return [0x91, 0x1C] }
      command.data += data
      incoming = command
      return data.count == 54 ? [0x91, 0xAF] : finish(command.code, command.data)
    }
    if code != 0xAF, data.count == 54 {  // the first of a chained command's frames
      incoming = (code, data)
      return [0x91, 0xAF]
    }
    return finish(code, data)
  }

  private func finish(_ code: UInt8, _ data: [UInt8]) -> [UInt8] {
    incoming = nil
    let answer = respond(code, data)
    guard let tamper, answer.count > 2, answer.suffix(2) == [0x91, 0x00] else { return answer }
    self.tamper = nil
    return tamper(code, answer)
  }

  private func nextFrame() -> [UInt8] {
    let frame = Array(outgoing.prefix(59))
    outgoing.removeFirst(frame.count)
    return frame + (outgoing.isEmpty ? [0x91, 0x00] : [0x91, 0xAF])
  }

  /// The answer data in frames of 59 bytes.
  private func reply(_ body: [UInt8]) -> [UInt8] {
    outgoing = body
    return nextFrame()
  }

  private func fail(_ status: UInt8) -> [UInt8] {
    session = nil
    return [0x91, status]
  }

  private func respond(_ code: UInt8, _ data: [UInt8]) -> [UInt8] {
    switch code {
    case 0x71, 0x77:
      guard let keyNumber = data.first, Int(keyNumber) < keys.count else { return fail(0x40) }
      if code == 0x77, session == nil { return fail(0xAE) }
      nonFirst = code == 0x77
      let rndB = (0..<16).map { UInt8($0 * 7 + 3) }
      guard let auth = try? EV2CardAuthentication<DESFireEV2Cipher>(key: keys[Int(keyNumber)], keyNumber: keyNumber, rndB: rndB) else {
        return fail(0xEE)
      }
      pendingAuthentication = auth
      return auth.encryptedRndB + [0x91, 0xAF]
    case 0xAF:
      guard let auth = pendingAuthentication else { return fail(0x1C) }
      pendingAuthentication = nil
      do {
        if nonFirst, let current = session {
          let (response, next) = try auth.answerNonFirst(data, continuing: current)
          session = next
          return response + [0x91, 0x00]
        }
        let (response, next) = try auth.answerFirst(data, transactionIdentifier: transactionIdentifier)
        session = next
        return response + [0x91, 0x00]
      } catch {
        return fail(0xAE)
      }
    default:
      return command(code, data)
    }
  }

  private func command(_ code: UInt8, _ data: [UInt8]) -> [UInt8] {
    guard var current = session else { return [0x91, 0xAE] }
    let headerLength: Int, mode: CommunicationMode
    switch code {
    case 0xBD, 0x3D, 0xBB, 0x3B:
      guard let number = data.first, let file = files[number] else { return fail(0xF0) }
      (headerLength, mode) = (7, file.mode)
    case 0x6C, 0x0C, 0xDC, 0x1C:
      guard let number = data.first, let file = files[number] else { return fail(0xF0) }
      (headerLength, mode) = (1, file.mode)
    case 0xC4: (headerLength, mode) = (1, .full)
    case 0x54, 0x51: (headerLength, mode) = (0, .full)
    default: (headerLength, mode) = (max(0, data.count - 8), .mac)  // every other command: CommMode.MAC
    }
    guard data.count >= headerLength else { return fail(0x7E) }
    let header = Array(data[..<headerLength]), body = Array(data[headerLength...])
    let plain: [UInt8]
    do { plain = try current.unwrapCommand(code, header: header, body: body, mode: code == 0xC4 ? .full : mode) } catch {
      return fail(error.statusByte)
    }
    var answer: [UInt8] = []
    switch code {
    case 0xBD:
      guard let file = files[header[0]] else { return fail(0xF0) }
      let offset = Int(header[1]) | Int(header[2]) << 8, length = Int(header[4]) | Int(header[5]) << 8
      let end = length == 0 ? file.data.count : offset + length
      guard end <= file.data.count else { return fail(0xBE) }
      answer = Array(file.data[offset..<end])
    case 0x3D:
      let offset = Int(header[1]) | Int(header[2]) << 8
      guard offset + plain.count <= files[header[0]]?.data.count ?? 0 else { return fail(0xBE) }
      files[header[0]]?.data.replaceSubrange(offset..<(offset + plain.count), with: plain)
    case 0x6C: answer = DESFireCardTestBytes.int32(value)
    case 0x0C:
      guard plain.count == 4 else { return fail(0x7E) }
      value += Int32(plain[0]) | Int32(plain[1]) << 8
    case 0x51: answer = uid
    case 0x54: guard plain.count == 1 else { return fail(0x7E) }
    case 0xC4:
      let number = Int(header[0] & 0x0F)
      guard number < keys.count else { return fail(0x40) }
      let same = UInt8(number) == current.keyNumber
      guard let (newKey, version) = try? EV2CardSession<DESFireEV2Cipher>.openChangeKey(plain, oldKey: same ? nil : keys[number],
                                                                                          crc32: DESFireCardTestBytes.crc32) else {
        return fail(0x1E)
      }
      keys[number] = newKey
      keyVersions[number] = version
      if same {
        current.countUnMACedResponse()
        session = nil
        return [0x91, 0x00]
      }
    case 0x64:  // GetKeyVersion
      guard let number = header.first, Int(number) < keyVersions.count else { return fail(0x40) }
      answer = [keyVersions[Int(number)]]
    case 0x60:  // GetVersion: three frames, the MAC after the last
      answer = [0x04, 0x01, 0x01, 0x12, 0x00, 0x1A, 0x05] + [0x04, 0x01, 0x01, 0x02, 0x01, 0x1A, 0x05]
        + uid + [0xBA, 0x54, 0x88, 0x0F, 0x10, 0x45, 0x21]
    default: break  // CommitTransaction, AbortTransaction…: nothing to answer
    }
    guard let wrapped = try? current.wrapResponse(answer, mode: mode) else { return fail(0xEE) }
    session = current
    if code == 0x60 {  // GetVersion's frames: 7, 7, then the rest
      outgoing = Array(wrapped[7...])
      return Array(wrapped[..<7]) + [0x91, 0xAF]
    }
    return reply(wrapped)
  }
}

/// Byte helpers of the scripted card.
enum DESFireCardTestBytes {
  static func int32(_ value: Int32) -> [UInt8] {
    let bits = UInt32(bitPattern: value)
    return [UInt8(bits & 0xFF), UInt8(bits >> 8 & 0xFF), UInt8(bits >> 16 & 0xFF), UInt8(bits >> 24)]
  }

  static func crc32(_ bytes: [UInt8]) -> UInt32 {
    DESFireCRC.crc32(bytes).reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
  }
}
