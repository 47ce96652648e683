/// A FeliCa Lite-S with factory content.
func makeFeliCaLiteS(uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
  throw EmulatorError("FeliCa Lite-S is not emulated yet")
}

/// A FeliCa Lite-S from a memory image (16-byte blocks from the attribute block).
func makeFeliCaLiteS(image: [UInt8]) throws(EmulatorError) -> any VirtualTag {
  throw EmulatorError("FeliCa Lite-S is not emulated yet")
}
