@testable import NFCTagCLI
import Testing

/// `nfctag desfire ARGUMENTS` in process, expected to succeed.
@discardableResult
func desfireOK(_ arguments: [String]) throws -> RunResult {
  let r = try runTool(["desfire"] + arguments)
  #expect(r.status == 0, "\(arguments): \(r.stderr)")
  return r
}

/// `nfctag desfire ARGUMENTS` in process, expected to end with `status` and one line holding `text`.
func desfireRefused(_ arguments: [String], _ status: Int32, _ text: String, environment: [String: String] = [:]) throws {
  let r = try runTool(["desfire"] + arguments, environment: environment)
  #expect(r.status == status, "\(arguments): \(r.status) \(r.stderr)")
  #expect(r.stderr.contains(text), "\(arguments): \(r.stderr)")
  #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
}
