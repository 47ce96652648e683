import NFCTags
import NFCTransport

/// Writing a memory image (`dump --memory`) back onto a tag of the same chip: what cloning a tag
/// needs. Types 1, 2, 3 and 5; a Type 4 tag keeps its message in files and is refused (1,
/// unsupported feature). Same rules as the other commands: connect first; failures are
/// ``NFCReaderError`` with the platform's ``TagError`` underneath.
extension NFCNDEFTag {
  /// Reads the tag and works out the writes that make its user memory (with
  /// `includingSystemAreas`, also its lock, OTP, CC, configuration and password areas) equal to
  /// `image`. Nothing is written: check the plan's `permanentChanges` before carrying it
  /// out with ``restoreMemory(_:verify:)``.
  /// - Throws: 1 (unsupported feature) when the image is not of this chip or asks for what the
  ///   chip cannot do, or the tag is Type 4.
  public func planMemoryRestore(image: [UInt8], includingSystemAreas: Bool = false) throws(NFCReaderError) -> MemoryRestorePlan {
    try connection.withPlatform { platform throws(TagError) in
      try restoring(platform).planRestore(image: image, includingSystemAreas: includingSystemAreas)
    }
  }

  /// Carries out a plan from ``planMemoryRestore(image:includingSystemAreas:)`` on this tag and,
  /// with `verify`, reads the written units back.
  public func restoreMemory(_ plan: MemoryRestorePlan, verify: Bool = true) throws(NFCReaderError) {
    try connection.withPlatform { platform throws(TagError) in try restoring(platform).restore(plan, verify: verify) }
  }
}

extension TagConnection {
  /// How commands reach the tag, for people: the reader driver's path ("ACR122U direct transmit
  /// (PN532 InCommunicateThru)", "PC/SC Part 3 transparent exchange (FF C2, …)").
  public func readerPath() throws(NFCReaderError) -> String {
    try withLink { link in link.pathDescription }
  }
}

private func restoring(_ platform: any NDEFTagPlatform) throws(TagError) -> any MemoryRestoring {
  guard let restoring = platform as? any MemoryRestoring else {
    throw .unsupported("a \(platform.platform.displayName) tag is not memory-mapped (its NDEF message lives in a "
                       + "file): there is no memory image to write back")
  }
  return restoring
}
