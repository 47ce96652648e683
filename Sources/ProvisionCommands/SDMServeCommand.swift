import ArgumentParser
import NFCTagCLI

/// `sdm serve --listen HOST:PORT`'s value: where the service listens.
package struct ListenAddress: ExpressibleByArgument, Equatable, Sendable {
  /// A host name or address (IPv6 without its brackets).
  package var host: String
  /// 0–65535; 0 lets the system pick a free port (the line on standard output names it).
  package var port: Int

  package init(host: String, port: Int) { self.host = host; self.port = port }

  /// `HOST:PORT`, or `[IPV6]:PORT`.
  package init?(argument: String) {
    guard let colon = argument.lastIndex(of: ":") else { return nil }
    var host = argument[..<colon]
    let digits = argument[argument.index(after: colon)...]
    if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
    guard !host.isEmpty, !host.contains("["), !host.contains("]"), (1...5).contains(digits.count),
          digits.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(digits), port <= 65535 else { return nil }
    self.host = String(host)
    self.port = port
  }

  package var defaultValueDescription: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}

extension SDMCommand {
  /// `sdm serve`: the SUN verification service over HTTP, with replay protection in the ledger.
  package struct Serve: ToolCommand {
    package static let configuration = CommandConfiguration(
      commandName: "serve",
      abstract: "Serve SUN verification over HTTP: GET /verify answers whether a tap is genuine and new.",
      discussion: """
        GET /verify?p=...&c=... (the tag's own query; also &enc=... with file data, or \
        url=... holding a whole tapped URL, percent-encoded) answers JSON: \
        {"valid":true,"uid":"...","counter":N,"fresh":true}. A counter not above the last one \
        accepted for the UID answers fresh false (a replay); a URL that does not verify answers \
        valid false with the reason; all with status 200. A malformed query answers 400 with \
        {"error":"..."}; 503 when the ledger cannot record the counter. GET /metrics gives \
        Prometheus text: verifications by outcome, a latency histogram. The last counter per UID \
        is kept in the ledger (a file: SQLite, for one server; a postgres:// URL for several), \
        updated in one conditional statement, so two servers never both accept one counter. The \
        master key is read once, from a file or an environment variable, and never logged. \
        SIGTERM or SIGINT stops the service gracefully (exit 0). See ntag-424-dna.md.
        """)
    @Option(help: ArgumentHelp("Where to listen: HOST:PORT (port 0: any free port, printed at start).", valueName: "host:port"))
    package var listen = ListenAddress(host: "127.0.0.1", port: 8080)
    @Option(help: ArgumentHelp(
      "A file whose first line is the master key (32 hex digits): both SDM keys derived from it (AN10922; see ntag-424-dna.md).",
      valueName: "file"))
    package var masterKeyFile: String?
    @Option(help: ArgumentHelp("An environment variable holding the master key, 32 hex digits.", valueName: "name"))
    package var masterKeyEnv: String?
    @Option(help: ArgumentHelp("The ledger: a file (SQLite), or a postgres:// URL.", valueName: "ledger"))
    package var ledger: String
    @Option(help: ArgumentHelp("The job whose counter baselines apply, when the ledger holds more than one.", valueName: "name"))
    package var job: String?
    @Option(parsing: .unconditional, help: ArgumentHelp("Ledger connections (1 for a file; PostgreSQL: 4 by default).", valueName: "n"))
    package var connections: Int?
    @OptionGroup package var parameters: SUNParameterOptions

    package init() {}

    package func validate() throws {
      guard (masterKeyFile == nil) != (masterKeyEnv == nil) else {
        throw ValidationError("give the master key with one of --master-key-file or --master-key-env.")
      }
      if let connections, !(1...64).contains(connections) { throw ValidationError("--connections takes 1 to 64.") }
      try parameters.validate(reserved: ["url"])
    }

    package func run(in context: CommandContext) throws { try context.dispatch(self) }
  }
}
