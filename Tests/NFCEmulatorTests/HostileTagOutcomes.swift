import NFCReaders
import NFCTags
import NFCTransport

/// One step of a hostile-tag case, in the order ``HostileCase/run(_:clean:)`` takes them.
enum HostileStep: String, CaseIterable, Hashable, Sendable {
  case detect, status, read, info, memory, write, readBack
}

/// How a failing step failed: a ``PollError`` from detection, or the case of the ``TagError``.
enum FailureKind: String, Hashable, Sendable {
  case poll, notFormatted, malformed, readOnly, insufficientCapacity, verifyFailed, unsupported
  case authenticationFailed, transceive

  init(_ error: TagError) {
    switch error {
    case .transceive, .writeRefused, .readRefused: self = .transceive  // a refused exchange is a failed one here
    case .notFormatted: self = .notFormatted
    case .malformed: self = .malformed
    case .readOnly: self = .readOnly
    case .insufficientCapacity: self = .insufficientCapacity
    case .verifyFailed: self = .verifyFailed
    case .unsupported: self = .unsupported
    case .authenticationFailed: self = .authenticationFailed
    }
  }
}

/// What one step did: returned a value (checked against the platform's invariants), threw, or was
/// not reached because an earlier step failed.
enum StepOutcome: Hashable, Sendable, CustomStringConvertible {
  case returned
  case threw(FailureKind)

  var description: String {
    switch self {
    case .returned: return "returned"
    case .threw(let kind): return "threw \(kind.rawValue)"
    }
  }
}

/// The outcome of every step of one case, and the invariants a returned value broke.
struct HostileCase {
  /// The NDEF message every case tries to write: one Text record "x".
  static let message: [UInt8] = [0xD1, 0x01, 0x04, 0x54, 0x02, 0x65, 0x6E, 0x78]

  private(set) var outcomes: [HostileStep: StepOutcome] = [:]
  /// Broken invariants, in words; empty when every returned value kept them.
  private(set) var violations: [String] = []

  /// Steps that threw a kind not in `allowed`, as "step: threw kind".
  func unexpected(_ allowed: Set<FailureKind>) -> [String] {
    HostileStep.allCases.compactMap { step in
      guard let outcome = outcomes[step], case .threw(let kind) = outcome, !allowed.contains(kind) else { return nil }
      return "\(step.rawValue): \(outcome)"
    }
  }

  /// Whether the raw CC (as ``TagInfo/capabilityContainer`` holds it) grants write access; nil
  /// when it is too short to tell. Lock bits can still make a granting tag read-only, so only
  /// "readWrite implies granted" is checked.
  static func grantsWrite(_ platform: TagPlatform, cc: [UInt8]) -> Bool? {
    switch platform {
    case .type1, .type2:  // CC3: write access in the low nibble, 0h granted (NFC Forum T1T, T2T)
      return cc.count >= 4 ? cc[3] & 0x0F == 0 : nil
    case .type3:          // attribute block byte 10: RWFlag 01h read/write (T3T)
      return cc.count >= 11 ? cc[10] == 0x01 : nil
    case .type4:          // NDEF File Control TLV: write access 00h granted (T4T)
      guard cc.count >= 15 else { return nil }
      let index = cc[7] == 0x06 ? 16 : 14  // ENDEF File Control TLV: a 4-byte size moves it by 2
      return cc.count > index ? cc[index] == 0x00 : nil
    case .type5:          // CC1: write access in bits 1-0, 00b granted (T5T)
      return cc.count >= 2 ? cc[1] & 0x03 == 0 : nil
    case .mifareClassic:  // no CC: the NDEF sectors' GPB and access bits say it
      return nil
    }
  }

  private mutating func check(_ condition: Bool, _ what: @autoclosure () -> String) {
    if !condition { violations.append(what()) }
  }

  private mutating func step<T>(_ step: HostileStep, _ body: () throws(TagError) -> T) -> T? {
    do {
      let value = try body()
      outcomes[step] = .returned
      return value
    } catch {
      outcomes[step] = .threw(FailureKind(error))
      return nil
    }
  }

