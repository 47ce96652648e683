import NFCTransport

/// The status words with which a reader says it has no such command (`6A 81` function not
/// supported, `6D 00` / `6E 00` instruction or class not supported, `68 00` CLA function not
/// supported): the path is missing, not the tag.
let refusedCommandStatuses: Set<StatusWord> = [StatusWord(0x6A, 0x81), StatusWord(0x6D, 0x00), StatusWord(0x6E, 0x00),
                                               StatusWord(0x68, 0x00)]

/// The data of a reader's answer to a command for a tag `family` ("FeliCa", "Topaz (Type 1)") sent
/// by `path` ("direct transmit", "SCM's FeliCa pseudo-APDUs"). A status of
/// `refusedCommandStatuses` is `unsupported`, naming the reader and the readers that read the
/// family (`reading`); another failing status is `status`.
func pathAnswer(_ reply: [UInt8], from readerName: String, family: String, path: String,
                reading: KeyPath<ReaderCapabilities, Bool?>) throws(TransceiveError) -> [UInt8] {
  guard let response = ResponseAPDU(reply) else { throw .malformedResponse(reply) }
  let sw = response.statusWord
  if refusedCommandStatuses.contains(sw) {
    let working = ReaderCapabilities.readers(reading: reading).map(\.productName)
    let shortName = family.split(separator: " ").first.map(String.init) ?? family
    throw .unsupported("\(family) commands on \(readerName): it refuses \(path) (\(sw)); "
                       + "\(shortName) works through nfctag on the \(working.joined(separator: ", "))")
  }
  guard sw.isSuccess else { throw .status(sw) }
  return response.data
}

/// FeliCa (NFC Forum Type 3) through the pseudo-APDUs SCM Microsystems defined, which the SCL3711
/// and Identiv's uTrust 3700 F take (SCM "SCL3711 Reference Manual" v1.3 §6.4.3; Identiv "Reference
/// Manual for the CLOUD 370x F Contactless Desktop Readers" v1.0 §6.2.13–6.2.18). The Type 3 command
/// layer's frames (`LEN code IDm …`) are turned into them, and the answers back into the card's
/// frames (`LEN code+1 …`):
/// - Polling `06 00 SC SC RC TSN` → REQC `FF 40 00 00 04 SC SC RC TSN` → IDm PMm [SC];
/// - Request Service `02` → `FF 42 n 00 2n <codes>`, Request Response `04` → `FF 44 00 00 00`,
///   Request System Code `0C` → `FF 4A 00 00 00`; the reader adds the IDm it polled;
/// - Check (Read Without Encryption) `06 IDm n <services> m <blocks>` → `FF 46 n m 2(n+m)
///   <services> <blocks>` → IDm SF1 SF2 [m data];
/// - Update (Write Without Encryption) `08 … <data>` → `FF 48 n m 2(n+m)+16m …` → IDm SF1 SF2.
///
/// The manuals give the service code and block lists as "2 × (P1 + P2)" bytes and no byte order:
/// the link sends them as the FeliCa command carries them (service codes least significant byte
/// first, 2-byte block list elements), since the reader "issues a READ as defined in JIS"; a
/// 3-byte block list element (a block number above 255) cannot be carried and is refused.
/// liblogicalaccess' `FeliCaSCMCommands` sends the service code most significant byte first: a
/// reader that reads it so would answer `A6` (invalid service code) in the status flags.
public final class SCMFeliCaLink: Transceiver {
  let transport: any APDUTransport
  /// A short APDU: the answer at most 254 bytes as a FeliCa frame (15 blocks of a Check), the
  /// command at most 255.
  public let capabilities = LinkCapabilities(maxResponseLength: 254, maxCommandLength: 255, rawCommands: true)
  /// How commands reach the tag, for people.
  public var pathDescription: String { "SCM FeliCa pseudo-APDUs (FF 40 REQC, FF 46 read, FF 48 write)" }

  /// A link over `transport`, a PC/SC connection to an SCM/Identiv reader with a FeliCa card.
  public init(transport: any APDUTransport) { self.transport = transport }

