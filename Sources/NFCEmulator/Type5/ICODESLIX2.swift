/// An ICODE SLIX2 with factory content.
func makeICODESLIX2(uid: [UInt8]?) throws(EmulatorError) -> any VirtualTag {
  throw EmulatorError("ICODE SLIX2 is not emulated yet")
}

/// An ICODE SLIX2 from a memory image (blocks in address order).
func makeICODESLIX2(image: [UInt8]) throws(EmulatorError) -> any VirtualTag {
  throw EmulatorError("ICODE SLIX2 is not emulated yet")
}
