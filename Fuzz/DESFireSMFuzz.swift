// libFuzzer entry point over MIFARE DESFire EV1 secure messaging's checks (Sources/DESFire,
// `DESFireEV1Channel`): hostile ciphertexts deciphered as a full-mode command's data (its CRC32
// found from the end, or at the length the command names), as a ChangeKey cryptogram (same key,
// or another key with the old key's XOR and the second CRC32), and hostile MACs checked. Built by
// scripts/fuzz.sh with the DESFire module and COpenSSL's C shim (libcrypto loaded at the first
// use, as in the programs): the real ciphers, so what passes a check is what a card would take.
//
// Input: byte 0: bits 0-1 the key type (DES/2K3DES, 3K3DES, AES), bits 2-3 the check, bits 4-5
// the ChangeKey shape (version byte, another key); then the key (16, 24 or 16 bytes), a byte (the
// length a command names, or the key number), then the ciphertext or the MAC and the message.
// With bit 7 set, the Transaction MAC instead (`DESFireTransactionMACRecord`, the card's
// `TMC ‖ TMV`): the parameter's low 4 bits are the record's length, then the record, a 7-byte UID
// and a WriteData's data: a record parses exactly when it is 12 bytes, gives its bytes back, and
// verifies exactly when its TMV is the one computed for that write under the (AES) key.
//
// Invariants: never a crash; what deciphers is what the same key enciphers again: the plaintext
// the check accepted, enciphered from the same IV by a second channel, is the start of the
// ciphertext; the IV moves to the ciphertext's last block; a MAC is accepted exactly when it is
// the one the second channel computes.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let input = Array(UnsafeBufferPointer(start: data, count: size))
  guard let selector = input.first else { return 0 }
  let (type, keyLength): (DESFireKeyMaterial.KeyType, Int) = [(.des, 16), (.tripleDES3K, 24), (.aes, 16), (.aes, 16)][Int(selector & 3)]
  guard input.count >= 2 + keyLength else { return 0 }
  let keyBytes = Array(input[1...keyLength])
  let parameter = input[1 + keyLength]
  let rest = Array(input[(2 + keyLength)...])
  guard let key = try? DESFireKeyMaterial(type, keyBytes),
        let card = try? DESFireEV1Channel(sessionKey: key), let mirror = try? DESFireEV1Channel(sessionKey: key) else { return 0 }
  let block = card.cipher.blockLength

  /// The accepted plaintext, enciphered again from the IV both channels started with.
  func reencipherMatches(_ plaintext: [UInt8]) -> Bool {
    guard let again = try? mirror.encipher(plaintext) else { return true }  // libcrypto missing
    return again.count <= rest.count && Array(rest.prefix(again.count)) == again
  }

  if selector & 0x80 != 0 {
    transactionMAC(key: Array(keyBytes.prefix(16)), length: Int(parameter & 0x0F), rest)
    return 0
  }
  do throws(DESFireCryptoError) {
    switch selector >> 2 & 3 {
    case 0, 1:  // a full-mode command: WriteData's header, the data's length found or named
      let prefix: [UInt8] = [0x3D, 0x01, 0x00, 0x00, 0x00, parameter, 0x00, 0x00]
      let length: Int? = selector >> 2 & 3 == 0 ? nil : Int(parameter)
      guard let plain = try card.decipherCommand(prefix: prefix, rest, length: length) else { return 0 }
      if let length, plain.count != length { fatalError("\(plain.count) bytes deciphered for \(length)") }
      guard rest.count % block == 0, plain.count + 4 <= rest.count, card.iv == Array(rest.suffix(block)),
            reencipherMatches(plain + DESFireCRC.crc32(prefix + plain)) else {
        fatalError("a full-mode command deciphered to what does not encipher back (\(plain.count) of \(rest.count) bytes)")
      }
    case 2:  // ChangeKey: the new key (XORed with the old one for another key), AES's version, the CRC32s
      let withVersion = selector & 0x10 != 0, other = selector & 0x20 != 0
      let newLength = selector & 0x40 == 0 ? 16 : 24
      let old = other ? Array(rest.prefix(newLength)) : nil
      let ciphertext = other ? Array(rest.dropFirst(newLength)) : rest
      if let old, old.count != newLength { return 0 }
      guard let (newKey, version) = try card.decipherChangeKey(keyNumber: parameter, ciphertext, keyLength: newLength,
                                                               withVersion: withVersion, oldKey: old) else { return 0 }
      guard newKey.count == newLength, (version != nil) == withVersion, card.iv == Array(ciphertext.suffix(block)) else {
        fatalError("ChangeKey gave a key of \(newKey.count) bytes for \(newLength)")
      }
      let sent = (old.map { zip(newKey, $0).map { $0 ^ $1 } } ?? newKey) + (version.map { [$0] } ?? [])
      let plain = sent + DESFireCRC.crc32([0xC4, parameter] + sent) + (old == nil ? [] : DESFireCRC.crc32(newKey))
      guard let again = try? mirror.encipher(plain), again.count <= ciphertext.count, Array(ciphertext.prefix(again.count)) == again else {
        fatalError("a ChangeKey cryptogram deciphered to what does not encipher back")
      }
    default:  // a command's MAC: the first 8 bytes, over the rest
      let mac = Array(rest.prefix(8)), message = Array(rest.dropFirst(8))
      let accepted = try card.checkMAC(message, mac: mac)
      guard accepted == (try mirror.mac(message) == mac), card.iv == mirror.iv else { fatalError("MAC check disagrees") }
      // An answer's MAC as the card makes it is the one the host computes over data ‖ status.
      let answer = try card.macAnswer(message, status: parameter)
      guard answer.count == message.count + 8, Array(answer.suffix(8)) == (try mirror.mac(message + [parameter])) else {
        fatalError("an answer's MAC is not data ‖ status's")
      }
    }
  } catch {
    _ = error.description
  }
  return 0
}

/// The Transaction MAC's record and check over hostile bytes (the header's bit 7).
func transactionMAC(key: [UInt8], length: Int, _ rest: [UInt8]) {
  let bytes = Array(rest.prefix(length)), uid = Array(rest.dropFirst(length).prefix(7))
  let data = Array(rest.dropFirst(length + 7))
  guard let record = try? DESFireTransactionMACRecord(bytes: bytes) else {
    if bytes.count == 12 { fatalError("a 12-byte record was refused") }
    return
  }
  guard bytes.count == 12, record.bytes == bytes else { fatalError("a record of \(bytes.count) bytes parsed, or changed") }
  var input = DESFireTransactionMACInput()
  guard uid.count == 7, !data.isEmpty, (try? input.writeData(file: 1, offset: 0, data: data)) != nil,
        let expected = try? DESFireTransactionMAC.value(key: key, committedCounter: record.counter, uid: uid, input: input),
        let verified = try? DESFireTransactionMAC.verify(record, key: key, uid: uid, input: input) else { return }
  if verified != (expected == record.value) { fatalError("a TMV check disagrees with the TMV computed") }
}