  /// REQC for every system code (`FFFF`), request code 01: what detection sends to learn the IDm,
  /// PMm and system code, and whether the reader has these commands.
  static let reqc: [UInt8] = [0xFF, 0x40, 0x00, 0x00, 0x04, 0xFF, 0xFF, 0x01, 0x00]

  /// Sends one FeliCa command (length byte first) as the matching pseudo-APDU and returns the
  /// card's answer as a FeliCa frame (length byte first).
  /// - Throws: `TransceiveError.unsupported(_:)` for a command these pseudo-APDUs do not carry or a
  ///   reader that refuses them; `TransceiveError.status(_:)` for another reader status (the card did
  ///   not answer); `malformedResponse` for an answer of the wrong shape; the transport's failure.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard command.count >= 2, Int(command[0]) == command.count else {
      throw .unsupported("a FeliCa command whose length byte does not match its \(command.count) bytes")
    }
    let code = command[1]
    let apdu: [UInt8]
    switch code {
    case 0x00 where command.count == 6:
      apdu = [0xFF, 0x40, 0x00, 0x00, 0x04] + command[2..<6]
    case 0x02 where command.count >= 11 && command.count == 11 + 2 * Int(command[10]) && command[10] > 0:
      apdu = [0xFF, 0x42, command[10], 0x00, UInt8(command.count - 11)] + command[11...]
    case 0x04 where command.count == 10:
      apdu = [0xFF, 0x44, 0x00, 0x00, 0x00]
    case 0x0C where command.count == 10:
      apdu = [0xFF, 0x4A, 0x00, 0x00, 0x00]
    case 0x06, 0x08:
      apdu = try blockCommand(command, write: code == 0x08)
    default:
      throw .unsupported("FeliCa command \(hexString([code])) (\(command.count) bytes) through SCM's pseudo-APDUs")
    }
    let data = try exchange(apdu)
    let minimum = code == 0x00 ? 16 : code == 0x06 || code == 0x08 ? 10 : 9
    guard data.count >= minimum, data.count + 2 <= 0xFF else { throw .malformedResponse(data) }
    if code == 0x00, data.count != 16 && data.count != 18 { throw .malformedResponse(data) }
    return [UInt8(data.count + 2), code &+ 1] + data
  }

  /// `FF 46 n m Lc <services> <blocks>` or `FF 48 … <data>` from a Check or Update frame.
  private func blockCommand(_ command: [UInt8], write: Bool) throws(TransceiveError) -> [UInt8] {
    let name = write ? "Update" : "Check"
    guard command.count >= 12 else { throw .unsupported("a \(name) of \(command.count) bytes") }
    let services = Int(command[10])
    var index = 11 + 2 * services
    guard services > 0, index < command.count else { throw .unsupported("a \(name) with \(services) services") }
    let serviceList = command[11..<index]
    let blocks = Int(command[index])
    index += 1
    var blockList: [UInt8] = []
    for _ in 0..<blocks {
      guard index + 1 < command.count else { throw .unsupported("a \(name) whose block list is cut short") }
      guard command[index] & 0x80 != 0 else {
        throw .unsupported("a \(name) of a block above 255 (3-byte block list element): SCM's pseudo-APDUs carry 2-byte elements only")
      }
      blockList += command[index...(index + 1)]
      index += 2
    }
    let data = command[index...]
    guard blocks > 0, data.count == (write ? 16 * blocks : 0) else {
      throw .unsupported("a \(name) of \(blocks) blocks with \(data.count) data bytes")
    }
    let body = Array(serviceList) + blockList + data
    guard body.count <= 0xFF else { throw .unsupported("a \(name) of \(blocks) blocks (\(body.count) bytes)") }
    return [0xFF, write ? 0x48 : 0x46, UInt8(services), UInt8(blocks), UInt8(body.count)] + body
  }

  private func exchange(_ apdu: [UInt8]) throws(TransceiveError) -> [UInt8] {
    try pathAnswer(try transport.transmit(apdu), from: transport.readerName, family: "FeliCa",
                   path: "SCM's FeliCa pseudo-APDUs", reading: \.felica)
  }
}

