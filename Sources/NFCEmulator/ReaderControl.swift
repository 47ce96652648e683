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
  /// The firmware string the escape below answers (this face's choice; ACS's manuals give
  /// "ACR1252U_V202.2" and "ACR1281U_V503.1" as examples of the form).
  public static let escapeFirmware = "ACR1552U_V101.0"

  /// The escape through ``ReaderControlCode/vendorEscape``: Get Firmware Version, `E0 00 00 18 00`,
  /// answered `E1 00 00 00 <length> <firmware>` as ACS's PC/SC readers do (ACR1281U-C1 API §5.3.1,
  /// ACM1252U-Y3 Reference Manual §5.3.1). Other codes and data: nil.
  public func control(code: UInt32, _ data: [UInt8]) -> [UInt8]? {
    guard code == ReaderControlCode.vendorEscape, data == [0xE0, 0x00, 0x00, 0x18, 0x00] else { return nil }
    let firmware = Array(Self.escapeFirmware.utf8)
    return [0xE1, 0x00, 0x00, 0x00, UInt8(firmware.count)] + firmware
  }
}
