import Crypto
import NFCSession
import NFCTags
import NTAG424
import NTAG424Tag
import ProvisioningLedger

/// The steps for one tag: claim a row, write, verify, protect, lock, commit; the ledger first
/// and last, so that nothing is reported done that it did not commit.
///
/// Order: claim (one transaction) → render → read CFG0/CFG1 and authenticate when the tag is
/// protected by this job's secret (before any other read) → format a MIFARE Classic that is not
/// formatted whole → tear-safe write → configuration
/// (PWD, PACK, ACCESS, CFG0 with AUTH0 last) → read-back → lock → commit done → signal. A failure
/// before the first write gives a newly claimed row back (`unclaim`); after it, the row stays
/// bound to the tag (`fail`) so that no other tag gets it, and a rerun finishes the tag.
struct TagProvisioner {
  let ledger: any Ledger
  let content: any ProvisioningContent
  let options: ProvisioningOptions
  let reader: String
  /// The run's give-backs that wait for the ledger.
  let giveBacks: PendingGiveBacks

  /// What one tag came to, before it is reported.
  struct Outcome {
    var rowID: String?
    var status: ProvisionedTag.Status
    var reason: String?
    /// Failed: why, as a type (the tool maps it to its exit status).
    var failure: TagFailure?
    /// Capacity problems of the job, found on the first tag: the run ends.
    var refusal: [String]?
    /// The tag's identity when it is not the UID it showed (a DESFire's GetCardUID), for its event.
    var uid: String? = nil
  }

  /// A failure and whether the tag was touched before it.
  struct StepFailure: Error {
    var error: any Error
    var touched: Bool
  }

  /// Provisions `tag` (connected). `checkCapacity` is true for the run's first tag.
  func provision(_ tag: any NFCNDEFTag, checkCapacity: Bool) -> Outcome {
    if let desfire = options.desfire { return provisionDESFire(tag, job: desfire) }  // TagProvisioner+DESFire.swift
    let uidBytes = tag.identifier
    // Rows are keyed by UID: a tag whose UID the reader did not give (its GET DATA refused or
    // garbled) is refused before a row is claimed, untouched; shown again, it is read again.
    guard !uidBytes.isEmpty else {
      let error = NFCReaderError(.readerTransceiveErrorTagResponseError,
                                 "the reader gave no UID for this tag (GET DATA refused): nothing written; present it again")
      return Outcome(rowID: nil, status: .failed, reason: error.message, failure: .tag(error))
    }
    let uid = hexString(uidBytes)
    let row: LedgerRecord, fresh: Bool, resuming: Bool
    switch claimRow(uid: uid) {
    case .ended(let outcome): return outcome
    case .row(let record, let isFresh, let isResumed): (row, fresh, resuming) = (record, isFresh, isResumed)
    }

    do {
      let message: RenderedMessage
      do {
        message = try content.render(rowID: row.id, sequence: row.sequence, uid: uidBytes)
      } catch {
        throw StepFailure(error: error, touched: false)
      }
      if let sun = options.sun {
        let (written, progress) = try provisionSUN(tag, job: sun, message: message, row: row, resuming: resuming)
        try commit(LedgerDone(rowID: row.id, uid: uid, messageHex: hexString(written), messageSHA256: sha256Hex(written),
                              place: place(), progress: progress.encoded))
        return Outcome(rowID: row.id, status: .done)
      }
      // A tag this job protected is authenticated before anything else is read: with PROT, every
      // read of the data area is refused until then.
      var access = try prepare(tag, uid: uidBytes, message: message)
      try formatIfNeeded(tag, access: &access)
      // One read of the data area serves the capacity check, the mirror's place and the write's
      // plan (the write starts from the pages this read cached).
      var report: NDEFStatusReport? = nil
      if checkCapacity || access.room != nil {
        do { report = try tag.queryNDEFStatusReport() } catch { throw StepFailure(error: error, touched: access.touched) }
      }
      if checkCapacity, let capacity = report?.capacity {
        let problems = content.rowsExceeding(capacity: capacity)
        if !problems.isEmpty {
          let refused = TagFailure.step(ProvisioningFailure(.jobDoesNotFit, "the job does not fit this tag"))
          giveBack(row: row.id, uid: uid, failure: failure("the job does not fit this tag's \(capacity) bytes", refused))
          return Outcome(rowID: row.id, status: .failed, reason: refused.description, failure: refused, refusal: problems)
        }
      }
      try write(message, to: tag, access: &access, tlvAddress: report?.tlvAddress)
      try commit(LedgerDone(rowID: row.id, uid: uid, messageHex: hexString(message.bytes),
                            messageSHA256: message.sha256, place: place()))
      return Outcome(rowID: row.id, status: .done)
    } catch let step as StepFailure {
      return failed(step, row: row.id, uid: uid, fresh: fresh)
    } catch {
      return Outcome(rowID: row.id, status: .failed, reason: Self.describe(error), failure: TagFailure(error))
    }
  }

