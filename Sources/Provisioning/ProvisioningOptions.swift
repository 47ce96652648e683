import NFCSession

/// How a run treats each tag beyond writing its message.
public struct ProvisioningOptions: Sendable {
  /// Password protection with a per-UID password.
  public struct Protection: Sendable {
    /// PWD (4 bytes) and PACK (2 bytes) for a UID.
    public var derive: @Sendable ([UInt8]) -> (password: [UInt8], pack: [UInt8])
    /// PROT: reads need the password too.
    public var protectReads: Bool
    /// AUTH0: the first protected page (4, the first NDEF page, by default).
    public var firstProtectedPage: UInt8

    public init(protectReads: Bool, firstProtectedPage: UInt8 = 4,
                derive: @escaping @Sendable ([UInt8]) -> (password: [UInt8], pack: [UInt8])) {
      self.derive = derive; self.protectReads = protectReads; self.firstProtectedPage = firstProtectedPage
    }
  }

  /// This station's name, on every row it writes.
  public var station: String
  /// Make every tag read-only after writing (permanent).
  public var lock: Bool
  /// Protect every tag with its own password, when set.
  public var protection: Protection?
  /// The number the ledger records with a failed tag, for its typed reason: the tool's exit
  /// status for it (docs/exit-codes.md). The run only passes the tool's answer on.
  public var recordedStatus: @Sendable (TagFailure) -> Int32
  /// Seconds without a tag before a reader's session ends; nil waits until stopped.
  public var timeout: Double?
  /// Signal each outcome on the reader (LEDs and buzzer, on the readers that have them: docs/readers.md).
  public var feedback: Bool
  /// `--sdm-url`: every tag is an NTAG 424 DNA keyed from the master key, its SUN URL verified.
  public var sun: SUNProvisioning?
  /// Every tag a MIFARE DESFire: NDEF formatted and written, its keys changed to the job's.
  public var desfire: DESFireProvisioning?

  public init(station: String, lock: Bool = false, protection: Protection? = nil, timeout: Double? = nil,
              feedback: Bool = true, sun: SUNProvisioning? = nil, desfire: DESFireProvisioning? = nil, recordedStatus: @escaping @Sendable (TagFailure) -> Int32) {
    self.station = station; self.lock = lock; self.protection = protection; self.timeout = timeout
    self.feedback = feedback; self.sun = sun; self.desfire = desfire; self.recordedStatus = recordedStatus
  }
}

/// Now as ISO 8601 UTC with milliseconds (`2026-11-24T10:15:02.123Z`), the ledger's time format.
public func iso8601Now() -> String {
  let now = LibC.utcNow()
  func pad(_ value: Int32, _ width: Int) -> String {
    let digits = String(value)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
  }
  return "\(pad(now.year, 4))-\(pad(now.month, 2))-\(pad(now.day, 2))T"
    + "\(pad(now.hour, 2)):\(pad(now.minute, 2)):\(pad(now.second, 2)).\(pad(now.millisecond, 3))Z"
}
