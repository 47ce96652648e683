import DESFireEmulator
import Foundation
import Testing

/// `nfctag provision --lock --yes` onto MIFARE DESFire cards through the in-process feeder: every
/// card done holds its row's message and is read-only for good (`write` refused, `lock` finds it
/// read-only already); `--lock` without `--yes`, `--protect` and `--mirror` refused before any tag
/// (64, one line naming why).
struct ProvisionDESFireLockCLITests {
  static let masterHex = "5a1c0f5e2a7b49c3be60d1f4a5972e3c"
  let scratch: ScratchFolder
  var directory: URL { scratch.url }

  init() throws {
    DESFireEmulator.register()   // the in-process runner calls no `main`
    scratch = try ScratchFolder("nfctag-prov-desfire-lock")
    _ = try scratch.keyFile("master.hex", Self.masterHex)
  }

  var keyFile: URL { directory.appendingPathComponent("master.hex") }
  var images: URL { directory.appendingPathComponent("img") }

  @Test(arguments: ["desfire-ev1-4k", "desfire-ev3-8k"])
  func everyCardDoneIsReadOnly(kind: String) throws {
    let r = try runTool(["provision", "--count", "2", "--url", "https://example.com/d/{n:03}?u={uid}", "--json", "--timeout", "2",
                         "--ledger", directory.appendingPathComponent("l.sqlite").path, "--desfire-master-key-file", keyFile.path,
                         "--lock", "--yes", "--reader", "sim:\(kind)+feed=2,seed=5,images=\(images.path)"])
    #expect(r.status == 0, "\(r.stderr)")
    #expect(r.stdout.split(separator: "\n").last == #"{"event":"summary","done":2,"failed":0,"skipped":0,"remaining":0}"#, "\(r.stdout)")
    let saved = try FileManager.default.contentsOfDirectory(at: images, includingPropertiesForKeys: nil).filter { $0.pathExtension == "bin" }
    #expect(saved.count == 2)
    for image in saved {
      let reader = "sim:\(kind):\(image.path)"
      let read = try runTool(["read", "--reader", reader])
      #expect(read.status == 0 && read.stdout.contains("https://example.com/d/"), "\(read.stdout) \(read.stderr)")
      let write = try runTool(["write", "url", "https://example.com/changed", "--reader", reader])
      #expect(write.status == 77, "\(write.stderr)")
      let lock = try runTool(["lock", "--yes", "--reader", reader])
      #expect(lock.status == 0 && lock.stderr.contains("already read-only"), "\(lock.stderr)")
    }
  }

  @Test func theNTAGOptionsAreRefusedNamingWhy() throws {
    let base = ["provision", "--count", "1", "--url", "https://e.com/{n}", "--reader", "sim:desfire-ev3-8k",
                "--desfire-master-key-file", keyFile.path]
    for (arguments, text) in [(["--lock"], "--yes"),
                              (["--protect", "--secret-env", "S"], "password protection"),
                              (["--mirror", "uid"], "the UID mirror"),
                              (["--mirror", "uid"], "--sdm-url")] {
      let r = try runTool(base + arguments)
      #expect(r.status == 64, "\(arguments): \(r.stderr)")
      #expect(r.stderr.contains(text), "\(arguments): \(r.stderr)")
      #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
    }
    let sun = try runTool(["provision", "--count", "1", "--sdm-url", "https://e.com/{n}?p={picc}&c={cmac}", "--master-key-file", keyFile.path,
                           "--reader", "sim:desfire-ev3-8k", "--desfire-master-key-file", keyFile.path, "--lock", "--yes"])
    #expect(sun.status == 64 && sun.stderr.contains("--lock") && sun.stderr.split(separator: "\n").count == 1, "\(sun.stderr)")
  }
}
