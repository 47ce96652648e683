/// The deepest nesting of messages inside records (Smart Poster, Handover) that decoding follows.
///
/// A top-level message is depth 0, the message inside one of its Smart Posters depth 1, and so on.
/// Deeper nesting is ``NDEFError/Code-swift.struct/nestingTooDeep``, as SwiftASN1 caps its own.
public let maximumNestingDepth = 8

/// Walks a complete buffer record by record (NFC Forum NDEF 1.0 §3.2, §3.3).
///
/// The cursor is a plain index into the input. Every length is checked against the bytes that
/// are left before anything is copied, so a claimed 4 GB payload in 20 bytes is `truncated`, and
/// nothing is allocated except the decoded records themselves. Chunks are appended in place to
/// the record they continue, so many small chunks cost linear time.
struct NDEFDecoder {
  private let bytes: ArraySlice<UInt8>
  private let depth: Int

  init(_ bytes: ArraySlice<UInt8>, depth: Int) {
    self.bytes = bytes
    self.depth = depth
  }

  /// Decodes the whole input as one message.
  func decodeMessage() throws(NDEFError) -> [NDEFRecord] {
    guard depth <= maximumNestingDepth else {
      throw NDEFError(code: .nestingTooDeep, offset: 0,
                      reason: "messages nested more than \(maximumNestingDepth) deep")
    }
    guard !bytes.isEmpty else {
      throw NDEFError(code: .empty, offset: 0, reason: "no bytes: an NDEF message has at least one record")
    }
    let base = bytes.startIndex
    let end = bytes.endIndex
    var index = base
    var records: [NDEFRecord] = []
    var chunking = false        // the last record appended is still being reassembled (CF was set)
    var first = true
    while true {
      let start = index
      // Loop invariant: index < end (checked below before looping again).
      let header = bytes[index]
      let mb = header & 0x80 != 0, me = header & 0x40 != 0, cf = header & 0x20 != 0
      let sr = header & 0x10 != 0, il = header & 0x08 != 0
      let tnfValue = header & 0x07
      let fixedLength = 2 + (sr ? 1 : 4) + (il ? 1 : 0)
      guard end - index >= fixedLength else {
        throw Self.truncatedHeader(at: index - base, left: end - index, shortRecord: sr)
      }
      let typeLength = Int(bytes[index + 1])
      let payloadLength: Int
      if sr {
        payloadLength = Int(bytes[index + 2])
      } else {
        let wide = UInt32(bytes[index + 2]) << 24 | UInt32(bytes[index + 3]) << 16
          | UInt32(bytes[index + 4]) << 8 | UInt32(bytes[index + 5])
        payloadLength = Int(exactly: wide) ?? Int.max   // 32-bit platforms: "too long" is truncated below
      }
      let idLength = il ? Int(bytes[index + fixedLength - 1]) : 0
      index += fixedLength

      // Flag and TNF rules, checked before anything is copied.
      if first {
        guard mb else {
          throw NDEFError(code: .missingMessageBegin, offset: start - base,
                          reason: "the first record has no MB (message begin) flag")
        }
      } else if mb {
        throw NDEFError(code: .unexpectedMessageBegin, offset: start - base,
                        reason: "MB (message begin) set on a record after the first")
      }
      let tnf = TypeNameFormat(rawValue: tnfValue) ?? .reserved
      if chunking {
        guard tnf == .unchanged else {
          throw NDEFError(code: .chunkInterrupted, offset: start - base,
                          reason: "a chunk is followed by a record with TNF \(tnfValue), not an unchanged (TNF 6) chunk")
        }
        guard typeLength == 0, !il else {
          throw NDEFError(code: .chunkHasTypeOrID, offset: start - base,
                          reason: "a later chunk carries a type or an ID (IL); only the first chunk may")
        }
      } else if tnf == .unchanged {
        throw NDEFError(code: .unexpectedUnchanged, offset: start - base,
                        reason: "an unchanged (TNF 6) record outside a chunked record")
      }
      if tnf == .empty, typeLength != 0 || idLength != 0 || payloadLength != 0 {
        throw NDEFError(code: .emptyRecordNotEmpty, offset: start - base,
                        reason: "an empty (TNF 0) record has a type, an ID or a payload")
      }
      if tnf == .unknown, typeLength != 0 {
        throw NDEFError(code: .unexpectedType, offset: start - base, reason: "an unknown (TNF 5) record has a type")
      }
      if cf, me {
        throw NDEFError(code: .chunkWithMessageEnd, offset: start - base,
                        reason: "a chunk has both CF (chunk follows) and ME (message end)")
      }

      // Field lengths against what is left.
      guard end - index >= typeLength else {
        throw Self.truncated(at: index - base, field: "type", needed: typeLength, left: end - index)
      }
      let typeEnd = index + typeLength
      guard end - typeEnd >= idLength else {
        throw Self.truncated(at: typeEnd - base, field: "ID", needed: idLength, left: end - typeEnd)
      }
      let idEnd = typeEnd + idLength
      guard end - idEnd >= payloadLength else {
        throw Self.truncated(at: idEnd - base, field: "payload", needed: payloadLength, left: end - idEnd)
      }
      let payloadEnd = idEnd + payloadLength

      if chunking {
        // Append in place: no copy of what was reassembled so far.
        if payloadLength > 0 {
          records[records.count - 1].payload.append(contentsOf: bytes[idEnd..<payloadEnd])
        }
      } else {
        var record = NDEFRecord(tnf: tnf,
                                type: typeLength == 0 ? [] : typeLength == 1 ? Self.oneByteTypes[Int(bytes[index])]
                                  : Array(bytes[index..<typeEnd]),
                                identifier: idLength == 0 ? [] : Array(bytes[typeEnd..<idEnd]),
                                payload: payloadLength == 0 ? [] : Array(bytes[idEnd..<payloadEnd]))
        if typeLength == 0, (1...4).contains(tnfValue) {
          record.warnings.append("\(Self.tnfName(tnf)) record with an empty type")
        }
        if tnf == .reserved {
          record.warnings.append("reserved TNF 7, shown as is and never encoded")
        }
        records.append(record)
      }
      chunking = cf
      first = false
      index = payloadEnd

      if me {
        guard index == end else {
          throw NDEFError(code: .trailingBytes, offset: index - base,
                          reason: "\(end - index) byte(s) after the last record (ME)")
        }
        return records
      }
      if index == end {
        if cf {
          throw NDEFError(code: .chunkNotContinued, offset: start - base,
                          reason: "the input ends after a chunk (CF) with no continuation")
        }
        throw NDEFError(code: .missingMessageEnd, offset: start - base,
                        reason: "the last record has no ME (message end) flag")
      }
    }
  }

