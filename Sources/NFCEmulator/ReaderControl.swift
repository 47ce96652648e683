/// `SCardControl` codes as pcsc-lite numbers them, the numbers a reader face's
/// ``VirtualCard/control(code:_:)`` receives from nfctag's pcsc-lite driver (docs/ifd-handler.md).
public enum ReaderControlCode {
  /// pcsc-lite's `SCARD_CTL_CODE(code)`: `0x42000000 + code` (`reader.h`, pcsc-lite 1.9.9). On
  /// Windows the same macro gives other numbers (`CTL_CODE(FILE_DEVICE_SMARTCARD, code, …)`).
  public static func pcscLite(_ code: UInt32) -> UInt32 { 0x4200_0000 &+ code }

  /// The vendor escape on Linux: `IOCTL_SMARTCARD_VENDOR_IFD_EXCHANGE`, `SCARD_CTL_CODE(1)`, the
  /// code the CCID driver passes to the reader as `PC_to_RDR_Escape` (when its Info.plist's
  /// `ifdDriverOptions` allows it), and the one libnfc's `acr122_pcsc` driver sends on Linux
  /// (Windows programs use `SCARD_CTL_CODE(3500)` for the same escape).
  public static let vendorEscape: UInt32 = 0x4200_0001
}

extension ACR122UFace {
  /// The escape through ``ReaderControlCode/vendorEscape``: the ACR122U takes its pseudo-APDUs
  /// (`FF …`: firmware `FF 00 48 00 00`, LEDs and buzzer `FF 00 40`, direct transmit
  /// `FF 00 00 00`) as escape data too and answers as it does through `SCardTransmit` — how libnfc's
  /// `acr122_pcsc` driver talks to an ACR122U with no card (`SCardConnect` direct, then
  /// `SCardControl`; libnfc `libnfc/drivers/acr122_pcsc.c`). Other codes and data: nil.
  public func control(code: UInt32, _ data: [UInt8]) -> [UInt8]? {
    guard code == ReaderControlCode.vendorEscape, data.count >= 5, data.first == 0xFF else { return nil }
    return transmit(data)
  }
}

extension PartThreeFace {
  /// The ACR1552U face's firmware string (``ReaderProfile/acr1552u``; our choice, ACS's manuals give
  /// "ACR1252U_V202.2" and "ACR1281U_V503.1" as examples of the form).
  public static let escapeFirmware = "ACR1552U_V101.0"

  /// The reader's escapes, through the codes its profile lists (``ReaderProfile/escapeCodes``):
  /// - ACS (`E0 00 00 <cmd> <Lc> [data]` → `E1 00 00 00 <len> [data]`; ACM1252U-Y3 Reference Manual
  ///   §5.3): Get Firmware Version `E0 00 00 18 00`; LED `E0 00 00 29 01 <state>` (set) and
  ///   `E0 00 00 29 00` (read) → the state (§5.3.2–5.3.3); buzzer `E0 00 00 28 01 <duration>` →
  ///   `00` (ACR1255U-J1 manual, ACS family), and the ACR1552U's `E0 00 00 28 03 <on> <off>
  ///   <repeats>` → the three values (entur/android-nfc-lib ACR1552Commands.java).
  /// - Identiv (one escape code byte, CLOUD 370x F manual §6.3.3.7): `B2 00` LEDs by the firmware,
  ///   `B2 01` by the host, `B2 FF` read: each answered with the setting (one byte; the manual's
  ///   answer layout was not read, docs/readers.md).
  /// - HID: the vendor command `FF 70 07 6B …` (firmware version read), as through `SCardTransmit`.
  /// Other codes and data: nil.
  public func control(code: UInt32, _ data: [UInt8]) -> [UInt8]? {
    guard profile.escapeCodes.contains(code) else { return nil }
    switch profile.escapes {
    case .none: return nil
    case .acs(let firmware): return acsEscape(data, firmware: firmware)
    case .identiv:
      guard data.count == 2, data[0] == 0xB2, [0x00, 0x01, 0xFF].contains(data[1]) else { return nil }
      if data[1] != 0xFF { ledControl = data[1] }
      return [ledControl]
    case .omnikey: return omnikeyVendorCommand(data)
    }
  }

  private func acsEscape(_ data: [UInt8], firmware: String) -> [UInt8]? {
    guard data.count >= 5, data[0] == 0xE0, data[1] == 0x00, data[2] == 0x00, data.count == 5 + Int(data[4]) else { return nil }
    let header: [UInt8] = [0xE1, 0x00, 0x00, 0x00]
    let payload = Array(data[5...])
    switch (data[3], payload.count) {
    case (0x18, 0):
      let text = Array(firmware.utf8)
      return header + [UInt8(text.count)] + text
    case (0x29, 0): return header + [0x01, ledState]
    case (0x29, 1):
      ledState = payload[0]
      return header + [0x01, ledState]
    case (0x28, 1): return header + [0x01, 0x00]
    case (0x28, 3) where profile == .acr1552u: return header + [0x03] + payload
    default: return nil
    }
  }
}
