import NFCSession
import NTAG424Tag
import ProvisioningLedger

/// Why a tag failed, as a type: what a run reports and what the tool maps to an exit status
/// (the run states the reason; it never chooses a status).
public enum TagFailure: Error, Sendable, CustomStringConvertible {
  /// The ledger refused or failed a call (claim, finish).
  case ledger(LedgerError)
  /// The tag or the reader failed (Core NFC's code, with the cause).
  case tag(NFCReaderError)
  /// The row could not be rendered into a message.
  case render(RenderFailure)
  /// A provisioning step's own failure (a password, a read-back, a mirror, the job's size).
  case step(ProvisioningFailure)
  /// An NTAG 424 DNA command failed (`--sdm-url`): refused, not verified, or the link.
  case ntag424(NTAG424DNAError)

  /// `error` as a typed reason: the types a run's steps throw, any other as a tag failure.
  public init(_ error: any Error) {
    switch error {
    case let failure as TagFailure: self = failure
    case let ledger as LedgerError: self = .ledger(ledger)
    case let render as RenderFailure: self = .render(render)
    case let step as ProvisioningFailure: self = .step(step)
    case let dna as NTAG424DNAError: self = .ntag424(dna)
    default: self = .tag(NFCReaderError(error))
    }
  }

  /// One line: the fact, no advice.
  public var description: String {
    switch self {
    case .ledger(let error): return "\(error)"
    case .tag(let error): return error.message
    case .render(let error): return error.description
    case .step(let error): return error.description
    case .ntag424(let error): return error.description
    }
  }
}

/// A provisioning step's own failure (a fact, one line).
public struct ProvisioningFailure: Error, Sendable, CustomStringConvertible {
  /// What kind of failure, for programs.
  public enum Kind: Sendable, Equatable, CaseIterable {
    /// A password or PACK did not match, or the tag is protected by another password.
    case security
    /// The tag read back something other than what was written.
    case verification
    /// The tag cannot do what the job asks (a mirror it cannot place).
    case unsupported
    /// Some rows of the job do not fit the run's first tag: nothing was written.
    case jobDoesNotFit
    /// The tag cannot take what the job's options ask for, which another tag of the kind could
    /// (`--sdm-url` onto a MIFARE DESFire EV1 or EV2, which have no SDM): refused before anything
    /// was written, as the option's own refusal.
    case notForThisCard
  }
  public var kind: Kind
  public var description: String
  public init(_ kind: Kind, _ description: String) { self.kind = kind; self.description = description }
}
