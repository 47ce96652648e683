import NFCTransport

/// The ISO 7816-4 commands of the NDEF Tag Application (SELECT, READ BINARY, UPDATE BINARY, GET
/// RESPONSE) and the selection they keep track of, one APDU exchange each.
extension Type4Tag {
  /// Runs `body`; when it fails because a selection remembered from an earlier operation was lost
  /// (the tag was reset), selects again and runs it once more.
  func withSelectionRecovery<T>(_ body: () throws(TagError) -> T) throws(TagError) -> T {
    let reused = selection != .none
    do {
      return try body()
    } catch {
      guard reused, case .transceive(.status(let sw), _, _) = error, sw == .fileNotFound || sw == .commandNotAllowed
      else { throw error }
      selection = .none
      return try body()
    }
  }

  func selectApplication() throws(TagError) {
    selection = .none
    let (_, sw2) = try exchange([0x00, 0xA4, 0x04, 0x00, 0x07] + Self.applicationV2 + [0x00],
                                what: "SELECT (NDEF application)", address: nil)
    if sw2.isSuccess {
      isVersion1 = false
      selection = .application
      return
    }
    let (_, sw1) = try exchange([0x00, 0xA4, 0x04, 0x00, 0x07] + Self.applicationV1,
                                what: "SELECT (NDEF application v1)", address: nil)
    guard sw1.isSuccess else {
      throw .notFormatted("no NDEF Tag Application: SELECT by name answered "
                          + "\(Self.spaced(sw2, "v2")) and \(Self.spaced(sw1, "v1"))")
    }
    isVersion1 = true
    selection = .application
  }

  /// Selects an elementary file by identifier, unless it is the current one.
  func select(file fid: [UInt8], notFound: String? = nil) throws(TagError) {
    if selection == .file(fid) { return }
    if selection == .none { try selectApplication() }
    let p2: UInt8 = isVersion1 ? 0x00 : 0x0C
    let (_, sw) = try exchange([0x00, 0xA4, 0x00, p2, 0x02] + fid, what: "SELECT (file \(hexString(fid)))", address: nil)
    guard sw.isSuccess else {
      selection = .application
      if let notFound { throw .notFormatted("\(notFound): SELECT answered \(Self.spaced(sw))") }
      throw .transceive(.status(sw), command: "SELECT (file \(hexString(fid)))", address: nil)
    }
    selection = .file(fid)
  }

  /// READ BINARY of `length` bytes at `offset` in the current file. Answers of fewer bytes are
  /// accepted (the caller reads on); `62 82` (end of file) too when `acceptShort`; `6C xx` is
  /// retried once with Le = xx.
  func readBinary(offset: Int, length: Int, what: String, acceptShort: Bool = false) throws(TagError) -> [UInt8] {
    guard offset >= 0, offset <= 0x7FFF else {
      throw .unsupported("offset \(offset) needs READ BINARY with an offset data object (B1h), which is not sent")
    }
    guard length >= 1 else { return [] }
    var le = length
    for attempt in 0..<2 {
      var apdu: [UInt8] = [0x00, 0xB0, UInt8(offset >> 8), UInt8(offset & 0xFF)]
      if le > 256 {
        apdu += [0x00, UInt8((le >> 8) & 0xFF), UInt8(le & 0xFF)]  // extended Le (0000 = 65536)
      } else {
        apdu.append(UInt8(le & 0xFF))  // 00 = 256
      }
      let (data, sw) = try exchange(apdu, what: what, address: offset)
      if let exact = sw.exactLength, attempt == 0, sw.sw2 != 0 {
        le = exact
        continue
      }
      guard sw.isSuccess || (acceptShort && sw == .endOfFileReached) else {
        throw .transceive(.status(sw), command: what, address: offset)
      }
      guard !data.isEmpty, data.count <= le else {
        throw .transceive(.malformedResponse(data + sw.bytes), command: what, address: offset)
      }
      return data
    }
    throw .transceive(.malformedResponse([]), command: what, address: offset)
  }

  func updateBinary(offset: Int, data: [UInt8]) throws(TagError) {
    guard offset >= 0, offset <= 0x7FFF else {
      throw .unsupported("offset \(offset) needs UPDATE BINARY with an offset data object (D7h), which is not sent")
    }
    var apdu: [UInt8] = [0x00, 0xD6, UInt8(offset >> 8), UInt8(offset & 0xFF)]
    if data.count > 255 {
      apdu += [0x00, UInt8(data.count >> 8), UInt8(data.count & 0xFF)]
    } else {
      apdu.append(UInt8(data.count))
    }
    let (_, sw) = try exchange(apdu + data, what: "UPDATE BINARY", address: offset)
    guard sw.isSuccess else {
      if sw == .securityStatusNotSatisfied { throw .readOnly }
      throw .transceive(.status(sw), command: "UPDATE BINARY", address: offset)
    }
  }

  /// Sends one APDU; returns the data and SW1 SW2. `61 xx` is followed by GET RESPONSE.
  func exchange(_ apdu: [UInt8], what: String, address: Int?) throws(TagError) -> ([UInt8], StatusWord) {
    var data: [UInt8] = []
    var command = apdu
    for _ in 0..<256 {
      let reply: [UInt8]
      do {
        reply = try link.transceive(command)
      } catch {
        throw .transceive(error, command: what, address: address)
      }
      guard let response = ResponseAPDU(reply) else {
        throw .transceive(.malformedResponse(reply), command: what, address: address)
      }
      data += response.data
      let sw = response.statusWord
      guard sw.moreDataLength != nil else { return (data, sw) }
      command = [0x00, 0xC0, 0x00, 0x00, sw.sw2]  // GET RESPONSE
    }
    throw .transceive(.malformedResponse(data), command: what, address: address)
  }

  /// "6a 82 (v2, file or application not found)": the status word as people read it in messages,
  /// with `note` and the status word's meaning in parentheses when there are any.
  private static func spaced(_ sw: StatusWord, _ note: String? = nil) -> String {
    let details = [note, sw.isKnown ? sw.meaning : nil].compactMap { $0 }
    let bytes = hexString(sw.bytes, separator: " ")
    return details.isEmpty ? bytes : "\(bytes) (\(details.joined(separator: ", ")))"
  }
}
