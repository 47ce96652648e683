import Crypto
import NFCSession
import NFCTags
import ProvisioningLedger

/// The steps for one tag: claim a row, write, verify, protect, lock, commit; the ledger first
/// and last, so that nothing is reported done that it did not commit.
///
/// Order: claim (one transaction) → render → authenticate when the tag is protected by
/// this job's secret → tear-safe write, read back → mirror, password, lock → read back again →
/// commit done → signal. A failure before the first write gives a newly claimed row back
/// (`unclaim`); after it, the row stays bound to the tag (`fail`) so that no other tag gets it.
struct TagProvisioner {
  let ledger: any Ledger
  let content: any ProvisioningContent
  let options: ProvisioningOptions
  let reader: String

  /// What one tag came to, before it is reported.
  struct Outcome {
    var rowID: String?
    var status: ProvisionedTag.Status
    var reason: String?
    var exitStatus: Int32?
    /// Capacity problems of the job, found on the first tag: the run ends.
    var refusal: [String]?
  }

  /// A failure and whether the tag was touched before it.
  private struct StepFailure: Error {
    var error: any Error
    var touched: Bool
  }

  /// Provisions `tag` (connected). `checkCapacity` is true for the run's first tag.
  func provision(_ tag: any NFCNDEFTag, checkCapacity: Bool) -> Outcome {
    let uidBytes = tag.identifier
    let uid = hexString(uidBytes)
    let claim: LedgerClaim
    do {
      claim = try ledger.claim(uid: uid, at: place())
    } catch {
      return Outcome(rowID: nil, status: .failed, reason: "the ledger: \(error)", exitStatus: options.exitStatus(error))
    }
    let row: LedgerRecord
    let fresh: Bool
    switch claim {
    case .alreadyDone(let done):
      return Outcome(rowID: done.id, status: .skipped, reason: "already provisioned as row \(done.id)")
    case .exhausted:
      return Outcome(rowID: nil, status: .skipped, reason: "no row is left for this tag")
    case .resumed(let record): row = record; fresh = false
    case .claimed(let record): row = record; fresh = true
    }

    do {
      let message: RenderedMessage
      do {
        message = try content.render(rowID: row.id, sequence: row.sequence, uid: uidBytes)
      } catch {
        throw StepFailure(error: error, touched: false)
      }
      if checkCapacity {
        let capacity: Int
        do { capacity = try tag.queryNDEFStatusReport().capacity } catch { throw StepFailure(error: error, touched: false) }
        let problems = content.rowsExceeding(capacity: capacity)
        if !problems.isEmpty {
          try? ledger.unclaim(rowID: row.id, uid: uid, failure: failure("the job does not fit this tag's \(capacity) bytes", status: 65))
          return Outcome(rowID: row.id, status: .failed, reason: "the job does not fit this tag", exitStatus: 65, refusal: problems)
        }
      }
      try write(message, to: tag, uid: uidBytes)
      let done = LedgerDone(rowID: row.id, uid: uid, messageHex: hexString(message.bytes),
                            messageSHA256: message.sha256, place: place())
      do {
        try ledger.finish(done)
      } catch {
        // The connection may have been lost after the commit: done only if the ledger says so
        // now. Otherwise written and verified, but not committed: not done, and the row stays
        // bound to this tag.
        guard case .unavailable = error, let now = try? ledger.row(boundTo: uid), now.id == row.id, now.status == .done else {
          throw StepFailure(error: error, touched: true)
        }
      }
      return Outcome(rowID: row.id, status: .done)
    } catch let step as StepFailure {
      let reason = Self.describe(step.error)
      let status = options.exitStatus(step.error)
      let record = failure(reason, status: status)
      if step.touched || !fresh {
        try? ledger.fail(rowID: row.id, uid: uid, failure: record)
      } else {
        try? ledger.unclaim(rowID: row.id, uid: uid, failure: record)
      }
      return Outcome(rowID: row.id, status: .failed, reason: reason, exitStatus: status)
    } catch {
      return Outcome(rowID: row.id, status: .failed, reason: Self.describe(error), exitStatus: options.exitStatus(error))
    }
  }

