/// A Type 4 tag (NTAG 424-like NDEF application) with factory content.
func makeType4Tag(uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
  throw EmulatorError("Type 4 is not emulated yet")
}

/// A Type 4 tag from a memory image.
func makeType4Tag(image: [UInt8]) throws(EmulatorError) -> any VirtualTag {
  throw EmulatorError("Type 4 is not emulated yet")
}
