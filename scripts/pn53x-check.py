#!/usr/bin/python3
"""A PN53x-level client: speaks only PN532 frames through the ACR122U's direct transmit.

Usage: pn53x-check.py READER_SUBSTRING
Does what libnfc's acr122_pcsc driver does with a Type 2 tag, through pyscard and pcscd:
GetFirmwareVersion, InListPassiveTarget (106 kbps type A), CRC handled by the host (CIU_TxMode
and CIU_RxMode bit 7 cleared), GET_VERSION with its CRC_A through InCommunicateThru, READ of
pages 0-15 (4 x 4 pages, each with CRC_A checked), then InAutoPoll. Prints one "key value" line
per finding; exits 1 on the first answer that is not what a PN532 sends.
PN532 User Manual (UM0701-02) sections: 7.2.2, 7.3.5, 7.2.5, 7.3.9, 7.3.13; docs/pn532.md.
"""
import sys

import pcsc_connect


PRODUCTS = {
    bytes.fromhex("0004040201000f03"): "NTAG213",
    bytes.fromhex("0004040201001103"): "NTAG215",
    bytes.fromhex("0004040201001303"): "NTAG216",
}


def crc_a(data):
    """ISO/IEC 14443-3 Annex B CRC_A: preset 6363h, reflected polynomial 8408h, LSB first."""
    crc = 0x6363
    for byte in data:
        byte ^= crc & 0xFF
        byte = (byte ^ (byte << 4)) & 0xFF
        crc = (crc >> 8) ^ (byte << 8) ^ (byte << 3) ^ (byte >> 4)
    return bytes([crc & 0xFF, crc >> 8])


class Failure(Exception):
    pass


def connect(want):
    return pcsc_connect.connect(want, failure=Failure)


def pn532(connection, frame):
    """Sends D4 + frame by direct transmit; returns the data after D5 cmd+1."""
    payload = [0xD4] + list(frame)
    data, sw1, sw2 = connection.transmit([0xFF, 0x00, 0x00, 0x00, len(payload)] + payload)
    if (sw1, sw2) != (0x90, 0x00):
        raise Failure("command %02x: status %02x%02x" % (frame[0], sw1, sw2))
    if len(data) < 2 or data[0] != 0xD5 or data[1] != frame[0] + 1:
        raise Failure("command %02x: answer %s" % (frame[0], bytes(data).hex()))
    return bytes(data[2:])


def thru(connection, command):
    """InCommunicateThru with the host's CRC_A; checks and strips the tag's CRC_A."""
    answer = pn532(connection, [0x42] + list(command) + list(crc_a(command)))
    if not answer or answer[0] != 0x00:
        raise Failure("InCommunicateThru %s: status %s" % (bytes(command).hex(), answer[:1].hex()))
    data = answer[1:]
    if len(data) < 3 or crc_a(data[:-2]) != data[-2:]:
        raise Failure("InCommunicateThru %s: answer without a good CRC_A: %s" % (bytes(command).hex(), data.hex()))
    return data[:-2]


def main():
    connection = connect(sys.argv[1] if len(sys.argv) > 1 else "Virtual PCD")
    firmware = pn532(connection, [0x02])                       # GetFirmwareVersion (7.2.2)
    if len(firmware) != 4 or firmware[0] != 0x32:
        raise Failure("not a PN532: %s" % firmware.hex())
    print("firmware PN532 v%d.%d" % (firmware[1], firmware[2]))
    target = pn532(connection, [0x4A, 0x01, 0x00])             # InListPassiveTarget 106A (7.3.5)
    if len(target) < 7 or target[0] != 1:
        raise Failure("no type A target: %s" % target.hex())
    uid = target[6:6 + target[5]]
    print("uid " + uid.hex())
    print("sak %02x" % target[4])
    pn532(connection, [0x08, 0x63, 0x02, 0x00, 0x63, 0x03, 0x00])  # WriteRegister (7.2.5): CRC off
    version = thru(connection, [0x60])                         # GET_VERSION (7.3.9)
    print("version " + version.hex())
    print("product " + PRODUCTS.get(version, "unknown"))
    pages = b"".join(thru(connection, [0x30, page]) for page in (0, 4, 8, 12))
    if len(pages) != 64:
        raise Failure("READ answered %d bytes for 16 pages" % len(pages))
    print("pages " + pages.hex())
    pn532(connection, [0x08, 0x63, 0x02, 0x80, 0x63, 0x03, 0x80])  # CRC on again
    poll = pn532(connection, [0x60, 0x01, 0x01, 0x10])        # InAutoPoll, MIFARE type (7.3.13)
    if len(poll) < 3 or poll[0] != 1 or poll[2] != len(poll) - 3:
        raise Failure("InAutoPoll: %s" % poll.hex())
    print("autopoll type %02x uid %s" % (poll[1], poll[8:8 + poll[7]].hex()))  # NbTg Type NbData Tg SENS_RES(2) SEL_RES len UID
    unknown, sw1, sw2 = connection.transmit([0xFF, 0x00, 0x00, 0x00, 0x02, 0xD4, 0xFE])
    print("unknown-command %02x%02x" % (sw1, sw2))             # syntax error frame (6.2.1.5)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except Failure as failure:
        print(str(failure), file=sys.stderr)
        sys.exit(1)
