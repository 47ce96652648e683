import Crypto
import Hex
import NFCSession
import NTAG424
import ProvisioningLedger

extension TagProvisioner {
  /// A DESFire job (``ProvisioningOptions/desfire``): the card's real UID read first
  /// (``DESFireTagSteps/identify(_:job:sdm:boundRow:record:)``), the row claimed by it, then the steps
  /// (``DESFireTagSteps``), the row done with the card's key versions. A failure before the
  /// card was changed gives a newly claimed row back; after it, the row stays bound to the card
  /// and a rerun finishes it. With `--sdm-url` (``ProvisioningOptions/sun``) the card must be an
  /// EV3 (an EV1, EV2 or Light is refused after GetVersion, before its row is claimed) and the steps
  /// are ``DESFireSUNSteps``.
  func provisionDESFire(_ tag: any NFCNDEFTag, job: DESFireProvisioning) -> Outcome {
    let shown = tag.identifier
    let random = shown.count == 4 && shown.first == 0x08
    let identity: DESFireIdentity
    do {
      let bound = random ? nil : try ledger.row(boundTo: hexString(shown))
      identity = try DESFireTagSteps.identify(tag, job: job, sdm: options.sun != nil, boundRow: bound) { row, progress in
        try ledger.recordProgress(rowID: row.id, uid: hexString(shown), progress: progress.encoded)
      }
    } catch let error as LedgerError {
      return Outcome(rowID: nil, status: .failed, reason: Self.ledgerReason(error), failure: .ledger(error))
    } catch {
      return Outcome(rowID: nil, status: .failed, reason: Self.describe(error), failure: TagFailure(error))
    }
    let uid = hexString(identity.uid)
    let outcome = provisionDESFire(tag, job: job, identity: identity, uid: uid)
    return Outcome(rowID: outcome.rowID, status: outcome.status, reason: outcome.reason, failure: outcome.failure,
                   refusal: outcome.refusal, uid: uid)
  }

  /// The claim by the real UID and the steps.
  private func provisionDESFire(_ tag: any NFCNDEFTag, job: DESFireProvisioning, identity: DESFireIdentity, uid: String) -> Outcome {
    let row: LedgerRecord, fresh: Bool, resuming: Bool
    switch claimRow(uid: uid) {
    case .ended(let outcome): return outcome
    case .row(let record, let isFresh, let isResumed): (row, fresh, resuming) = (record, isFresh, isResumed)
    }
    var progress = DESFireTagSteps.Progress()
    do {
      let message: RenderedMessage
      do {
        message = try content.render(rowID: row.id, sequence: row.sequence, uid: identity.uid)
      } catch {
        throw StepFailure(error: error, touched: false)
      }
      if let sun = options.sun {
        return try provisionDESFireSUN(tag, job: job, sun: sun, identity: identity, message: message, row: row, resuming: resuming,
                                       uid: uid, progress: &progress)
      }
      let steps = DESFireTagSteps(tag: tag, job: job, identity: identity,
                                  previous: resuming ? row.progress.flatMap(LedgerTagProgress.init(decoding:)) : nil,
                                  lock: options.lock) { state in
        try ledger.recordProgress(rowID: row.id, uid: uid, progress: state.encoded)
      }
      let done: LedgerTagProgress
      do { done = try steps.run(message: message.bytes, progress: &progress) } catch {
        throw StepFailure(error: error, touched: progress.touched)
      }
      try commit(LedgerDone(rowID: row.id, uid: uid, messageHex: hexString(message.bytes), messageSHA256: message.sha256,
                            place: place(), progress: done.encoded))
      return Outcome(rowID: row.id, status: .done)
    } catch let step as StepFailure {
      return failed(step, row: row.id, uid: uid, fresh: fresh)
    } catch {
      return Outcome(rowID: row.id, status: .failed, reason: Self.describe(error), failure: TagFailure(error))
    }
  }

  /// `--sdm-url` on an EV3: the rendered message's URL template, ``DESFireSUNSteps``, and the row
  /// done with the file written and the read-back's counter as its baseline.
  private func provisionDESFireSUN(_ tag: any NFCNDEFTag, job: DESFireProvisioning, sun: SUNProvisioning, identity: DESFireIdentity,
                                   message: RenderedMessage, row: LedgerRecord, resuming: Bool, uid: String,
                                   progress: inout DESFireTagSteps.Progress) throws -> Outcome {
    let template: String
    do { template = try SUNProvisioning.urlTemplate(of: message) } catch {
      throw StepFailure(error: RenderFailure(error.description), touched: false)
    }
    let steps = DESFireSUNSteps(tag: tag, job: job, sun: sun, identity: identity,
                                previous: resuming ? row.progress.flatMap(LedgerTagProgress.init(decoding:)) : nil) { state in
      try ledger.recordProgress(rowID: row.id, uid: uid, progress: state.encoded)
    }
    let written: [UInt8], done: LedgerTagProgress
    do {
      let (plan, finished) = try steps.run(template: template, progress: &progress)
      (written, done) = (Array(plan.ndefFile.dropFirst(2)), finished)
    } catch let error as NTAG424Error {
      throw StepFailure(error: ProvisioningFailure(.unsupported, "\(error)"), touched: progress.touched)
    } catch {
      throw StepFailure(error: error, touched: progress.touched)
    }
    try commit(LedgerDone(rowID: row.id, uid: uid, messageHex: hexString(written), messageSHA256: hexString(SHA256.hash(data: written)),
                          place: place(), progress: done.encoded))
    return Outcome(rowID: row.id, status: .done)
  }
}