  /// What the ledger gives a tag: its row (fresh when this station claimed it now or took it
  /// over, resumed when it was bound before), or the outcome that ends the tag here.
  enum ClaimedRow {
    case row(LedgerRecord, fresh: Bool, resumed: Bool)
    case ended(Outcome)
  }

  /// Claims a row for `uid` (rows whose give-back waits for the ledger go back first).
  func claimRow(uid: String) -> ClaimedRow {
    let claim: LedgerClaim
    let tookOver: Bool
    do {
      (claim, tookOver) = try giveBacks.claim(uid: uid, on: ledger) { () throws(LedgerError) in try ledger.claim(uid: uid, at: place()) }
    } catch {
      return .ended(Outcome(rowID: nil, status: .failed, reason: Self.ledgerReason(error), failure: .ledger(error)))
    }
    switch claim {
    case .alreadyDone(let done):
      return .ended(Outcome(rowID: done.id, status: .skipped, reason: "already provisioned as row \(done.id)"))
    case .exhausted:
      return .ended(Outcome(rowID: nil, status: .skipped, reason: "no row is left for this tag"))
    case .resumed(let record): return .row(record, fresh: tookOver, resumed: true)
    case .claimed(let record): return .row(record, fresh: true, resumed: false)
    }
  }

  /// A step that failed: the row marked failed when the tag was touched or the row was not
  /// fresh, else given back; the tag's outcome.
  func failed(_ step: StepFailure, row: String, uid: String, fresh: Bool) -> Outcome {
    let reason = Self.describe(step.error)
    let why = TagFailure(step.error)
    let record = failure(reason, why)
    if step.touched || !fresh {
      try? ledger.fail(rowID: row, uid: uid, failure: record)
    } else {
      giveBack(row: row, uid: uid, failure: record)
    }
    return Outcome(rowID: row, status: .failed, reason: reason, failure: why)
  }

  /// Marks the row done. Throws ``StepFailure``.
  func commit(_ done: LedgerDone) throws {
    do {
      try ledger.finish(done)
    } catch {
      // The connection may have been lost after the commit: done only if the ledger says so
      // now. Otherwise written and verified, but not committed: not done, and the row stays
      // bound to this tag.
      guard case .unavailable = error, let now = try? ledger.row(boundTo: done.uid), now.id == done.rowID, now.status == .done else {
        throw StepFailure(error: error, touched: true)
      }
    }
  }

  /// `--sdm-url`: the NTAG 424 DNA steps (``SUNTagSteps``) on the tag's ISO 7816 link. Returns
  /// the NDEF message written (without NLEN, the mirrors as zeros) and the tag's final progress,
  /// for the ledger. Throws ``StepFailure``.
  private func provisionSUN(_ tag: any NFCNDEFTag, job: SUNProvisioning, message: RenderedMessage, row: LedgerRecord,
                            resuming: Bool) throws -> ([UInt8], LedgerTagProgress) {
    guard let iso = tag as? NFCISO7816Tag else {
      throw StepFailure(error: ProvisioningFailure(.unsupported, "not an NTAG 424 DNA: the tag is not an ISO 7816 (Type 4) tag"), touched: false)
    }
    let template: String
    do { template = try SUNProvisioning.urlTemplate(of: message) } catch {
      throw StepFailure(error: RenderFailure(error.description), touched: false)
    }
    let uid = hexString(tag.identifier)
    let steps = SUNTagSteps(job: job, tag: NTAG424DNA(link: ISO7816TagLink(iso)), uid: tag.identifier,
                            previous: resuming ? row.progress.flatMap(LedgerTagProgress.init(decoding:)) : nil) { state in
      try ledger.recordProgress(rowID: row.id, uid: uid, progress: state.encoded)
    }
    var progress = SUNTagSteps.Progress()
    do {
      let (plan, _, done) = try steps.run(template: template, resuming: resuming, progress: &progress)
      return (Array(plan.ndefFile.dropFirst(2)), done)
    } catch let error as NTAG424Error {
      throw StepFailure(error: ProvisioningFailure(.unsupported, "\(error)"), touched: progress.touched)
    } catch let error as SUNTemplateError {
      throw StepFailure(error: RenderFailure(error.description), touched: progress.touched)
    } catch {
      throw StepFailure(error: error, touched: progress.touched)
    }
  }