  /// Authenticate, write, verify, configure, verify again. Throws ``StepFailure``.
  private func write(_ message: RenderedMessage, to tag: any NFCNDEFTag, uid: [UInt8]) throws {
    // Before the write nothing of the tag changed (unless a mirror had to be cleared); the write
    // itself changes nothing when it fails its own checks; after it, the tag holds bytes.
    var touched = false
    func step<T>(_ body: () throws -> T) throws -> T {
      do { return try body() } catch { throw StepFailure(error: error, touched: touched) }
    }
    let secret = options.protection.map { $0.derive(uid) }
    var configuration: Type2Configuration? = nil
    let room = content.mirror.flatMap { mode in message.mirrorRoom.map { (mode, $0) } }
    if secret != nil || room != nil {
      var config = try step { try tag.readConfiguration() }
      if let secret {
        let pack: [UInt8]?
        do {
          pack = try tag.authenticateIfProtected(password: secret.password, configuration: config)
        } catch {
          throw StepFailure(error: error, touched: false)
        }
        if let pack, pack != secret.pack {
          throw StepFailure(error: ProvisioningFailure(.security, "the tag accepted the password but answered another PACK"), touched: false)
        }
        if !config.readable { config = try step { try tag.readConfiguration() } }
      }
      guard config.readable else {
        throw StepFailure(error: ProvisioningFailure(.security, "the tag is read-protected by a password this job does not have"), touched: false)
      }
      if room != nil, !config.hasMirror {
        throw StepFailure(error: ProvisioningFailure(.unsupported, "\(config.product.name) has no UID and counter mirror"), touched: false)
      }
      if config.mirrorOn {
        // A mirror left on would show through the read-back of the write.
        touched = true
        let off = [config.cfg0[0] & 0x3F] + config.cfg0[1...]
        try step { try tag.writeConfiguration(cfg0: off, access: config.access, over: config) }
        config.cfg0 = off
      }
      configuration = config
    }
    do {
      try tag.writeNDEFBytes(message.bytes, verify: true)
    } catch {
      throw StepFailure(error: error, touched: touched || !Self.isPreflight(error))
    }
    touched = true
    var configured = false
    if let (mode, range) = room, let config = configuration {
      let report = try step { try tag.queryNDEFStatusReport() }
      let plan: MirrorPlan
      do {
        guard let tlv = report.tlvAddress else { throw MirrorPlanError("the tag does not say where its NDEF TLV lies") }
        plan = try MirrorPlan.compute(messageBytes: message.bytes, roomOffsetInMessage: range.lowerBound, mode: mode,
                                      tlvAddress: tlv, tlvHeaderLength: MirrorPlan.tlvHeaderLength(forMessageLength: message.bytes.count),
                                      userPages: config.product.userPages)
      } catch {
        throw StepFailure(error: ProvisioningFailure(.unsupported, "the mirror cannot be placed: \(error)"), touched: true)
      }
      let (cfg0, access) = try step { try plan.apply(to: config.cfg0, access: config.access) }
      try step { try tag.writeConfiguration(cfg0: cfg0, access: access, over: config) }
      configured = true
    }
    if let protection = options.protection, let secret {
      try step {
        try tag.setPassword(secret.password, pack: secret.pack, protectFrom: protection.firstProtectedPage,
                            protectReads: protection.protectReads)
      }
      configured = true
    }
    if options.lock {
      try step { try tag.writeLock() }
      configured = true
    }
    if configured {
      let back = try step { try tag.readNDEFBytes() }
      guard Self.matches(back, message) else {
        throw StepFailure(error: ProvisioningFailure(.verification, "the message read back after configuring the tag differs from the one written"), touched: true)
      }
    }
  }

  /// True when `back` is `message` except over the mirror room, where the tag shows ASCII hex
  /// (and `x` between UID and counter).
  static func matches(_ back: [UInt8], _ message: RenderedMessage) -> Bool {
    guard back.count == message.bytes.count else { return false }
    guard let roomRange = message.mirrorRoom else { return back == message.bytes }
    for i in back.indices where !roomRange.contains(i) && back[i] != message.bytes[i] { return false }
    for i in roomRange where i < back.count {
      let c = back[i]
      let isHex = (0x30...0x39).contains(c) || (0x41...0x46).contains(c)
      if !(isHex || c == 0x78) { return false }
    }
    return true
  }

  /// Errors that the platform raises before it writes anything (capacity and read-only are
  /// checked before the first write).
  static func isPreflight(_ error: NFCReaderError) -> Bool {
    switch error.underlyingError as? TagError {
    case .readOnly?, .insufficientCapacity?, .notFormatted?, .unsupported?, .authenticationFailed?, .readRefused?: return true
    default: return false
    }
  }

  static func describe(_ error: any Error) -> String {
    if let nfc = error as? NFCReaderError { return nfc.message }
    return "\(error)"
  }

  private func place() -> LedgerPlace { LedgerPlace(station: options.station, reader: reader, time: iso8601Now()) }

  private func failure(_ reason: String, status: Int32) -> LedgerFailure {
    LedgerFailure(reason: reason, exitStatus: status, place: place())
  }
}

/// A provisioning step's own failure (a fact, one line).
public struct ProvisioningFailure: Error, Sendable, CustomStringConvertible {
  /// What kind of failure, for programs (exit-status classes).
  public enum Kind: Sendable, Equatable {
    /// A password or PACK did not match, or the tag is protected by another password.
    case security
    /// The tag read back something other than what was written.
    case verification
    /// The tag cannot do what the job asks (a mirror it cannot place).
    case unsupported
  }
  public var kind: Kind
  public var description: String
  public init(_ kind: Kind, _ description: String) { self.kind = kind; self.description = description }
}
