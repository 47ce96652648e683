import Testing
@testable import NFCTagEmulate

/// The reader `emulate`'s start line names: vpcd's own readers by their names ("Virtual PCD 00
/// 00" on 35963, "… 00 01" on 35964), nfctag's pcsc-lite driver's by the name pcscd gives the
/// entry of /etc/reader.conf.d/nfctag whose DEVICENAME ends in the port (docs/ifd-handler.md), and
/// any other endpoint only by its host and port, never as a vpcd reader it is not.
@Suite struct EmulateStartLineTests {
  static let conf = """
    # nfctag's virtual readers (Drivers/ifd-nfctag; docs/ifd-handler.md), installed by `make pcscd`.
    # face acr122u: ACS ACR122U PICC Interface 00 00
    FRIENDLYNAME "ACS ACR122U PICC Interface"
    DEVICENAME   /dev/null:36100
    LIBPATH      /usr/lib/pcsc/drivers/serial/libifdnfctag.so
    CHANNELID    36100

    FRIENDLYNAME "ACS ACR122U PICC Interface"
    DEVICENAME   /dev/null:36101
    LIBPATH      /usr/lib/pcsc/drivers/serial/libifdnfctag.so

    FRIENDLYNAME "ACS ACR1552 1S CL Reader PICC"
    DEVICENAME   /dev/null:36102
    LIBPATH      /usr/lib/pcsc/drivers/serial/libifdnfctag.so
    """

  @Test func vpcdsPortsNameItsReaders() {
    #expect(readerName(host: "127.0.0.1", port: 35963, readerConf: Self.conf) == "Virtual PCD 00 00")
    #expect(readerName(host: "127.0.0.1", port: 35964, readerConf: nil) == "Virtual PCD 00 01")
    #expect(readerPhrase(preposition: "in", host: "127.0.0.1", port: 35963) == "in Virtual PCD 00 00 via 127.0.0.1:35963")
  }

  @Test func theDriversPortsNameTheirReaderConfEntry() {
    #expect(readerName(host: "127.0.0.1", port: 36100, readerConf: Self.conf) == "ACS ACR122U PICC Interface 00 00")
    #expect(readerName(host: "localhost", port: 36101, readerConf: Self.conf) == "ACS ACR122U PICC Interface 01 00")
    #expect(readerName(host: "127.0.0.1", port: 36102, readerConf: Self.conf) == "ACS ACR1552 1S CL Reader PICC 02 00")
  }

  @Test func anyOtherEndpointIsOnlyItsHostAndPort() {
    #expect(readerName(host: "127.0.0.1", port: 36100, readerConf: nil) == nil)
    #expect(readerName(host: "127.0.0.1", port: 36109, readerConf: Self.conf) == nil)
    // The conf names this machine's readers: another host's port is not one of them.
    #expect(readerName(host: "192.0.2.7", port: 36100, readerConf: Self.conf) == nil)
    #expect(readerName(host: "127.0.0.1", port: 35965, readerConf: Self.conf) == nil)
    #expect(readerName(host: "127.0.0.1", port: 80, readerConf: "FRIENDLYNAME \"x\"\nDEVICENAME /dev/null:\n") == nil)
  }
}