/// Type 1 (Topaz) through the SCL3711's pseudo-APDUs (SCM "SCL3711 Reference Manual" v1.3 §6.4.1).
/// The reader adds the UID it learnt and answers the data without the echoed address, so the link
/// drops the UID from the tag's frames (nfcpy `tt1.py` form: command, address, data, UID0–UID3)
/// and puts the address back in the answers:
/// - RID `78 …` → `FF 50 00 00 00` → HR0 HR1 UID0–3 (§6.4.1.1);
/// - RALL `00 00 00 UID` → `FF 52 00 00 00` → HR0 HR1 and blocks 0–E (§6.4.1.2);
/// - READ `01 ADD 00 UID` → `FF 54 00 ADD 00` → one byte (§6.4.1.3);
/// - WRITE-E `53 ADD DATA UID` → `FF 56 00 ADD 01 DATA`, WRITE-NE `1A …` → `FF 58 …` → one byte
///   (§6.4.1.4–5);
/// - RSEG `10 ADDS …` → `FF 5A 00 ADDS 00` → 128 bytes (§6.4.1.6);
/// - READ8 `02 block …` → `FF 5C 00 block 00` → 8 bytes (§6.4.1.7);
/// - WRITE-E8 `54 block DATA8 UID` → `FF 5E 00 block 08 DATA8`, WRITE-NE8 `1B …` → `FF 60 …` → 8 bytes
///   (§6.4.1.8–9).
public final class SCMType1Link: Transceiver {
  let transport: any APDUTransport
  /// 129 bytes: RSEG's answer with its address, the longest; commands of 14 bytes (the 8-byte ones).
  public let capabilities = LinkCapabilities(maxResponseLength: 129, maxCommandLength: 14, rawCommands: true)
  /// How commands reach the tag, for people.
  public var pathDescription: String { "SCM Type 1 pseudo-APDUs (FF 50-FF 60)" }

  /// A link over `transport`, a PC/SC connection to an SCL3711 with a Type 1 tag.
  public init(transport: any APDUTransport) { self.transport = transport }

  /// Sends one Type 1 command as the matching pseudo-APDU and returns the tag's answer as the tag
  /// sends it (address first, where it has one).
  /// - Throws: `TransceiveError.unsupported(_:)` for a command the pseudo-APDUs do not carry or a
  ///   reader that refuses them; `TransceiveError.status(_:)` for another reader status (the tag
  ///   did not answer, a locked block); `malformedResponse` for an answer of the wrong length.
  public func transceive(_ command: [UInt8]) throws(TransceiveError) -> [UInt8] {
    guard let code = command.first else { throw .unsupported("an empty Type 1 command") }
    let address = command.count > 1 ? command[1] : 0
    switch (code, command.count) {
    case (0x78, 7): return try exchange([0xFF, 0x50, 0x00, 0x00, 0x00], answer: 6)
    case (0x00, 7): return try exchange([0xFF, 0x52, 0x00, 0x00, 0x00], answer: 122)
    case (0x01, 7): return [address] + (try exchange([0xFF, 0x54, 0x00, address, 0x00], answer: 1))
    case (0x53, 7), (0x1A, 7):
      return [address] + (try exchange([0xFF, code == 0x53 ? 0x56 : 0x58, 0x00, address, 0x01, command[2]], answer: 1))
    case (0x10, 14): return [address] + (try exchange([0xFF, 0x5A, 0x00, address, 0x00], answer: 128))
    case (0x02, 14): return [address] + (try exchange([0xFF, 0x5C, 0x00, address, 0x00], answer: 8))
    case (0x54, 14), (0x1B, 14):
      return [address] + (try exchange([0xFF, code == 0x54 ? 0x5E : 0x60, 0x00, address, 0x08] + command[2..<10], answer: 8))
    default:
      throw .unsupported("Type 1 command \(hexString([code])) (\(command.count) bytes) through SCM's pseudo-APDUs")
    }
  }

  private func exchange(_ apdu: [UInt8], answer length: Int) throws(TransceiveError) -> [UInt8] {
    let data = try pathAnswer(try transport.transmit(apdu), from: transport.readerName, family: "Topaz (Type 1)",
                              path: "SCM's Type 1 pseudo-APDUs", reading: \.type1)
    guard data.count == length else { throw .malformedResponse(data) }
    return data
  }
}
