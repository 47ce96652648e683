import NFCTagCLI
import ArgumentParser
import NFCReaders
import NFCTransport
import PCSC

extension NFCTool {
  /// `nfctag reader …`: the ACR122U's own commands: firmware, LEDs and buzzer.
  struct Reader: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "reader",
      abstract: "ACR122U reader commands: firmware version, LEDs and buzzer.",
      discussion: """
        Sent as escape commands when the driver allows them, else through a tag in the field \
        (as with vpcd, or libccid without DRIVER_OPTION_CCID_EXCHANGE_AUTHORIZED).
        """,
      subcommands: [Firmware.self, LED.self, Buzzer.self])

    struct Firmware: ToolCommand {
      static let configuration = CommandConfiguration(commandName: "firmware", abstract: "Print the reader's firmware version (FF 00 48 00 00).")
      @OptionGroup var target: ReaderTarget
      func run(in context: CommandContext) throws {
        let version = try target.withControl { control throws(TransceiveError) in try control.firmware() }
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
        let state = try target.withControl { control throws(TransceiveError) in
          try control.signal(red: red, green: green, blinkRed: blink > 0 && red, blinkGreen: blink > 0 && green,
                             t1: units, t2: units, repetitions: blink, buzzer: beep ? .duringT1 : .off)
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
        try target.withControl { control throws(TransceiveError) in try control.setDetectionBuzzer(on) }
        context.output.write("buzzer on card detection: \(state.rawValue)\n")
      }
    }
  }
}

enum BuzzerState: String, ExpressibleByArgument { case on, off }

/// `--reader` for the reader commands.
struct ReaderTarget: ParsableArguments {
  @Option(name: .shortAndLong, help: "Reader name, a unique prefix of it, or its index in `nfctag readers`.")
  var reader: String?

  /// Opens the reader, checks that it is an ACR122U, runs `body`, and maps failures to one line.
  func withControl<T>(_ body: (ACR122UControl) throws(TransceiveError) -> T) throws -> T {
    let pcsc = try PCSCContext()
    let name = try PCSCReaders.select(reader, context: pcsc)
    let transport: ReaderCommandTransport
    do {
      transport = try ReaderCommandTransport(context: pcsc, reader: name)
    } catch .readerUnavailable(let why) {
      // Only a reader whose driver refuses escape commands without a card says so here.
      throw CLIFailure(.readerUnavailable("\(why): put a tag on it and try again"))
    }
    defer { transport.close() }
    let control = ACR122UControl(transport: transport)
    do {
      _ = try control.firmware()
    } catch {
      throw CLIFailure(.unsupported("\(name) is not an ACR122U (it does not answer FF 00 48 with its firmware)"))
    }
    return try body(control)
  }
}