  /// Gives a newly claimed row back; when the ledger is unavailable (a server restarting), the
  /// give-back waits in ``giveBacks`` and is redone before the next claim.
  func giveBack(row: String, uid: String, failure: LedgerFailure) {
    do {
      try ledger.unclaim(rowID: row, uid: uid, failure: failure)
    } catch .unavailable {
      giveBacks.add(rowID: row, uid: uid, failure: failure)
    } catch {
      // Not bound to this tag any more (released meanwhile): nothing to give back.
    }
  }

  /// What the steps before the write learnt about the tag's configuration and access.
  private struct Access {
    /// CFG0/CFG1 as they are on the tag now (with `--protect` or `--mirror`).
    var configuration: Type2Configuration?
    /// The tag accepted this job's password (PACK checked): pages behind AUTH0 can be written.
    var authenticated = false
    /// The mirror and where it goes in the message.
    var room: (mode: MirrorMode, range: Range<Int>)?
    /// Something of the tag changed already (a mirror left on was turned off).
    var touched = false
  }

  /// Reads CFG0/CFG1 (with `--protect` or `--mirror`), authenticates a tag protected by this
  /// job's secret, and turns off a mirror left on. Throws ``StepFailure``.
  private func prepare(_ tag: any NFCNDEFTag, uid: [UInt8], message: RenderedMessage) throws -> Access {
    var access = Access()
    let secret = options.protection.map { $0.derive(uid) }
    access.room = content.mirror.flatMap { mode in message.mirrorRoom.map { (mode, $0) } }
    guard secret != nil || access.room != nil else { return access }
    func step<T>(_ body: () throws -> T) throws -> T {
      do { return try body() } catch { throw StepFailure(error: error, touched: access.touched) }
    }
    var config = try step { try tag.ntag21xConfiguration.read() }
    if let secret {
      let pack = try step { try tag.ntag21xConfiguration.authenticateIfProtected(password: secret.password, configuration: config) }
      if let pack {
        guard pack == secret.pack else {
          throw StepFailure(error: ProvisioningFailure(.security, "the tag accepted the password but answered another PACK"), touched: false)
        }
        access.authenticated = true
        if !config.readable { config = try step { try tag.ntag21xConfiguration.read() } }
      }
    }
    guard config.readable else {
      throw StepFailure(error: ProvisioningFailure(.security, "the tag is read-protected by a password this job does not have"), touched: false)
    }
    if access.room != nil, !config.hasMirror {
      throw StepFailure(error: ProvisioningFailure(.unsupported, "\(config.product.name) has no UID and counter mirror"), touched: false)
    }
    if config.mirrorOn {
      // A mirror left on would show through the write's plan and its read-back.
      access.touched = true
      let off = [config.cfg0[0] & 0x3F] + config.cfg0[1...]
      try step { try tag.ntag21xConfiguration.write(cfg0: off, access: config.access, over: config) }
      config.cfg0 = off
    }
    access.configuration = config
    return access
  }

  /// Formats a MIFARE Classic that is factory-fresh or whose format a removal cut short (the MAD
  /// and empty NDEF sectors, as `nfctag format` does); other tags are not asked. From the format's
  /// first WRITE the row stays bound to the tag, so that a rerun of the job finishes it (the check
  /// sees a format cut short and formats again); a format that failed before the card was sent
  /// any WRITE (the tag's count says so: no key opened the first sector, say) left the card as it
  /// was, and the row free. Throws ``StepFailure``.
  private func formatIfNeeded(_ tag: any NFCNDEFTag, access: inout Access) throws {
    let needed: Bool
    do { needed = try tag.needsMIFAREClassicFormat() } catch { throw StepFailure(error: error, touched: access.touched) }
    guard needed else { return }
    let before = try? tag.mifareClassicWriteCommandsSent()
    do {
      try tag.format()
    } catch {
      // When the count cannot be read, the card may have been changed.
      let after = try? tag.mifareClassicWriteCommandsSent()
      let unchanged = before != nil && after == before
      throw StepFailure(error: error, touched: access.touched || !unchanged)
    }
    access.touched = true
  }

