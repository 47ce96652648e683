import Foundation
import Testing
import ProvisioningLedger
@testable import ProvisioningLedgerPostgres

/// The ledger URL and libpq's variables, without a server.
@Suite struct PostgresSettingsTests {
  /// An environment with no PG* variable and a home without .pgpass.
  let bare = ["HOME": "/nonexistent-home"]

  @Test func urlGivesEverySetting() throws {
    let settings = try PostgresSettings(url: "postgres://nfc@db:5433/line", environment: bare)
    #expect(settings.host == "db")
    #expect(settings.port == 5433)
    #expect(settings.user == "nfc")
    #expect(settings.database == "line")
    #expect(settings.sslMode == .prefer)
    #expect(settings.password == nil)
    #expect(settings.description == "postgres://nfc@db:5433/line")
  }

  @Test func urlWinsOverTheEnvironmentWhichFillsTheRest() throws {
    let environment = bare.merging(["PGHOST": "envhost", "PGPORT": "6000", "PGUSER": "envuser",
                                    "PGDATABASE": "envdb", "PGSSLMODE": "require"]) { $1 }
    let partial = try PostgresSettings(url: "postgresql://nfc@db/line", environment: environment)
    #expect(partial.host == "db")
    #expect(partial.port == 6000)
    #expect(partial.user == "nfc")
    #expect(partial.database == "line")
    #expect(partial.sslMode == .require)
    let none = try PostgresSettings(url: nil, environment: environment)
    #expect(none.description == "postgres://envuser@envhost:6000/envdb")
    let bareURL = try PostgresSettings(url: "postgres://", environment: environment)
    #expect(bareURL == none)
  }

  @Test func defaultsAreLocalhostThePortAndTheOSUser() throws {
    let settings = try PostgresSettings(url: "postgres:///line", environment: bare)
    #expect(settings.host == "localhost")
    #expect(settings.port == 5432)
    #expect(settings.user == PostgresSettings.operatingSystemUser())
    #expect(settings.database == "line")
    let noDatabase = try PostgresSettings(url: "postgres://nfc@db", environment: bare)
    #expect(noDatabase.database == "nfc")
  }

  @Test func passwordInTheURLIsRefusedWithoutShowingIt() {
    for url in ["postgres://nfc:s3cret-pw@db:5432/line", "postgres://nfc:@db/line",
                "postgres://nfc@db/line?password=s3cret-pw", "postgresql://nfc:s3cret-pw@db"] {
      let message = cannotOpenMessage { try PostgresSettings(url: url, environment: bare) }
      #expect(message?.contains("PGPASSFILE") == true, "\(url)")
      #expect(message?.contains("PGPASSWORD") == true)
      #expect(message?.contains("s3cret") == false)
      #expect(message?.contains("\n") == false)
    }
  }

  @Test func percentEncodingIPv6SocketsAndParameters() throws {
    let encoded = try PostgresSettings(url: "postgres://n%40f@db/my%20line", environment: bare)
    #expect(encoded.user == "n@f")
    #expect(encoded.database == "my line")
    let ipv6 = try PostgresSettings(url: "postgres://nfc@[::1]:6543/line", environment: bare)
    #expect(ipv6.host == "::1")
    #expect(ipv6.port == 6543)
    #expect(ipv6.description == "postgres://nfc@[::1]:6543/line")
    let socket = try PostgresSettings(url: "postgres://nfc@%2Frun%2Fpostgresql/line", environment: bare)
    #expect(socket.host == "/run/postgresql")
    let parameters = try PostgresSettings(
      url: "postgres:///line?host=db&port=7000&user=nfc&sslmode=verify-full&application_name=station-a&connect_timeout=3",
      environment: bare)
    #expect(parameters.description == "postgres://nfc@db:7000/line")
    #expect(parameters.sslMode == .verifyFull)
    #expect(parameters.applicationName == "station-a")
    #expect(parameters.connectTimeout == 3)
  }

  @Test func badURLsAreRefusedInOneLine() {
    let bad = ["mysql://nfc@db/line", "postgres://nfc@db:99999/line", "postgres://nfc@db:port/line",
               "postgres://nfc@db/line?sslmode=allow", "postgres://nfc@db/line?options=-c%20x",
               "postgres://nfc@a,b/line", "postgres://nfc@db/line%zz", "postgres://nfc@[::1/line"]
    for url in bad {
      let message = cannotOpenMessage { try PostgresSettings(url: url, environment: bare) }
      #expect(message?.isEmpty == false, "\(url)")
      #expect(message?.contains("\n") == false)
    }
  }

