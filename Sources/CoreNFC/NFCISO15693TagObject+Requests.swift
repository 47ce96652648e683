#if os(Linux)
import Foundation
internal import NFCSession
internal import NFCTags

// The ISO 15693 commands, on the calling thread (as NFCSession's tags run them): the frame from
// NFCTags' `ISO15693Requests`, the parameters Core NFC takes checked, the answer read.
extension ISO15693TagObject {
  /// Sends the request `build` makes with `flags`, addressed unless they contain `.select` (as
  /// Core NFC sends), and returns the answer after its flags byte. A tag's refusal is a tag
  /// response error with the tag's error code; `build` answering nil, an invalid parameter.
  func send(_ flags: Flags, invalid: @autoclosure () -> String = "",
            _ build: (ISO15693Requests) throws -> [UInt8]?) throws -> [UInt8] {
    var flags = flags
    if flags.contains(.select) { flags.remove(.address) } else { flags.insert(.address) }
    // On the air the UID goes least significant byte first (ISO/IEC 15693-3 §7.3.3).
    let requests = ISO15693Requests(flags: flags.rawValue, address: flags.contains(.address) ? uid.reversed() : [])
    guard let frame = try build(requests) else { throw NFCReaderError(.readerErrorInvalidParameter, message: invalid()) }
    let tag = tag
    do {
      return try tag.send(frame).data
    } catch {
      var mappedError = NFCReaderError(error)
      if case .nak(let code)? = error.underlyingError as? TransceiveError { mappedError.iso15693ResponseErrorCode = Int(code) }
      throw mappedError
    }
  }

  /// ``send(_:invalid:_:)`` for a command that answers nothing.
  func none(_ flags: Flags, _ build: (ISO15693Requests) throws -> [UInt8]?) throws { _ = try send(flags, build) }
  /// ``send(_:invalid:_:)`` for a command that answers data.
  func data(_ flags: Flags, _ build: (ISO15693Requests) throws -> [UInt8]?) throws -> Data { Data(try send(flags, build)) }

  func quiet() throws {
    do {
      try none([.highDataRate]) { $0.stayQuiet() }
    } catch let error as NFCReaderError {
      // STAY QUIET has no answer (ISO/IEC 15693-3 §10.3.3): silence is the tag obeying.
      guard let cause = error.underlyingError as? NFCSession.NFCReaderError,
            cause.causes.contains(where: { ($0 as? TransceiveError) == .timeout }) else { throw error }
    }
  }

  /// A block number of the extended commands: 0–65535.
  func block(_ number: Int) throws -> UInt16 {
    guard let block = UInt16(exactly: number) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "the block number \(number) is not within blocks 0 to 65535")
    }
    return block
  }

  /// `range` as the blocks a command names (blocks 0–255, or 0–65535 for the extended commands).
  func blocks(_ range: NSRange, extended: Bool) throws -> ISO15693BlockRange {
    guard let blocks = ISO15693BlockRange(first: range.location, count: range.length, extended: extended) else {
      let last = extended ? 65535 : 255
      throw NFCReaderError(.readerErrorInvalidParameter,
                           message: "the block range \(range.location)+\(range.length) is not within blocks 0 to \(last)")
    }
    return blocks
  }

  func readBlocks(_ flags: Flags, _ range: NSRange, extended: Bool) throws -> [Data] {
    let blocks = try blocks(range, extended: extended)
    let answer = try send(flags) { $0.readMultipleBlocks(blocks) }
    guard let split = ISO15693Requests.blocks(answer, count: blocks.count) else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError,
                           message: "READ MULTIPLE BLOCKS of \(blocks.count) blocks answered \(answer.count) bytes")
    }
    return split.map { Data($0) }
  }

  func writeBlocks(_ flags: Flags, _ range: NSRange, _ data: [Data], extended: Bool) throws {
    let blocks = try blocks(range, extended: extended)
    guard data.count == blocks.count, let size = data.first?.count, size > 0, data.allSatisfy({ $0.count == size }) else {
      throw NFCReaderError(.readerErrorInvalidParameter,
                           message: "WRITE MULTIPLE BLOCKS takes one block of data per block of the range, all of one size")
    }
    _ = try send(flags) { $0.writeMultipleBlocks(blocks, data.flatMap { Array($0) }) }
  }

  /// GET MULTIPLE BLOCK SECURITY STATUS (2Ch) or its extended form (3Ch): one byte per block.
  func securityStatus(_ flags: Flags, _ range: NSRange, extended: Bool) throws -> [NSNumber] {
    let blocks = try blocks(range, extended: extended)
    let status = try send(flags) { $0.blockSecurityStatus(blocks) }
    guard status.count == blocks.count else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError,
                           message: "the block security status of \(blocks.count) blocks came as \(status.count) bytes")
    }
    return status.map { NSNumber(value: Int($0)) }
  }

  func systemInformation(_ flags: Flags) throws -> NFCISO15693SystemInfo {
    let answer = try send(flags) { $0.getSystemInformation() }
    do {
      return NFCISO15693SystemInfo(try Type5SystemInfo(parsing: answer))
    } catch {
      throw NFCReaderError(NFCSession.NFCReaderError(error))
    }
  }

  func custom(_ flags: Flags, _ code: Int, _ parameters: Data) throws -> Data {
    guard let manufacturer = UInt8(exactly: icManufacturerCode), uid.count == 8 else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "the tag's UID names no manufacturer")
    }
    return Data(try send(flags, invalid: "custom commands are A0h to DFh, not \(code)") { requests in
      UInt8(exactly: code).flatMap { requests.custom($0, manufacturer: manufacturer, Array(parameters)) }
    })
  }

  /// `flags command data` as given; the answer's flags and the rest, a refusal included.
  func raw(_ flags: Int, _ command: Int, _ data: Data?) throws -> (NFCISO15693ResponseFlag, Data?) {
    guard let flagsByte = UInt8(exactly: flags), let commandByte = UInt8(exactly: command) else {
      throw NFCReaderError(.readerErrorInvalidParameter, message: "request flags and command code are bytes (\(flags), \(command))")
    }
    let tag = tag
    let answer = try mapped { () throws(NFCSession.NFCReaderError) in
      try tag.sendRawRequest([flagsByte, commandByte] + Array(data ?? Data()))
    }
    guard let responseFlags = answer.first else {
      throw NFCReaderError(.readerTransceiveErrorTagResponseError, message: "the tag answered nothing")
    }
    return (NFCISO15693ResponseFlag(rawValue: responseFlags), Data(answer.dropFirst()))
  }
}
#endif
