import NFCReaders
import NFCTagCLI

/// What `doctor` looks at for the readers, gathered once by ``ReaderEnvironment/gather(readers:)``,
/// so that the checks (``readerChecks(_:)``) are a function of it and testable without hardware.
struct ReaderEnvironment {
  /// A USB device: its ids and the kernel drivers bound to its interfaces.
  struct USBDevice: Equatable {
    var vendor: UInt16
    var product: UInt16
    var drivers: [String]
  }

  /// The PC/SC readers, each with what its answers (or its name) told.
  var readers: [(name: String, identification: ReaderIdentification)]
  /// The USB devices (Linux `/sys/bus/usb/devices`).
  var usbDevices: [USBDevice]
  /// The CCID driver's Info.plist text, when installed.
  var ccidInfoPlist: String?
  /// True when ACS's own driver (acsccid) is installed.
  var acsccidInstalled: Bool

  static let ccidInfoPlistPath = "/usr/lib/pcsc/drivers/ifd-ccid.bundle/Contents/Info.plist"

  /// True when libccid's `ifdDriverOptions` has bit 0x01 (`DRIVER_OPTION_CCID_EXCHANGE_AUTHORIZED`,
  /// libccid `Info.plist`): escapes pass without a card. nil when the value cannot be read.
  var ccidEscapesAuthorized: Bool? {
    guard let plist = ccidInfoPlist, let key = plist.firstRange(of: "<key>ifdDriverOptions</key>") else { return nil }
    let rest = plist[key.upperBound...]
    guard let open = rest.firstRange(of: "<string>"), let close = rest.firstRange(of: "</string>"), open.upperBound <= close.lowerBound
    else { return nil }
    let text = rest[open.upperBound..<close.lowerBound].trimmingPrefix("0x")
    guard let value = UInt32(text, radix: 16) else { return nil }
    return value & 0x01 != 0
  }
}

extension ReaderEnvironment {
  /// True when the CCID driver's Info.plist lists the reader's `ifdFriendlyName`: pcscd names a
  /// USB reader `FRIENDLYNAME [iInterface] (serial) NN SS` (pcsc-lite `hotplug_libudev.c`,
  /// `readerfactory.c`), so the name up to ` [`, ` (` or the ` NN SS` suffix.
  func ccidListsReader(named name: String) -> Bool {
    guard let plist = ccidInfoPlist else { return false }
    var base = Substring(name)
    if let cut = base.firstRange(of: " [") ?? base.firstRange(of: " (") {
      base = base[..<cut.lowerBound]
    } else if base.count > 6 {
      base = base.dropLast(6)  // " NN SS"
    }
    return plist.contains("<string>\(base)</string>")
  }
}

/// One finding of ``readerChecks(_:)``.
enum ReaderCheck: Equatable {
  /// Fine, with what was found.
  case ok(String)
  /// Something that stops a reader from working, and the fix.
  case problem(String, fix: String)
  /// Something that works but needs a change for part of the reader (escapes without a card).
  case note(String, fix: String)
}

/// USB devices the checks know: (vendor, product, model). Linux `drivers/nfc/pn533/usb.c`
/// (pn533_usb_table: ACR122U 072F:2200, SCL3711 04E6:5591); libccid and acsccid lists for the
/// ACS readers (docs/reader-faces.md's sources).
private let knownDevices: [(UInt16, UInt16, ReaderModel)] = [
  (0x072F, 0x2200, .acr122u), (0x04E6, 0x5591, .scl3711),
  (0x072F, 0x223B, .acr1252u), (0x072F, 0x223E, .acr1252u),
  (0x072F, 0x2303, .acr1552u), (0x072F, 0x2308, .acr1552u),
]

private let pn533Fix = "`sudo modprobe -r pn533_usb pn533 nfc` and add `blacklist pn533_usb` to /etc/modprobe.d/blacklist-nfc.conf"

