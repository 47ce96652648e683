import NFCTagCLI
import ArgumentParser
import NFCReaders
import NFCTransport
import PCSC

extension NFCTool {
  /// `nfctag reader …`: the reader's own commands: firmware, LEDs and buzzer, on the readers
  /// that have them (ACS ACR122U: pseudo-APDUs; ACS ACR1252U and ACR1552U: ACS escapes).
  struct Reader: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "reader",
      abstract: "Reader commands: firmware version, LEDs and buzzer (ACR122U, ACR1252U, ACR1552U).",
      discussion: """
        The reader is told by what it answers to ACS's escapes (SCardControl), its name only a \
        hint. ACR122U pseudo-APDUs are sent as escape commands when the driver allows them, else \
        through a tag in the field (as with vpcd, or libccid without \
        DRIVER_OPTION_CCID_EXCHANGE_AUTHORIZED); the ACR1252U's and ACR1552U's escapes need the \
        driver to allow them (`nfctag doctor` says how).
        """,
      subcommands: [Firmware.self, LED.self, Beep.self, Buzzer.self])

    struct Firmware: ToolCommand {
      static let configuration = CommandConfiguration(commandName: "firmware", abstract: "Print the reader's firmware version (FF 00 48 00 00).")
      @OptionGroup var target: ReaderTarget
      func run(in context: CommandContext) throws {
        let version = try target.withReader { reader throws(TransceiveError) in
          switch reader {
          case .acr122u(let control): return try control.firmware()
          case .acs(let escape, _): return try escape.firmware()
          }
        }
        context.output.write(sanitizeLine(version) + "\n")
      }
    }

    struct LED: ToolCommand {
      static let configuration = CommandConfiguration(
        commandName: "led",
        abstract: "Set the red and green LEDs, optionally blinking with the buzzer (FF 00 40).")
      @OptionGroup var target: ReaderTarget
      @Flag(help: "Red LED on.") var red = false
      @Flag(help: "Green LED on.") var green = false
      // .unconditional: a negative number is the option's value (a range error), not "Missing value".
      @Option(parsing: .unconditional, help: "Blink this many times (0 to 255) between the final state and its opposite.") var blink: Int = 0
      @Option(parsing: .unconditional, help: "Milliseconds of each half blink (100 to 25500, in steps of 100).") var period: Int = 300
      @Flag(help: "Sound the buzzer during each blink.") var beep = false

      func validate() throws {
        guard (100...25_500).contains(period), period % 100 == 0 else {
          throw ValidationError("--period takes 100 to 25500 milliseconds, in steps of 100.")
        }
        guard (0...255).contains(blink) else { throw ValidationError("--blink takes 0 to 255.") }
      }

      func run(in context: CommandContext) throws {
        let units = UInt8(period / 100)
        let (red, green, blink, beep) = (red, green, UInt8(clamping: blink), beep)  // validate(): 0...255
        let state = try target.withReader { reader throws(TransceiveError) in
          switch reader {
          case .acr122u(let control):
            return try control.signal(red: red, green: green, blinkRed: blink > 0 && red, blinkGreen: blink > 0 && green,
                                      t1: units, t2: units, repetitions: blink, buzzer: beep ? .duringT1 : .off)
          case .acs(let escape, let model):
            // ACS escapes set a steady state (ACM1252U-Y3 §5.3.2): no blinking.
            guard blink == 0 else {
              throw .unsupported("--blink on the \(model.productName) (its LED escape sets a steady state); the ACS ACR122U blinks")
            }
            let state = try escape.setLEDs(first: red, green: green)
            if beep { try escape.beep(milliseconds: Int(units) * 100) }
            return state
          }
        }
        context.output.write("red \(state & 1 != 0 ? "on" : "off"), green \(state & 2 != 0 ? "on" : "off")\n")
      }
    }

    struct Buzzer: ToolCommand {
      static let configuration = CommandConfiguration(commandName: "buzzer", abstract: "Turn the beep on card detection on or off (FF 00 52).")
      @OptionGroup var target: ReaderTarget
      @Argument(help: "on or off.") var state: BuzzerState

      func run(in context: CommandContext) throws {
        let on = state == .on
        try target.withReader { reader throws(TransceiveError) in
          switch reader {
          case .acr122u(let control): try control.setDetectionBuzzer(on)
          case .acs(_, let model):
            throw .unsupported("the beep on card detection of the \(model.productName) (nfctag sets it on the ACS ACR122U only)")
          }
        }
        context.output.write("buzzer on card detection: \(state.rawValue)\n")
      }
    }

    struct Beep: ToolCommand {
      static let configuration = CommandConfiguration(
        commandName: "beep", abstract: "Sound the buzzer once (ACR122U: FF 00 40; ACR1252U, ACR1552U: escape E0 00 00 28).")
      @OptionGroup var target: ReaderTarget
      @Option(parsing: .unconditional, help: "Milliseconds (100 to 2500, in steps of 100).") var duration: Int = 200

      func validate() throws {
        guard (100...2_500).contains(duration), duration % 100 == 0 else {
          throw ValidationError("--duration takes 100 to 2500 milliseconds, in steps of 100.")
        }
      }

      func run(in context: CommandContext) throws {
        let units = UInt8(duration / 100)  // validate(): 1...25
        try target.withReader { reader throws(TransceiveError) in try Self.sound(units: units, on: reader) }
        context.output.write("beeped \(duration) ms\n")
      }

      /// Sounds the buzzer for `units` × 100 ms through `reader`'s commands.
      static func sound(units: UInt8, on reader: ReaderTarget.Commands) throws(TransceiveError) {
        switch reader {
        case .acr122u(let control):
          // P2 00: the LEDs unchanged; the buzzer on during T1, once (ACR122U API V2.04 §6.2).
          _ = try control.signal(leds: 0x00, t1: units, t2: 0, repetitions: 1, buzzer: .duringT1)
        case .acs(let escape, _):
          try escape.beep(milliseconds: Int(units) * 100)
        }
      }
    }
  }
}

