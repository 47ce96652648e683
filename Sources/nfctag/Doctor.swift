import NFCTagCLI
import ArgumentParser
import NFCReaders
import NFCTransport
import PCSC

extension NFCTool {
  /// `nfctag doctor`: checks what a working setup needs and says the fix for each problem.
  struct Doctor: ToolCommand {
    static let configuration = CommandConfiguration(
      // Named, not derived from the type name: ArgumentParser derives it with String(describing:),
      // which scans every protocol conformance in the binary, at every start of the tool.
      commandName: "doctor",
      abstract: "Check pcscd, the readers and the kernel drivers, and say how to fix each problem.")

    func run(in context: CommandContext) throws {
      let out = StandardOutput(context.output)
      defer { out.flush() }
      func print(_ line: String) { out.write(line + "\n") }
      var problems = 0
      func ok(_ text: String) { print("ok    \(text)") }
      func problem(_ text: String, fix: String) {
        problems += 1
        print("FAIL  \(text)\n      fix: \(fix)")
      }
      func note(_ text: String) { print("note  \(text)") }

      // 1. The PC/SC service.
      var readers: [String] = []
      var pcsc: PCSCContext?
      do {
        pcsc = try PCSCContext()
        ok("pcscd answers")
        readers = try pcsc?.listReaders() ?? []
      } catch {
        problem("pcscd does not answer: \(error)",
                fix: "start it: `sudo pcscd` (or `sudo systemctl start pcscd.socket`); install it with `sudo apt-get install pcscd`")
      }

      // 2. Readers.
      if readers.isEmpty {
        problem("no reader is attached",
                fix: "plug in a reader (ACR122U: install libccid), or start a virtual one: `nfctag emulate --tag ntag215`")
      }
      // Each reader: what it is (by its answers), what it can do, what it needs (docs/readers.md).
      for check in readerChecks(ReaderEnvironment.gather(readers: readers, context: pcsc)) {
        switch check {
        case .ok(let text): ok(sanitizeLine(text))
        case .problem(let text, let fix): problem(sanitizeLine(text), fix: fix)
        case .note(let text, let fix): note(sanitizeLine(text) + "\n      fix: " + fix)
        }
      }

      // 3. Kernel NFC drivers that claim ACR122U / PN533 readers before pcscd can.
      let modules = readInput("/proc/modules").map { String(decoding: $0, as: UTF8.self) } ?? ""
      let grabbing = ["pn533_usb", "pn533", "port100"].filter { name in
        modules.split(separator: "\n").contains { $0.hasPrefix(name + " ") }
      }
      if grabbing.isEmpty {
        ok("no kernel NFC driver (pn533_usb) is loaded")
      } else {
        problem("kernel module(s) \(grabbing.joined(separator: ", ")) loaded: they take ACR122U and SCL3711 readers away from pcscd",
                fix: "`sudo modprobe -r pn533_usb pn533 nfc` and add `blacklist pn533_usb` to /etc/modprobe.d/blacklist-nfc.conf")
      }

      // 4. Drivers for pcscd.
      if fileExists("/usr/lib/pcsc/drivers/ifd-ccid.bundle") {
        ok("libccid (USB CCID readers such as the ACR122U) is installed")
      } else {
        note("libccid is not installed: USB readers need it (`sudo apt-get install libccid`)")
      }
      if fileExists("/usr/lib/pcsc/drivers/serial/libifdvpcd.so") {
        ok("vsmartcard-vpcd (virtual readers for `nfctag emulate`) is installed")
      } else {
        note("vsmartcard-vpcd is not installed: `nfctag emulate` needs it (`sudo apt-get install vsmartcard-vpcd`)")
      }

      if problems > 0 {
        // The one stderr line of a failure (docs/exit-codes.md), after the checks on stdout.
        throw CLIFailure(.serviceUnavailable("\(problems) problem(s) found: the fix for each is under its FAIL line"))
      }
      print("all checks passed")
    }
  }
}

/// True when `path` names a file or folder: the C library's `access`, not Foundation, so the tool
/// does not link Foundation and its ICU data (`nfctag --version` starts in about a millisecond).
private func fileExists(_ path: String) -> Bool { access(path, F_OK) == 0 }
