#!/usr/bin/python3
"""Reads a tag the way nfc-pcsc does, through pyscard: an independent PC/SC client.

Usage: pcsc-check.py READER_SUBSTRING
Prints the UID (FF CA 00 00 00) and page 4..7 (FF B0 00 04 10) as hex; exits 1 on failure.
"""
import sys
import time

from smartcard.System import readers
from smartcard.Exceptions import NoCardException, CardConnectionException


def main():
    want = sys.argv[1] if len(sys.argv) > 1 else "Virtual PCD"
    deadline = time.time() + 10
    while True:
        matches = [r for r in readers() if want in str(r)]
        if not matches:
            print("no reader matching %r" % want, file=sys.stderr)
            return 1
        connection = matches[0].createConnection()
        try:
            connection.connect()
            break
        except (NoCardException, CardConnectionException):
            if time.time() > deadline:
                print("no card in %s" % matches[0], file=sys.stderr)
                return 1
            time.sleep(0.2)
    uid, sw1, sw2 = connection.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00])
    if (sw1, sw2) != (0x90, 0x00):
        print("GET DATA failed: %02x%02x" % (sw1, sw2), file=sys.stderr)
        return 1
    data, sw1, sw2 = connection.transmit([0xFF, 0xB0, 0x00, 0x04, 0x10])
    if (sw1, sw2) != (0x90, 0x00):
        print("READ BINARY failed: %02x%02x" % (sw1, sw2), file=sys.stderr)
        return 1
    print("atr " + bytes(connection.getATR()).hex())
    print("uid " + bytes(uid).hex())
    print("page4 " + bytes(data).hex())
    return 0


if __name__ == "__main__":
    sys.exit(main())