  /// Every one-byte type (`T`, `U`, `s`, `t`…), made once and shared: a record of one of them
  /// takes a reference to it instead of an allocation of its own.
  private static let oneByteTypes: [[UInt8]] = (0...255).map { [UInt8($0)] }

  /// The error for a record header cut short: names the first field that is cut, at its offset.
  private static func truncatedHeader(at offset: Int, left: Int, shortRecord: Bool) -> NDEFError {
    let lengthBytes = shortRecord ? 1 : 4
    let (field, fieldOffset): (String, Int) =
      left < 2 ? ("type length", 1) : left < 2 + lengthBytes ? ("payload length", 2) : ("ID length", 2 + lengthBytes)
    return NDEFError(code: .truncated, offset: offset + fieldOffset,
                     reason: "input ends inside the record header, in the \(field)")
  }

  private static func truncated(at offset: Int, field: String, needed: Int, left: Int) -> NDEFError {
    NDEFError(code: .truncated, offset: offset,
              reason: "the \(field) needs \(needed) byte(s) but only \(left) are left")
  }

  static func tnfName(_ tnf: TypeNameFormat) -> String {
    switch tnf {
    case .empty: return "empty"
    case .wellKnown: return "well-known"
    case .media: return "media"
    case .absoluteURI: return "absolute-URI"
    case .external: return "external"
    case .unknown: return "unknown"
    case .unchanged: return "unchanged"
    case .reserved: return "reserved"
    }
  }
}

extension NDEFRecord {
  /// True for the well-known types whose payload holds a nested message: `Sp`, `Hr`, `Hs`, `Hm`, `Hi`.
  var nestsMessage: Bool {
    guard tnf == .wellKnown else { return false }
    if type.count == 2, type[0] == 0x53, type[1] == 0x70 { return true }                  // "Sp"
    return type.count == 2 && type[0] == 0x48 && [0x72, 0x73, 0x6D, 0x69].contains(type[1]) // "Hr" "Hs" "Hm" "Hi"
  }

  /// The bytes of the nested message: the whole payload of `Sp`, the payload after the version
  /// byte of handover records.
  var nestedMessageBytes: ArraySlice<UInt8> {
    type.first == 0x48 ? payload.dropFirst() : payload[...]
  }

  /// The message nested in a Smart Poster (`Sp`) or handover (`Hr`, `Hs`, `Hm`, `Hi`) record.
  ///
  /// Returns nil for records of other types, and an empty message for a handover record that is
  /// only a version byte. The whole tree below is checked against ``maximumNestingDepth``, so
  /// a caller may recurse through this method without its own guard.
  /// NFC Forum Smart Poster RTD 1.0 §3; Connection Handover 1.3 §6.
  /// - Throws: ``NDEFError`` when the nested bytes are not a valid message, or nest too deep.
  public func nestedMessage() throws(NDEFError) -> NDEFMessage? {
    guard nestsMessage else { return nil }
    let bytes = nestedMessageBytes
    if bytes.isEmpty, type.first == 0x48 { return NDEFMessage(records: []) }
    return try NDEFMessage(nestedIn: self, depth: 1)
  }
}

extension NDEFMessage {
  /// Decodes the message nested in `record` at `depth`, and checks that containers inside it
  /// do not nest past ``maximumNestingDepth``.
  init(nestedIn record: NDEFRecord, depth: Int) throws(NDEFError) {
    self.init(records: try NDEFDecoder(record.nestedMessageBytes, depth: depth).decodeMessage())
    try Self.checkNesting(records, depth: depth)
  }

  /// Follows nested containers below `depth`. Only depth matters here: an inner container that
  /// does not decode is left for whoever parses it.
  static func checkNesting(_ records: [NDEFRecord], depth: Int) throws(NDEFError) {
    for record in records where record.nestsMessage {
      let bytes = record.nestedMessageBytes
      if bytes.isEmpty { continue }
      let inner: [NDEFRecord]
      do {
        inner = try NDEFDecoder(bytes, depth: depth + 1).decodeMessage()
      } catch {
        if error.code == .nestingTooDeep { throw error }
        continue
      }
      try checkNesting(inner, depth: depth + 1)
    }
  }
}
