/// The deepest nesting of messages inside records (Smart Poster, Handover) that decoding follows.
public let maximumNestingDepth = 8

/// Walks a complete buffer record by record. Every length is checked against the bytes that
/// are left before anything is copied, so a claimed 4 GB payload in 20 bytes is `truncated`.
struct NDEFDecoder {
  private let bytes: ArraySlice<UInt8>
  private var index: Int
  private let depth: Int

  init(_ bytes: ArraySlice<UInt8>, depth: Int) {
    self.bytes = bytes
    self.index = bytes.startIndex
    self.depth = depth
  }

  private var offset: Int { index - bytes.startIndex }

  private mutating func byte(_ what: StaticString) throws(NDEFError) -> UInt8 {
    guard index < bytes.endIndex else {
      throw NDEFError(code: .truncated, offset: offset, reason: "input ends before the \(what)")
    }
    defer { index += 1 }
    return bytes[index]
  }

  private mutating func take(_ count: Int, _ what: StaticString) throws(NDEFError) -> ArraySlice<UInt8> {
    guard count <= bytes.endIndex - index else {
      throw NDEFError(code: .truncated, offset: offset,
                      reason: "the \(what) needs \(count) bytes but only \(bytes.endIndex - index) are left")
    }
    defer { index += count }
    return bytes[index..<(index + count)]
  }

  mutating func decodeMessage() throws(NDEFError) -> [NDEFRecord] {
    guard depth <= maximumNestingDepth else {
      throw NDEFError(code: .nestingTooDeep, offset: 0, reason: "messages nested more than \(maximumNestingDepth) deep")
    }
    guard !bytes.isEmpty else {
      throw NDEFError(code: .empty, offset: 0, reason: "no bytes: an NDEF message has at least one record")
    }
    var records: [NDEFRecord] = []
    var chunked: NDEFRecord? = nil   // the logical record being reassembled
    var first = true
    while true {
      let start = offset
      let header = try byte("record header")
      let mb = header & 0x80 != 0, me = header & 0x40 != 0, cf = header & 0x20 != 0
      let sr = header & 0x10 != 0, il = header & 0x08 != 0
      let tnfValue = header & 0x07
      let typeLength = Int(try byte("type length"))
      let payloadLength: Int
      if sr {
        payloadLength = Int(try byte("payload length"))
      } else {
        let b = try take(4, "payload length")
        var value = 0
        for x in b { value = value << 8 | Int(x) }
        payloadLength = value
      }
      let idLength = il ? Int(try byte("ID length")) : 0

      if first {
        guard mb else {
          throw NDEFError(code: .missingMessageBegin, offset: start, reason: "the first record has no MB (message begin) flag")
        }
      } else if mb {
        throw NDEFError(code: .unexpectedMessageBegin, offset: start, reason: "MB (message begin) set on a record after the first")
      }
      let tnf = TypeNameFormat(rawValue: tnfValue) ?? .reserved
      if chunked != nil {
        guard tnf == .unchanged else {
          throw NDEFError(code: .chunkInterrupted, offset: start,
                          reason: "a chunk is followed by a record with TNF \(tnfValue), not an unchanged (6) chunk")
        }
        guard typeLength == 0, !il else {
          throw NDEFError(code: .chunkHasTypeOrID, offset: start, reason: "a later chunk carries a type or an ID")
        }
      } else if tnf == .unchanged {
        throw NDEFError(code: .unexpectedUnchanged, offset: start, reason: "an unchanged (TNF 6) record outside a chunked record")
      }
      if tnf == .empty, typeLength != 0 || idLength != 0 || payloadLength != 0 {
        throw NDEFError(code: .emptyRecordNotEmpty, offset: start, reason: "an empty (TNF 0) record has a type, an ID or a payload")
      }
      if tnf == .unknown, typeLength != 0 {
        throw NDEFError(code: .unexpectedType, offset: start, reason: "an unknown (TNF 5) record has a type")
      }
      if cf, me {
        throw NDEFError(code: .chunkNotContinued, offset: start, reason: "the last record (ME) has the CF (chunk) flag")
      }

      let type = try take(typeLength, "type")
      let identifier = try take(idLength, "ID")
      let payload = try take(payloadLength, "payload")

      if var logical = chunked {
        logical.payload.append(contentsOf: payload)
        if cf {
          chunked = logical
        } else {
          chunked = nil
          records.append(logical)
        }
      } else {
        var record = NDEFRecord(tnf: tnf, type: Array(type), identifier: Array(identifier), payload: Array(payload))
        if type.isEmpty, (1...4).contains(tnfValue) {
          record.warnings.append("\(Self.tnfName(tnf)) record with an empty type")
        }
        if tnf == .reserved {
          record.warnings.append("reserved TNF 7, treated as unknown")
        }
        if cf { chunked = record } else { records.append(record) }
      }
      first = false

      if me {
        guard index == bytes.endIndex else {
          throw NDEFError(code: .trailingBytes, offset: offset,
                          reason: "\(bytes.endIndex - index) byte(s) after the last record (ME)")
        }
        return records
      }
      if index == bytes.endIndex {
        if cf {
          throw NDEFError(code: .chunkNotContinued, offset: start, reason: "the input ends after a chunk (CF) with no continuation")
        }
        throw NDEFError(code: .missingMessageEnd, offset: start, reason: "the last record has no ME (message end) flag")
      }
    }
  }

  static func tnfName(_ tnf: TypeNameFormat) -> String {
    switch tnf {
    case .wellKnown: return "well-known"
    case .media: return "media"
    case .absoluteURI: return "absolute-URI"
    case .external: return "external"
    default: return "TNF \(tnf.rawValue)"
    }
  }
}
