import ArgumentParser
import Locking
import NFCTagCLI
import NFCEmulator
import NFCEmulatorVPCD
import NFCTransport

extension EmulateCommand {
  /// `--feed N`: the options that go with it, and none that do not.
  func validateFeed() throws {
    guard let feed, (1...FeedSettings.maximumCount).contains(feed) else {
      throw ValidationError("--feed takes 1 to \(FeedSettings.maximumCount) tags.")
    }
    for name in tag.split(separator: ",", omittingEmptySubsequences: false) where VirtualTagKind(rawValue: String(name)) == nil {
      throw ValidationError("unknown tag '\(name)': use one of \(VirtualTagKind.names).")
    }
    if let option = [image.map { _ in "--image" }, uid.map { _ in "--uid" }, removeAfter.map { _ in "--remove-after" }].compactMap({ $0 }).first {
      throw ValidationError("\(option) does not go with --feed: fed tags get their UIDs from --seed and are saved in --image-dir.")
    }
    if let handMs, !(0...600_000).contains(handMs) { throw ValidationError("--hand-ms takes 0 to 600000.") }
    if randomUID, let other = kinds.first(where: { $0.desfireChip == nil }) {
      throw ValidationError("--random-uid is for desfire kinds (their random ID), not \(other.rawValue).")
    }
    guard parseEndpoint(vpcd) != nil else { throw ValidationError("--vpcd takes HOST:PORT, for example 127.0.0.1:35963.") }
  }

  /// Shows the feed's tags one after another through vpcd; exits 0 once the last one has left.
  func runFeed(in context: CommandContext) throws {
    guard let count = feed, let (host, port) = parseEndpoint(vpcd) else { throw ExitCode(ExitStatus.usage) }
    var settings = FeedSettings(kinds: kinds, count: count, seed: seed ?? 0, imageDirectory: imageDir,
                                handMilliseconds: handMs ?? FeedSettings.defaultHandMilliseconds)
    settings.randomUID = randomUID
    let feeder: TagFeeder
    do {
      feeder = try TagFeeder(settings: settings, face: reader)
    } catch {
      let line = error.description + (error.workingFace.map { ": use --reader \($0.rawValue)" } ?? "")
      throw cliFailure(for: error, otherwise: error.workingFace == nil && imageDir != nil ? .unwritableFile(line) : .invalidValue(line))
    }
    let progress = Locked(FeedProgress(count: count, quiet: quiet, errors: context.errors))
    let banner = "nfctag: feeding \(count) tags (\(kinds.map(\.rawValue).joined(separator: ", "))) "
      + "\(readerPhrase(preposition: "to", host: host, port: port))\(imageDir.map { ", images in \($0)" } ?? ""); Ctrl-C to stop\n"
    // The bridge owns the feeder from here on: it makes each card when the one before has left.
    let cards: () -> VPCDServedCard? = {
      let fed: FedTag?
      do { fed = try feeder.next() } catch {
        context.errors.write("nfctag: \(error)\n")
        return nil
      }
      guard let fed else { return nil }
      progress.withLock { $0.arriving(fed) }
      return VPCDServedCard(card: fed.card, afterCommand: { progress.withLock { $0.commands += 1 } }, departure: fed.departure) { departure in
        var saved: String? = nil
        var failure: String? = nil
        do { saved = try feeder.save(fed) } catch { failure = "\(error)" }
        progress.withLock { $0.left(fed, departure: departure, saved: saved, failure: failure) }
      }
    }
    guard let bridge = VPCDBridge(sequence: cards, host: host, port: port, latency: latency) else { throw ExitCode(ExitStatus.software) }
    let interrupt = context.interrupts.listen { bridge.stop() }
    defer { interrupt.stop() }
    let end = try bridge.run(firstConnectTimeout: 5) {
      progress.withLock { $0.connected(banner: banner) }
    }
    if case .stopped = end { progress.withLock { $0.say("nfctag: stopped\n") } }
    if let failure = progress.withLock({ $0.saveFailure }) { throw CLIFailure(.unwritableFile(failure)) }
  }
}

/// What the feed has done so far, for its stderr lines: one when a tag arrives (vpcd first talks
/// to it) and one when it leaves.
struct FeedProgress {
  let count: Int
  let quiet: Bool
  let errors: any OutputSink
  var bannerShown = false
  var arriving: (index: Int, product: String, uid: String)?
  var announced = 0
  var commands = 0
  var lastLeft: Double?
  var saveFailure: String?

  init(count: Int, quiet: Bool, errors: any OutputSink) {
    self.count = count
    self.quiet = quiet
    self.errors = errors
  }

  func say(_ line: String) { if !quiet { errors.write(line) } }

  mutating func arriving(_ fed: FedTag) {
    arriving = (fed.index, fed.tag.productName, hexString(fed.tag.shownIdentifier))
    commands = 0
  }

  /// vpcd talks to a new connection: the first one shows the banner; each tag is announced once.
  mutating func connected(banner: String) {
    if !bannerShown {
      bannerShown = true
      errors.write(banner)
    }
    guard let arriving, arriving.index > announced else { return }
    announced = arriving.index
    let gap = lastLeft.map { ", \(Int(((TagDeparture.now() - $0) * 1000).rounded())) ms after the last one left" } ?? ""
    say("nfctag: tag \(arriving.index)/\(count) arrived: \(arriving.product) UID \(arriving.uid)\(gap)\n")
  }

  mutating func left(_ fed: FedTag, departure: TagDeparture?, saved: String?, failure: String?) {
    // The swap is measured from the moment the tag left (the LED command, or the end of the
    // hand time), not from when vpcd ejected it.
    let now = TagDeparture.now()
    lastLeft = departure.flatMap { $0.hasLeft(at: now) ? $0.deadline : nil } ?? now
    let reason: String
    if departure?.leaving == true {
      reason = "after the LED/buzzer command"
    } else if let departure, departure.hasLeft(at: TagDeparture.now()) {
      reason = "after \(Int(departure.handSeconds * 1000)) ms without a command"
    } else {
      reason = "(stopped)"
    }
    say("nfctag: tag \(fed.index)/\(count) left \(reason), \(commands) commands\(saved.map { "; saved \($0)" } ?? "")\n")
    if let failure {
      errors.write("nfctag: \(failure)\n")
      saveFailure = saveFailure ?? failure
    }
  }
}