  @Test func pgpasswordIsUsedAndNeverPrinted() throws {
    let settings = try PostgresSettings(url: "postgres://nfc@db/line",
                                        environment: bare.merging(["PGPASSWORD": "s3cret-pw"]) { $1 })
    #expect(settings.password?.value == "s3cret-pw")
    #expect(settings.passwordSource == "PGPASSWORD")
    var dumped = ""
    dump(settings, to: &dumped)
    for text in [settings.description, String(describing: settings), String(reflecting: settings), dumped] {
      #expect(!text.contains("s3cret"))
    }
  }

  @Test func passFileLinesMatchAsLibpqDoes() {
    let file = """
      # comment: db:5432:line:nfc:commented-out
      other:5432:line:nfc:wrong-host
      db:5432:line:nfc:first\\:match
      db:5432:line:nfc:second-match
      *:*:*:admin:any-host
      localhost:5432:*:sock:via-socket
      """
    #expect(PostgresPassFile.password(in: file, host: "db", port: 5432, database: "line", user: "nfc") == "first:match")
    #expect(PostgresPassFile.password(in: file, host: "db", port: 5433, database: "line", user: "nfc") == nil)
    #expect(PostgresPassFile.password(in: file, host: "elsewhere", port: 1, database: "x", user: "admin") == "any-host")
    #expect(PostgresPassFile.password(in: file, host: "/run/postgresql", port: 5432, database: "d", user: "sock")
            == "via-socket")
    #expect(PostgresPassFile.fields("a\\:b:c\\\\:d:e:f:g") == ["a:b", "c\\", "d", "e", "f:g"])
  }

  @Test func passFileIsReadOnlyWhenPrivate() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("pgpass-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let path = directory.appendingPathComponent("pgpass").path
    try "db:5432:line:nfc:from-file\n".write(toFile: path, atomically: false, encoding: .utf8)
    let environment = bare.merging(["PGPASSFILE": path]) { $1 }

    chmod(path, 0o600)
    let settings = try PostgresSettings(url: "postgres://nfc@db/line", environment: environment)
    #expect(settings.password?.value == "from-file")
    #expect(settings.passwordSource == path)
    #expect(settings.passwordNotes.isEmpty)

    chmod(path, 0o644)
    let open = try PostgresSettings(url: "postgres://nfc@db/line", environment: environment)
    #expect(open.password == nil)
    #expect(open.passwordNotes.count == 1)
    #expect(open.passwordNotes.first?.contains("group or world access") == true)
    #expect(open.passwordNotes.first?.contains("from-file") == false)

    // PGPASSWORD comes first: the file is not even read.
    let both = try PostgresSettings(url: "postgres://nfc@db/line",
                                    environment: environment.merging(["PGPASSWORD": "from-env"]) { $1 })
    #expect(both.password?.value == "from-env")

    let missing = try PostgresSettings(url: "postgres://nfc@db/line",
                                       environment: bare.merging(["PGPASSFILE": path + ".missing"]) { $1 })
    #expect(missing.password == nil)
    #expect(missing.passwordNotes.count == 1)
  }

  @Test func homePgpassIsTheDefaultFile() throws {
    let home = FileManager.default.temporaryDirectory.appendingPathComponent("home-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: home) }
    let path = home.appendingPathComponent(".pgpass").path
    try "*:*:*:nfc:home-file\n".write(toFile: path, atomically: false, encoding: .utf8)
    chmod(path, 0o600)
    let settings = try PostgresSettings(url: "postgres://nfc@db/line", environment: ["HOME": home.path])
    #expect(settings.password?.value == "home-file")
  }

  @Test func recognisesPostgresURLs() {
    #expect(PostgresSettings.isPostgresURL("postgres://nfc@db/line"))
    #expect(PostgresSettings.isPostgresURL("PostgreSQL://db"))
    #expect(!PostgresSettings.isPostgresURL("rows.ledger.sqlite"))
    #expect(!PostgresSettings.isPostgresURL("/tmp/postgres://x"))
  }

  /// The message of the `cannotOpen` error `body` throws; records an issue for anything else.
  func cannotOpenMessage(_ body: () throws -> PostgresSettings,
                         sourceLocation: SourceLocation = #_sourceLocation) -> String? {
    do {
      let settings = try body()
      Issue.record("accepted: \(settings)", sourceLocation: sourceLocation)
    } catch {
      if case .cannotOpen(let message)? = error as? LedgerError { return message }
      Issue.record("threw \(error)", sourceLocation: sourceLocation)
    }
    return nil
  }
}