  /// Detects the target behind `transport` and runs status, read, info, memory, write and a
  /// read-back on it, recording each outcome and checking each returned value.
  ///
  /// - Parameter clean: true when the transport answers faithfully (the tag's memory may still be
  ///   garbage); then successive answers must agree with each other, not only be in bounds.
  static func run(_ transport: any APDUTransport, clean: Bool) -> HostileCase {
    var report = HostileCase()
    report.runSteps(transport, clean: clean)
    return report
  }

  private mutating func runSteps(_ transport: any APDUTransport, clean: Bool) {
    let platform: any NDEFTagPlatform
    do {
      platform = try makePlatform(for: try detectTarget(on: transport))
      outcomes[.detect] = .returned
    } catch let error as TagError {
      outcomes[.detect] = .threw(FailureKind(error))
      return
    } catch is PollError {
      outcomes[.detect] = .threw(.poll)
      return
    } catch {
      violations.append("detect: neither a PollError nor a TagError: \(error)")
      return
    }

    let status = step(.status) { () throws(TagError) in try platform.queryNDEFStatus() }
    if let status {
      check(status.capacity >= 0, "status: negative capacity \(status.capacity)")
      if let length = status.messageLength {
        check((0...max(0, status.capacity)).contains(length),
              "status: message length \(length) outside 0...\(status.capacity)")
      }
      if status.status == .notSupported { check(status.capacity == 0, "status: notSupported with capacity \(status.capacity)") }
    }

    let read = step(.read) { () throws(TagError) in try platform.readNDEF() }
    if let read, let status {
      check(read.count <= status.capacity, "read: \(read.count) bytes, capacity \(status.capacity)")
      if clean {
        check(status.status != .notSupported, "read: \(read.count) bytes from a tag whose status is notSupported")
        if let length = status.messageLength { check(read.count == length, "read: \(read.count) bytes, status said \(length)") }
      }
    }

    let info = step(.info) { () throws(TagError) in try platform.info() }
    if let info {
      check(info.platform == platform.platform, "info: platform \(info.platform) on a \(platform.platform) link")
      // Type 4 reports 0 when it has no NDEF application: the size of its files is then unknown.
      check(info.memorySize > 0 || info.ndef.status == .notSupported, "info: memory size \(info.memorySize) for \(info.ndef)")
      check(info.ndef.capacity <= info.memorySize, "info: capacity \(info.ndef.capacity) > memory \(info.memorySize)")
      if clean, let status { check(info.ndef == status, "info: NDEF \(info.ndef), status said \(status)") }
      if clean, info.ndef.status == .readWrite, let grants = Self.grantsWrite(info.platform, cc: info.capabilityContainer) {
        check(grants, "info: readWrite, but the CC \(hexString(info.capabilityContainer)) denies writing")
      }
    }

    let memory = step(.memory) { () throws(TagError) in try platform.readMemory() }
    if let memory, let info, clean {
      // Type 4 reads the whole CC file and the NDEF file, while info counts CCLEN (or, for an
      // NTAG 424 DNA, all 416 bytes): there the dump starts with the CC that info parsed.
      if platform.platform == .type4 {
        check(memory.starts(with: info.capabilityContainer), "memory: does not start with the CC info read")
      } else {
        check(memory.count == info.memorySize, "memory: \(memory.count) bytes, info said \(info.memorySize)")
      }
    }

    let wrote = step(.write) { () throws(TagError) in try platform.writeNDEF(Self.message, verify: true) } != nil
    if clean, let status {
      switch outcomes[.write] {
      case .returned?: check(status.status == .readWrite, "write: succeeded on a tag whose status is \(status.status)")
      case .threw(.readOnly)?: check(status.status == .readOnly, "write: readOnly on a tag whose status is \(status.status)")
      default: break
      }
    }
    if wrote, clean {
      let back = step(.readBack) { () throws(TagError) in try platform.readNDEF() }
      check(back == nil || back == Self.message, "read-back: \(back.map { hexString($0) } ?? "-") after a verified write")
    }
  }
}
