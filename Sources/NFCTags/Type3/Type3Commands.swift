import NFCTransport

/// The Type 3 command layer: Polling (00h), Check (06h, Read Without Encryption) and Update (08h,
/// Write Without Encryption), one function each, answers validated.
///
/// Frames are `LEN packet` (the packet built by ``FeliCaPackets``) and answers `LEN CODE+1 IDm SF1
/// SF2 …`, LEN counting itself.
/// Source: nfcpy `tt3.py` `send_cmd_recv_rsp`, `ServiceCode.pack`,
/// `BlockCode.pack`, `read_without_encryption`, `write_without_encryption`, `polling`.
struct Type3Commands {
  let link: any Transceiver
  let idm: [UInt8]

  /// The NDEF read service (random, read-only, without key).
  static let readService: UInt16 = 0x000B
  /// The NDEF write service (random, read/write, without key).
  static let writeService: UInt16 = 0x0009

  /// The longest Check a link can carry: the answer is 13 + 16 × m bytes, the command 14 + 3 × m.
  static func maxCheckBlocks(_ capabilities: LinkCapabilities) -> Int {
    max(1, min((capabilities.maxResponseLength - 13) / 16, (capabilities.maxCommandLength - 14) / 3))
  }

  /// The longest Update a link can carry: the command is 14 + 19 × m bytes.
  static func maxUpdateBlocks(_ capabilities: LinkCapabilities) -> Int {
    max(1, (capabilities.maxCommandLength - 14) / 19)
  }

  /// Polling (00h): `06 00 SC SC RC TSN` → `12 01 IDm PMm` or `14 01 IDm PMm SC`.
  /// - Returns: IDm, PMm and the system code when the tag sent one (request code 01).
  func polling(systemCode: UInt16, requestCode: UInt8) throws(TagError) -> (idm: [UInt8], pmm: [UInt8], systemCode: [UInt8]?) {
    let command = [0x06] + FeliCaPackets.polling(systemCode: [UInt8(systemCode >> 8), UInt8(systemCode & 0xFF)],
                                                 requestCode: requestCode, timeSlot: 0x00)
    let reply: [UInt8]
    do { reply = try link.transceive(command) } catch { throw .transceive(error, command: "Polling", address: nil) }
    guard reply.count == 18 || reply.count == 20, reply.first.map(Int.init) == reply.count, reply[1] == 0x01 else {
      throw .transceive(.malformedResponse(reply), command: "Polling", address: nil)
    }
    return (Array(reply[2..<10]), Array(reply[10..<18]), reply.count == 20 ? Array(reply[18..<20]) : nil)
  }

  /// Check (06h) of `blocks` in service `service`: 16 bytes per block, in list order.
  func check(_ blocks: [Int], service: UInt16 = Type3Commands.readService) throws(TagError) -> [UInt8] {
    let first = blocks.first
    let packet = FeliCaPackets(idm: idm).readWithoutEncryption(services: [FeliCaPackets.serviceCode(service)],
                                                               blocks: try blockList(blocks, command: "Check"))
    let data = try exchange(packet, name: "Check", address: first)
    guard let read = FeliCaPackets.blockData(data[...], count: blocks.count) else {
      throw .transceive(.malformedResponse(data), command: "Check", address: first)
    }
    return read.flatMap { $0 }
  }

  /// Update (08h) of `blocks` in service `service` with `data` (16 bytes per block).
  func update(_ blocks: [Int], data: [UInt8], service: UInt16 = Type3Commands.writeService) throws(TagError) {
    let first = blocks.first
    guard data.count == 16 * blocks.count else {
      throw .unsupported("Update of \(blocks.count) block(s) with \(data.count) bytes; a block is 16 bytes")
    }
    let packet = FeliCaPackets(idm: idm).writeWithoutEncryption(services: [FeliCaPackets.serviceCode(service)],
                                                                blocks: try blockList(blocks, command: "Update"), data: data)
    let rest = try exchange(packet, name: "Update", address: first)
    guard rest.isEmpty else { throw .transceive(.malformedResponse(rest), command: "Update", address: first) }
  }

  private func blockList(_ blocks: [Int], command: String) throws(TagError) -> [[UInt8]] {
    guard !blocks.isEmpty, blocks.count < 256 else { throw .unsupported("\(command) of \(blocks.count) blocks") }
    var list: [[UInt8]] = []
    for block in blocks {
      guard let element = FeliCaPackets.blockListElement(block) else { throw .unsupported("\(command) of block \(block)") }
      list.append(element)
    }
    return list
  }

  /// Sends `LEN packet`, checks LEN, the answer code, the echoed IDm and SF1 SF2, and returns
  /// what follows the status flags.
  private func exchange(_ packet: [UInt8], name: String, address: Int?) throws(TagError) -> [UInt8] {
    let length = 1 + packet.count
    guard length <= 0xFF, length <= link.capabilities.maxCommandLength else {
      throw .unsupported("a \(name) frame of \(length) bytes does not fit this link")
    }
    let reply: [UInt8]
    do { reply = try link.transceive([UInt8(length)] + packet) } catch { throw .transceive(error, command: name, address: address) }
    guard reply.count >= 12, Int(reply[0]) == reply.count, reply[1] == packet[0] &+ 1 else {
      throw .transceive(.malformedResponse(reply), command: name, address: address)
    }
    guard FeliCaPackets(idm: idm).answer(Array(reply.dropFirst()), to: packet[0], minimum: 2) != nil else {
      throw .transceive(.malformedResponse(reply), command: "\(name) (answer from another IDm, \(hexString(reply[2..<10])))",
                        address: address)
    }
    let sf1 = reply[10], sf2 = reply[11]
    guard sf1 == 0 else {
      throw .transceive(.status(StatusWord(sf1, sf2)),
                        command: "\(name) (status flags \(Type3StatusFlags.describe(sf1, sf2)))", address: address)
    }
    return Array(reply[12...])
  }
}

/// FeliCa status flags in words.
///
/// SF1 FFh: an error not tied to one block; 01h/02h/04h/08h (FeliCa Lite): the block at that bit
/// position of the block list. SF2 names the error. Source: nfcpy
/// `tt3.py` `Type3TagCommandError`, Sony "FeliCa Card User's Manual" status flag table (A1–A8),
/// as used by the FeliCa Lite-S emulator.
public enum Type3StatusFlags {
  /// "01 A6 (invalid service code)" and so on.
  public static func describe(_ sf1: UInt8, _ sf2: UInt8) -> String {
    let what: String
    switch sf2 {
    case 0xA1: what = "invalid number of services"
    case 0xA2: what = "invalid number of blocks"
    case 0xA3: what = "invalid service index in the block list"
    case 0xA6: what = "invalid service code"
    case 0xA7: what = "invalid access mode in the block list"
    case 0xA8: what = "invalid or protected block number"
    case 0xA9: what = "write failed"
    case 0xB1: what = "authentication required"
    case 0xB2: what = "MAC verification failed"
    case 0x70: what = "memory error"
    case 0x71: what = "write count exceeded"
    default: what = "unknown error"
    }
    return "SF1 \(hexString([sf1]).uppercased()) SF2 \(hexString([sf2]).uppercased()): \(what)"
  }
}