enum BuzzerState: String, ExpressibleByArgument { case on, off }

/// `--reader` for the reader commands.
struct ReaderTarget: ParsableArguments {
  @Option(name: .shortAndLong, help: "Reader name, a unique prefix of it, or its index in `nfctag readers`.")
  var reader: String?

  /// The reader's commands, by the path it has.
  enum Commands {
    /// The ACR122U's pseudo-APDUs.
    case acr122u(ACR122UControl)
    /// ACS's escapes (ACR1252U, ACR1552U).
    case acs(ACSEscape, ReaderModel)
  }

  /// Opens the reader, tells which commands it takes (ACS escapes, or the ACR122U's firmware
  /// pseudo-APDU), runs `body`, and maps failures to one line naming the reader and what works.
  func withReader<T>(_ body: (Commands) throws(TransceiveError) -> T) throws -> T {
    let pcsc = try PCSCContext()
    let name = try PCSCReaders.select(reader, context: pcsc)
    let escape = try? ReaderEscapeChannel(context: pcsc, reader: name)
    defer { escape?.close() }
    var opened: ReaderCommandTransport?
    defer { opened?.close() }
    return try Self.withCommands(of: name, escape: escape, body) { () throws(PollError) -> any APDUTransport in
      let transport = try ReaderCommandTransport(context: pcsc, reader: name)
      opened = transport
      return transport
    }
  }

  /// Runs `body` with the commands reader `name` answers: ACS's escapes when `escape` reaches
  /// them, else the ACR122U's pseudo-APDUs through `openTransport()`'s connection (an escape or
  /// a tag in the field). Failures are one line naming the reader and what works.
  static func withCommands<T>(of name: String, escape: (any ReaderEscaping)?, _ body: (Commands) throws(TransceiveError) -> T,
                              openTransport: () throws(PollError) -> any APDUTransport) throws -> T {
    if let escape {
      let id = ReaderIdentification.identify(escape)
      if let model = id.model, case .firmware(_, let code) = id.evidence, model.capabilities.signalling == .acsEscape {
        return try run(body, .acs(ACSEscape(escape: escape, code: code), model), name)
      }
    }
    let transport: any APDUTransport
    do {
      transport = try openTransport()
    } catch .readerUnavailable(let why) {
      throw CLIFailure(.readerUnavailable(Self.refusal(name, cardPresent: false, driverSays: why)))
    }
    let control = ACR122UControl(transport: transport)
    do {
      _ = try control.firmware()
    } catch {
      // Without escapes, the ACR1252U takes the ACR122U's FF 00 40 through a tag (ACM1252U-Y3 §5.6.1):
      // its name is the hint to try, its answer decides.
      guard ReaderModel.hinted(byName: name) == .acr1252u else {
        throw CLIFailure(.unsupported(Self.refusal(name, cardPresent: true, driverSays: nil)))
      }
      do {
        return try run(body, .acr122u(control), name)
      } catch let error as TransceiveError {
        switch error {
        case .status, .malformedResponse:
          throw CLIFailure(.unsupported("\(name) (ACS ACR1252U by its name) answers neither ACS's escapes nor the ACR122U's "
                                        + "FF 00 40 through the tag: if it is one, set ifdDriverOptions 0x0001 in the CCID driver's "
                                        + "Info.plist (`nfctag doctor` says how)"))
        default: throw error
        }
      }
    }
    return try run(body, .acr122u(control), name)
  }

  /// Why `name` takes no reader command, and what would work. `driverSays`: the reason no
  /// connection was made (no escapes and no tag).
  static func refusal(_ name: String, cardPresent: Bool, driverSays: String?) -> String {
    let hinted = ReaderModel.hinted(byName: name)
    if let model = hinted, model.capabilities.signalling == .acsEscape {
      let tag = model == .acr1252u && !cardPresent ? ", or put a tag on it (its LEDs then take FF 00 40)" : ""
      return "\(name) (\(model.productName) by its name) answered no ACS escape: its driver refuses escapes; set "
        + "ifdDriverOptions 0x0001 in the CCID driver's Info.plist (`nfctag doctor` says how)\(tag)"
    }
    if let driverSays { return "\(driverSays): put a tag on it and try again" }
    let what = hinted.map { "the \($0.productName) has no LED or buzzer command nfctag can send" }
      ?? "it answers neither ACS's escapes nor the ACR122U's FF 00 48"
    return "\(name): \(what); readers with them: ACS ACR122U, ACS ACR1252U, ACS ACR1552U"
  }

  private static func run<T>(_ body: (Commands) throws(TransceiveError) -> T, _ commands: Commands, _ name: String) throws -> T {
    do {
      return try body(commands)
    } catch .unsupported(let what) {
      throw CLIFailure(.unsupported("\(name): \(what)"))
    }
  }
}
