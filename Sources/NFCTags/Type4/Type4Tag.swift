import NFCTransport

/// Builds the Type 4 platform for a detected target.
func makeType4Platform(for target: DetectedTarget) throws(TagError) -> any NDEFTagPlatform {
  throw .unsupported("Type 4 tags are not supported yet")
}
