/// How a native command's data travels: NT4H2421Gx datasheet §9.1.8–§9.1.10.
public enum CommunicationMode: Sendable, Hashable {
  /// CommMode.Plain: no MAC, no encryption; the command counter still advances (§9.1.8).
  case plain
  /// CommMode.MAC: an 8-byte MACt after the command data and after the response data (§9.1.9).
  case mac
  /// CommMode.Full: the data encrypted (AES-CBC, padding 80 00…), then MACed as in MAC mode (§9.1.10).
  case full
}