  /// Writes the message, configures the tag (mirror, password: one write per configuration
  /// page), verifies, and locks last. Throws ``StepFailure``.
  ///
  /// Order, so that a rerun of the job finishes a tag left at any step: the message; PWD and PACK,
  /// ACCESS, CFG0 with AUTH0 last (NXP NTAG213/215/216 data sheet §8.8.1: pages from AUTH0 on need
  /// PWD_AUTH to be written, so the tag is authenticated right after AUTH0 when a later step
  /// writes or, with PROT, reads behind it); one read-back; the lock (its dynamic lock bytes lie
  /// behind AUTH0). A rerun authenticates first, and a tag whose lock had begun (CC read-only) and
  /// that holds this row's message is not written again.
  private func write(_ message: RenderedMessage, to tag: any NFCNDEFTag, access: inout Access, tlvAddress: Int?) throws {
    var touched = access.touched
    func step<T>(_ body: () throws -> T) throws -> T {
      do { return try body() } catch { throw StepFailure(error: error, touched: touched) }
    }
    // With a mirror the read-back after configuring verifies the write too; before a lock the
    // write verifies itself (the lock is permanent).
    let readBackLater = access.room != nil
    do {
      try tag.writeNDEFBytes(message.bytes, verify: !readBackLater)
    } catch {
      guard options.lock, case .readOnly? = error.underlyingError as? TagError,
            let back = try? tag.readNDEFBytes(), Self.matches(back, message) else {
        throw StepFailure(error: error, touched: touched || !Self.isPreflight(error))
      }
      // An earlier run of this job wrote this message and began the lock.
    }
    touched = true
    var tlv = tlvAddress
    if access.room != nil, tlv == nil {
      // The tag had no NDEF TLV before the write: it has one now.
      tlv = try step { try tag.queryNDEFStatusReport().tlvAddress }
    }
    if var config = access.configuration {
      var cfg0 = config.cfg0
      var bits = config.access
      if let (mode, range) = access.room {
        let plan: MirrorPlan
        do {
          guard let tlv else { throw MirrorPlanError("the tag does not say where its NDEF TLV lies") }
          plan = try MirrorPlan.compute(messageBytes: message.bytes, roomOffsetInMessage: range.lowerBound, mode: mode,
                                        tlvAddress: tlv, tlvHeaderLength: MirrorPlan.tlvHeaderLength(forMessageLength: message.bytes.count),
                                        userPages: config.product.userPages)
          (cfg0, bits) = try plan.apply(to: cfg0, access: bits)
        } catch {
          throw StepFailure(error: ProvisioningFailure(.unsupported, "the mirror cannot be placed: \(error)"), touched: true)
        }
      }
      var password: (pwd: [UInt8], pack: [UInt8])? = nil
      if let protection = options.protection {
        let secret = protection.derive(tag.identifier)
        // A tag that accepted this password already holds it.
        if !access.authenticated { password = (secret.password, secret.pack) }
        bits = protection.protectReads ? bits | 0x80 : bits & 0x7F
        cfg0[3] = protection.firstProtectedPage
      }
      if password != nil || cfg0 != config.cfg0 || bits != config.access {
        try step { try tag.ntag21xConfiguration.write(cfg0: cfg0, access: bits, over: config, password: password) }
        config.cfg0 = cfg0
        config.cfg1[0] = bits
      }
      if let secret = password, config.isProtected, options.lock || (readBackLater && bits & 0x80 != 0) {
        let pack = try step { try tag.authenticate(password: secret.pwd) }
        guard pack == secret.pack else {
          throw StepFailure(error: ProvisioningFailure(.security, "the tag accepted the password but answered another PACK"), touched: true)
        }
        access.authenticated = true
      }
      access.configuration = config
    }
    if readBackLater {
      let report = try step { try tag.queryNDEFStatusReport() }
      let back = try step { try tag.readNDEFBytes() }
      guard report.tlvAddress == tlv, Self.matches(back, message) else {
        throw StepFailure(error: ProvisioningFailure(.verification, "the message read back after configuring the tag differs from the one written"), touched: true)
      }
    }
    if options.lock {
      try step { try tag.writeLock() }
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

  /// A claim's failure as one line that names the ledger once: most of ``LedgerError``'s lines
  /// begin with it already ("the ledger is unavailable, …"); the others get it in front.
  static func ledgerReason(_ error: any Error) -> String {
    let text = "\(error)"
    return text.hasPrefix("the ledger") || text.hasPrefix("cannot open the ledger") ? text : "the ledger: " + text
  }

  static func describe(_ error: any Error) -> String {
    if let nfc = error as? NFCReaderError { return nfc.message }
    if let dna = error as? NTAG424DNAError { return dna.description }
    return "\(error)"
  }

  private func sha256Hex(_ bytes: [UInt8]) -> String { hexString(SHA256.hash(data: bytes)) }

  func place() -> LedgerPlace { LedgerPlace(station: options.station, reader: reader, time: iso8601Now()) }

  /// The ledger's record of a failure: the reason as one line, and the status the tool maps
  /// `why` to (``ProvisioningOptions/recordedStatus``).
  func failure(_ reason: String, _ why: TagFailure) -> LedgerFailure {
    LedgerFailure(reason: reason, exitStatus: options.recordedStatus(why), place: place())
  }
}
