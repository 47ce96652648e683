import Foundation
import Testing

/// MIFARE DESFire through the real pcscd, behind the ACR122U and a Part 3 reader (the ACR1552U),
/// under their real names (nfctag's pcsc-lite driver, docs/ifd-handler.md): NDEF as AN11004 maps
/// it on each generation, and `nfctag desfire …` (docs/desfire.md).
@Suite(.enabled(if: e2eEnabled, e2eSkipReason), .enabled(if: ifdHandlerInstalled, ifdHandlerSkipReason))
struct DriverDESFireEndToEnd {
  /// A face with a DESFire kind.
  struct Cell: Sendable, CustomTestStringConvertible {
    var face: String
    var kind: String
    var testDescription: String { "\(kind) behind \(face)" }
  }

  static let faces = ["acr122u", "acr1552u"]
  static let kinds = ["desfire-ev1-4k", "desfire-ev2-4k", "desfire-ev3-4k"]
  /// Every face with every generation in CI (``fullCounts``); in a plain `make test`, each
  /// generation once, the faces in turn.
  static var cells: [Cell] {
    fullCounts ? faces.flatMap { face in kinds.map { Cell(face: face, kind: $0) } }
      : kinds.enumerated().map { Cell(face: faces[$0.offset % faces.count], kind: $0.element) }
  }

  /// A factory card: `scan` names it, `read` says to format it (65; on an EV2 after its random
  /// FCI, docs/desfire.md), `format` gives it AN11004's NDEF application, and a URL written reads
  /// back.
  @Test(arguments: cells)
  func aFactoryCardIsFormattedWrittenAndRead(_ cell: Cell) throws {
    try withDriverReader(face: cell.face, tag: cell.kind) { reader, _ in
      func nfctag(_ arguments: String...) throws -> RunResult {
        try runNFCTag(arguments + ["--reader", reader.name, "--timeout", "5"])
      }
      let scan = try nfctag("scan", "--json")
      #expect(scan.status == 0, "\(scan.stderr)")
      let generation = cell.kind.split(separator: "-")[1].uppercased()
      #expect(scan.stdout.contains("MIFARE DESFire \(generation) 4K"), "\(scan.stdout)")
      let unformatted = try nfctag("read")
      #expect(unformatted.status == 65, "\(unformatted.stderr)")
      #expect(unformatted.stderr.contains("nfctag format"), "\(unformatted.stderr)")
      let format = try nfctag("format")
      #expect(format.status == 0, "\(format.stderr)")
      let url = "https://example.org/desfire/\(cell.face)/\(cell.kind)"
      let write = try nfctag("write", "url", url)
      #expect(write.status == 0, "\(write.stderr)")
      #expect(try nfctag("read", "--format", "json").stdout.contains(#""uri":"\#(url)""#))
    }
  }
}
