/// The PN532's handling of Jewel/Topaz (Type 1) targets behind the ACR122U.
extension ACR122UFace {
  /// InDataExchange / InCommunicateThru for a Type 1 tag.
  func jewelExchange(_ command: [UInt8], thru: Bool, tag: any VirtualTag) -> [UInt8] {
    chipAnswer(tag.respond(to: command), thru: thru)
  }
}
