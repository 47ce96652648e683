// libFuzzer entry point over reader identification (detectTarget): the ATR, the answer to
// GET_VERSION by direct transmit (ACR122U with a Type 2 tag) or to the firmware pseudo-APDU, GET
// DATA (the UID) and the FeliCa polling answer all come from the fuzz input; the platform
// detected then reads its status and message through the link it was given, over the same
// hostile reader. Built by scripts/fuzz.sh with NFCTransport, NFCTags, NFCReaders' detection and
// link files and Fuzz/Support/HostileReader.swift.
//
// Input: ATR length (low 5 bits; bit 5: an ATR of a real reader instead, bits 6-7 which one),
// the ATR, then the reader's answers (HostileReader's control bytes).

/// The fuzz build has no packages: detectTarget's optional logger is never given, so these stand
/// in for swift-log's Logger and the tracing transport of Trace.swift.
public struct Logger {}
// swiftlint:disable:next identifier_name
func TracingTransport(_ transport: any APDUTransport, logger: Logger) -> any APDUTransport { transport }

/// ATRs that real readers give (PC/SC Part 3 storage cards and ISO 14443-4): NTAG21x, FeliCa, a
/// Type 4 card, ICODE SLIX2; mutated ATRs rarely keep the RID and standard bytes intact.
let knownATRs: [[UInt8]] = [
  [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x03, 0x00, 0x03, 0x00, 0x00, 0x00, 0x00, 0x68],
  [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x11, 0x00, 0x3B, 0x00, 0x00, 0x00, 0x00, 0x42],
  [0x3B, 0x81, 0x80, 0x01, 0x80, 0x80],
  [0x3B, 0x8F, 0x80, 0x01, 0x80, 0x4F, 0x0C, 0xA0, 0x00, 0x00, 0x03, 0x06, 0x0B, 0x00, 0x14, 0x00, 0x00, 0x00, 0x00, 0x77],
]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
  let bytes = Array(UnsafeBufferPointer(start: data, count: size))
  guard let first = bytes.first else { return 0 }
  var rest = bytes.dropFirst()
  let atr: [UInt8]
  if first & 0x20 != 0 {
    atr = knownATRs[Int(first >> 6) % knownATRs.count]
  } else {
    atr = Array(rest.prefix(Int(first & 0x1F)))
    rest = rest.dropFirst(atr.count)
  }
  let reader = HostileReader(rest, atr: atr)
  guard let target = try? detectTarget(on: reader) else { return 0 }
  if let version = target.details.type2Version, version.count != 8 { fatalError("a \(version.count)-byte GET_VERSION") }
  if let pmm = target.details.felicaPMm, pmm.count != 8 || target.identifier.count != 8 {
    fatalError("FeliCa IDm \(target.identifier.count) bytes, PMm \(pmm.count)")
  }
  guard let platform = try? makePlatform(for: target) else { return 0 }
  _ = platform.identifier
  if let report = try? platform.queryNDEFStatus(), report.capacity < 0 { fatalError("negative capacity \(report.capacity)") }
  _ = try? platform.readNDEF()
  return 0
}
