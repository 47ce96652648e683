/// Per-exchange delay of a simulated reader.
///
/// `acr122u` models an ACS ACR122U through PC/SC per kind of exchange: what the reader's
/// microcontroller answers itself (GET DATA, firmware, LED and buzzer), what it forwards to the
/// PN532 (direct transmit, READ/UPDATE BINARY, Type 4 APDUs), and what the PN532 sends on to the
/// tag (READ, FAST_READ, WRITE…), plus the tag's arrival (the firmware's InListPassiveTarget). The
/// figures and their sources are in docs/performance.md ("The ACR122U latency model");
/// ``ACR122UTiming`` holds them.
public enum LatencyModel: String, CaseIterable, Sendable {
  /// No delay.
  case none
  /// An ACR122U over USB and pcscd (``ACR122UTiming``).
  case acr122u

  /// Microseconds one exchange takes on this reader: `command` is the APDU the host sent,
  /// `response` what it got back. Benchmarks sum these to get the modelled reader time.
  public func microseconds(command: [UInt8], response: [UInt8]) -> Int {
    switch self {
    case .none: return 0
    case .acr122u: return ACR122UTiming.microseconds(of: ReaderExchange(command), responseLength: response.count)
    }
  }

  /// Microseconds between a tag entering the field and the host being able to see it, beyond
  /// what PC/SC adds: the reader's own polling (one InListPassiveTarget that finds the tag).
  public var arrivalMicroseconds: Int {
    switch self {
    case .none: return 0
    case .acr122u: return ACR122UTiming.microseconds(of: .detection, responseLength: ACR122UTiming.listedTargetAnswer)
    }
  }
}

/// What one APDU to an ACR122U makes the reader do, for ``LatencyModel``.
public enum ReaderExchange: Equatable, Sendable {
  /// Answered by the reader's microcontroller (GET DATA, firmware version, polling parameters).
  case readerLocal
  /// The LED and buzzer command (`FF 00 40`), answered by the microcontroller.
  case feedback
  /// A PN532 command that does not reach the tag (registers, RF configuration, status…).
  case chipLocal
  /// InListPassiveTarget or InAutoPoll: the PN532 activates a tag.
  case detection
  /// A Type 2 READ (`30`), directly or as READ BINARY.
  case read
  /// A Type 2 FAST_READ (`3A`).
  case fastRead
  /// A Type 2 WRITE (`A2`) or COMPATIBILITY_WRITE (`A0`), directly or as UPDATE BINARY.
  case write
  /// Any other frame the PN532 sends to the tag (GET_VERSION, PWD_AUTH, READ_CNT, Type 1, 3, 4…).
  case tagExchange

  /// Classifies an APDU as an ACR122U reads it (ACS API V2.04: pseudo-APDUs `FF …`, direct
  /// transmit `FF 00 00 00 Lc D4 …`).
  public init(_ apdu: [UInt8]) {
    guard apdu.count >= 4, apdu[0] == 0xFF else {
      self = .tagExchange  // a Type 4 APDU or a FeliCa frame, carried by InDataExchange
      return
    }
    switch (apdu[1], apdu[2]) {
    case (0xB0, _): self = .read
    case (0xD6, _): self = .write
    case (0x00, 0x40): self = .feedback
    case (0x00, 0x00):
      guard apdu.count >= 7, apdu[5] == 0xD4 else { self = .readerLocal; return }
      self = Self.pn532(apdu[6], Array(apdu.dropFirst(7)))
    default: self = .readerLocal
    }
  }

  /// A PN532 command `code` with its parameters.
  private static func pn532(_ code: UInt8, _ parameters: [UInt8]) -> ReaderExchange {
    switch code {
    case 0x4A, 0x60: return .detection
    case 0x42: return tagCommand(parameters.first)          // InCommunicateThru: the frame itself
    case 0x40: return tagCommand(parameters.dropFirst().first)  // InDataExchange: Tg, then the frame
    default: return .chipLocal
    }
  }

