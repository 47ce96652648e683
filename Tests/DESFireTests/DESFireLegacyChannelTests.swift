import DESFire
import Testing

/// The legacy (0Ah) channel against libfreefare's published single-block vectors
/// (https://github.com/nfc-tools/libfreefare, test/test_mifare_desfire_des.c:
/// `test_mifare_desfire_des_send` and `test_mifare_desfire_des_receive`, key 01…01, IV zero) and
/// its framing rules (CRC16 over the data alone, zeros to whole blocks, each side undoing the other).
@Suite struct DESFireLegacyChannelTests {
  static func channel(_ key: [UInt8]) throws -> DESFireLegacyChannel {
    try DESFireLegacyChannel(sessionKey: DESFireKeyMaterial(.des, key))
  }

  @Test func sendAndReceiveModesAreLibfreefares() throws {
    let channel = try Self.channel([UInt8](repeating: 0x01, count: 8))
    let plain: [UInt8] = [0x73, 0x0D, 0xDF, 0xAD, 0xA4, 0xD2, 0x07, 0x89]
    let sent: [UInt8] = [0xD6, 0x59, 0xE1, 0x70, 0x43, 0xA8, 0x40, 0x68]
    #expect(try channel.sendMode(plain) == sent)                                       // MCD_SEND, MCO_DECYPHER
    #expect(try channel.cipher.decrypt(sent, iv: [UInt8](repeating: 0, count: 8)) == plain)  // MCD_RECEIVE, MCO_DECYPHER
  }

  @Test func eachSideUndoesTheOther() throws {
    let channel = try Self.channel(Array(1...16))
    for length in [1, 5, 6, 7, 8, 14, 40] {
      let data = (0..<length).map { UInt8($0 * 37 & 0xFF) }
      let command = try channel.encipherCommand(data)
      #expect(command.count == (length + 2 + 7) / 8 * 8)
      #expect(try channel.decipherCommand(command, length: length) == data)
      var flipped = command
      flipped[flipped.count - 1] ^= 0x01
      #expect(try channel.decipherCommand(flipped, length: length) == nil)
      let answer = try channel.encipherAnswer(data)
      #expect(try channel.decipherAnswer(answer) == data)
      #expect(try channel.decipherAnswer(answer, length: length) == data)
      let mac = try channel.mac(data)
      #expect(mac.count == 4)
      #expect(try channel.checkMAC(data, mac: mac))
      #expect(try !channel.checkMAC(data, mac: [mac[0] ^ 1] + mac.dropFirst()))
    }
    // A flipped ciphertext bit fails the CRC16.
    var answer = try channel.encipherAnswer([1, 2, 3])
    answer[0] ^= 0x80
    #expect(try channel.decipherAnswer(answer, length: 3) == nil)
  }

  @Test func theChangeKeyCryptogramReadsBackOnTheCard() throws {
    let channel = try Self.channel([UInt8](repeating: 0, count: 16))
    let newBytes: [UInt8] = Array(1...16), oldBytes = [UInt8](repeating: 7, count: 16)
    let new = try DESFireKeyMaterial(.des, newBytes), old = try DESFireKeyMaterial(.des, oldBytes)
    let same = try channel.changeKeyCryptogram(newKey: new, version: 0, oldKey: nil)
    #expect(same.count == 24)
    #expect(try channel.decipherChangeKey(same, keyLength: 16, withVersion: false, oldKey: nil)?.key == newBytes)
    let another = try channel.changeKeyCryptogram(newKey: new, version: 0, oldKey: old)
    #expect(try channel.decipherChangeKey(another, keyLength: 16, withVersion: false, oldKey: oldBytes)?.key == newBytes)
    // The wrong old key on the card: CRC16(new) fails.
    #expect(try channel.decipherChangeKey(another, keyLength: 16, withVersion: false, oldKey: Array(repeating: 8, count: 16)) == nil)
  }
}