/// What each reader needs and whether it has it, with the fix for each thing missing.
func readerChecks(_ env: ReaderEnvironment) -> [ReaderCheck] {
  var checks: [ReaderCheck] = []
  for (index, reader) in env.readers.enumerated() {
    let id = reader.identification
    guard let model = id.model else {
      checks.append(.ok("reader \(index): \(reader.name): \(id.description)"))
      continue
    }
    let capabilities = model.capabilities
    checks.append(.ok("reader \(index): \(reader.name): \(id.description): \(capabilities.summary)"))
    if capabilities.signalling != .none, capabilities.escapeNeedsDriverOption, id.evidence == .nameOnly,
       env.ccidEscapesAuthorized == false, env.ccidListsReader(named: reader.name) {
      let through = model == .acr122u ? "; its LED and buzzer still work with a tag on it" : ""
      checks.append(.note("\(reader.name): the CCID driver refuses its escapes (LED, buzzer, firmware) without a card\(through)",
                          fix: "set ifdDriverOptions to 0x0001 in \(ReaderEnvironment.ccidInfoPlistPath) "
                            + "(DRIVER_OPTION_CCID_EXCHANGE_AUTHORIZED), then `sudo systemctl restart pcscd`"))
    }
  }
  for device in env.usbDevices {
    guard let (_, _, model) = knownDevices.first(where: { $0.0 == device.vendor && $0.1 == device.product }) else { continue }
    let usb = "\(model.productName) (USB \(hex4(device.vendor)):\(hex4(device.product)))"
    if device.drivers.contains("pn533_usb") {
      checks.append(.problem("\(usb) is claimed by the kernel's pn533_usb: pcscd cannot use it", fix: pn533Fix))
      continue
    }
    switch model {
    case .scl3711:
      checks.append(.note("\(usb) is not a CCID reader: pcscd lists it only with Identiv's own PC/SC driver "
                          + "(libccid does not list 04E6:5591)",
                          fix: "install Identiv's SCL3711 driver for pcsc-lite, or use it through libnfc (pn53x_usb)"))
    case .acr1552u:
      let product = hex4(device.product)
      let listed = env.ccidInfoPlist.map { $0.contains("0x\(product)") || $0.contains("0x\(product.uppercased())") } ?? false
      if !listed && !env.acsccidInstalled {
        checks.append(.problem("\(usb) has no pcscd driver here: the installed libccid does not list it",
                               fix: "install ACS's driver: `sudo apt-get install libacsccid1` "
                                 + "(or a libccid that lists 072F:\(product))"))
      }
    default:
      break
    }
  }
  return checks
}

private func hex4(_ value: UInt16) -> String {
  let digits = String(value, radix: 16)
  return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
}

extension ReaderEnvironment {
  /// Reads the machine: each reader identified by its escapes (``ReaderIdentification``), the USB
  /// devices and their drivers from sysfs, the CCID driver's Info.plist.
  static func gather(readers names: [String], context: PCSCContext?) -> ReaderEnvironment {
    let readers = names.map { name -> (name: String, identification: ReaderIdentification) in
      guard let context, let escape = try? ReaderEscapeChannel(context: context, reader: name) else {
        return (name, ReaderIdentification.byName(name))
      }
      defer { escape.close() }
      return (name, ReaderIdentification.identify(escape))
    }
    let plist = readInput(ccidInfoPlistPath).map { String(decoding: $0, as: UTF8.self) }
    return ReaderEnvironment(readers: readers, usbDevices: usbDevices(), ccidInfoPlist: plist,
                             acsccidInstalled: access("/usr/lib/pcsc/drivers/ifd-acsccid.bundle", F_OK) == 0)
  }

  /// The USB devices sysfs lists (`/sys/bus/usb/devices/B-P/idVendor`, `idProduct`, and each
  /// interface `B-P:C.I/driver`'s link name); none where sysfs is absent.
  static func usbDevices(root: String = "/sys/bus/usb/devices") -> [USBDevice] {
    guard let dir = opendir(root) else { return [] }
    defer { closedir(dir) }
    var entries: [String] = []
    while let entry = readdir(dir) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if !name.hasPrefix(".") { entries.append(name) }
    }
    func hexFile(_ path: String) -> UInt16? {
      guard let bytes = readInput(path) else { return nil }
      return UInt16(String(decoding: bytes, as: UTF8.self).trimmed(" \n"), radix: 16)
    }
    return entries.filter { !$0.contains(":") }.compactMap { device in
      guard let vendor = hexFile("\(root)/\(device)/idVendor"), let product = hexFile("\(root)/\(device)/idProduct") else { return nil }
      let drivers = entries.filter { $0.hasPrefix(device + ":") }.compactMap { interface -> String? in
        var buffer = [CChar](repeating: 0, count: 512)
        let n = readlink("\(root)/\(interface)/driver", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        let target = String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return target.split(separator: "/").last.map(String.init)
      }
      return USBDevice(vendor: vendor, product: product, drivers: drivers)
    }
  }
}

private extension String {
  /// The string without the characters of `set` at either end.
  func trimmed(_ set: String) -> String {
    var s = Substring(self)
    while let c = s.first, set.contains(c) { s = s.dropFirst() }
    while let c = s.last, set.contains(c) { s = s.dropLast() }
    return String(s)
  }
}