  private static func tagCommand(_ byte: UInt8?) -> ReaderExchange {
    switch byte {
    case 0x30: return .read
    case 0x3A: return .fastRead
    case 0xA2, 0xA0: return .write
    default: return .tagExchange
    }
  }
}

/// The figures of the `acr122u` ``LatencyModel`` (microseconds), with where each comes from; see
/// docs/performance.md for the sources and the calibration.
public enum ACR122UTiming {
  /// The USB CCID round trip through pcscd: a PC_to_RDR_XfrBlock out and a RDR_to_PC_DataBlock
  /// back, each at least one 1 ms USB full-speed frame.
  public static let usbRoundTrip = 2_000
  /// The microcontroller answering a pseudo-APDU itself.
  public static let microcontroller = 1_000
  /// The microcontroller forwarding one command to the PN532 and its answer back (firmware time
  /// beyond the serial bytes): calibrated so that a page WRITE takes about 20 ms.
  public static let chipForwarding = 10_300
  /// One byte between the microcontroller and the PN532 at 115200 baud (10 bits).
  public static let serialByte = 87
  /// A PN532 normal information frame's bytes around its data (preamble, start code, LEN, LCS,
  /// DCS, postamble), plus the 6-byte ACK frame that follows every command.
  public static let frameOverhead = 8
  /// The PN532's ACK frame, in bytes (`00 00 FF 00 FF 00`; PN532 User Manual §6.2.1.3).
  public static let ackFrame = 6
  /// One byte on the air at 106 kbit/s (8 bits and a parity bit, 9.44 µs a bit).
  public static let airByte = 85
  /// A Type 2 tag's EEPROM programming time for one page (the NTAG203 data sheet's WRITE
  /// diagram: 4,110 µs).
  public static let pageProgramming = 4_100
  /// Activating a tag beyond the frames: field and guard time, REQA, two anticollision and
  /// select cascades, the firmware's polling: calibrated so that an InListPassiveTarget that
  /// finds one NTAG takes about 45 ms.
  public static let activation = 28_400
  /// The length of an InListPassiveTarget answer for one 7-byte-UID type A tag (`D5 4B 01 01
  /// ATQA SAK 07 UID 90 00`).
  public static let listedTargetAnswer = 17

  /// Microseconds for one exchange of kind `exchange` whose answer had `responseLength` bytes.
  public static func microseconds(of exchange: ReaderExchange, responseLength: Int) -> Int {
    let response = max(0, responseLength)
    switch exchange {
    case .readerLocal, .feedback:
      return usbRoundTrip + microcontroller
    case .chipLocal:
      return chipExchange(commandData: 4, responseData: response)
    case .detection:
      return chipExchange(commandData: 4, responseData: response) + activation
    case .read:
      // READ 30 pg + CRC out, 16 bytes + CRC back.
      return chipExchange(commandData: 4, responseData: response) + air(4 + 18)
    case .fastRead:
      let data = max(0, response - 5)
      return chipExchange(commandData: 5, responseData: response) + air(5 + data + 2)
    case .write:
      // WRITE A2 pg d0-d3 + CRC out, a 4-bit ACK back, then the page is programmed.
      return chipExchange(commandData: 8, responseData: response) + air(8) + pageProgramming
    case .tagExchange:
      let data = max(0, response - 5)
      return chipExchange(commandData: 8, responseData: response) + air(8 + data + 2)
    }
  }

  /// USB, the forwarding and the serial frames of one PN532 command with `commandData` data
  /// bytes whose ACR122U answer (`D5 xx … 90 00`) has `responseData` bytes.
  private static func chipExchange(commandData: Int, responseData: Int) -> Int {
    let serial = (frameOverhead + 2 + commandData) + ackFrame + (frameOverhead + max(0, responseData - 2))
    return usbRoundTrip + chipForwarding + serial * serialByte
  }

  private static func air(_ bytes: Int) -> Int { bytes * airByte }
}
