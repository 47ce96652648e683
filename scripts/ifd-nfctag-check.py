#!/usr/bin/python3
"""Checks one reader of nfctag's pcsc-lite driver (docs/ifd-handler.md) through pyscard, an
independent PC/SC client: the reader is listed under its exact name, the card's ATR is read, an
APDU round-trips, and SCardControl reaches the reader face.

Usage: ifd-nfctag-check.py READER_NAME CONTROL_HEX EXPECTED [CODE]
(the control command is sent with SCARD_CTL_CODE(CODE), 1 by default: the vendor escape on Linux;
EXPECTED is the answer in hex, or "unsupported" for a face without that escape, which must then
fail with SCARD_E_UNSUPPORTED_FEATURE). Prints what it saw, one fact a line; exits 1 on the first
failure.
"""
import sys
import time

from smartcard.scard import (SCardEstablishContext, SCardListReaders, SCardConnect, SCardControl,
                             SCardTransmit, SCardStatus, SCardDisconnect, SCardReleaseContext,
                             SCARD_SCOPE_USER, SCARD_SHARE_SHARED, SCARD_PROTOCOL_T0,
                             SCARD_PROTOCOL_T1, SCARD_PCI_T1, SCARD_LEAVE_CARD, SCARD_S_SUCCESS,
                             SCARD_CTL_CODE, SCardGetErrorMessage)


def fail(text):
    print(text, file=sys.stderr)
    return 1


def main():
    name, control = sys.argv[1], bytes.fromhex(sys.argv[2])
    unsupported = sys.argv[3] == "unsupported"
    expected = b"" if unsupported else bytes.fromhex(sys.argv[3])
    code = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rc, context = SCardEstablishContext(SCARD_SCOPE_USER)
    if rc != SCARD_S_SUCCESS:
        return fail("no PC/SC context: " + SCardGetErrorMessage(rc))
    rc, names = SCardListReaders(context, [])
    if name not in (names or []):
        return fail("reader %r not listed: %r" % (name, names))
    print("reader " + name)
    deadline = time.time() + 10
    while True:
        rc, card, protocol = SCardConnect(context, name, SCARD_SHARE_SHARED, SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1)
        if rc == SCARD_S_SUCCESS:
            break
        if time.time() > deadline:
            return fail("no card in %s: %s" % (name, SCardGetErrorMessage(rc)))
        time.sleep(0.2)
    rc, _, _, _, atr = SCardStatus(card)
    if rc != SCARD_S_SUCCESS or not atr:
        return fail("no ATR: " + SCardGetErrorMessage(rc))
    print("atr " + bytes(atr).hex())
    rc, answer = SCardTransmit(card, SCARD_PCI_T1, [0xFF, 0xCA, 0x00, 0x00, 0x00])
    if rc != SCARD_S_SUCCESS or bytes(answer[-2:]) != b"\x90\x00":
        return fail("GET DATA failed: %s %s" % (SCardGetErrorMessage(rc), bytes(answer or []).hex()))
    print("uid " + bytes(answer[:-2]).hex())
    rc, answer = SCardControl(card, SCARD_CTL_CODE(code), list(control))
    if unsupported:
        if (rc & 0xFFFFFFFF) != 0x8010001F:
            return fail("SCardControl: %s, answer %s, expected SCARD_E_UNSUPPORTED_FEATURE" % (SCardGetErrorMessage(rc), bytes(answer or []).hex()))
        print("control unsupported")
    elif rc != SCARD_S_SUCCESS or bytes(answer) != expected:
        return fail("SCardControl: %s, answer %s, expected %s" % (SCardGetErrorMessage(rc), bytes(answer or []).hex(), expected.hex()))
    else:
        print("control " + bytes(answer).hex())
    rc, answer = SCardControl(card, SCARD_CTL_CODE(3400), [])
    print("unsupported %08x" % (rc & 0xFFFFFFFF))
    SCardDisconnect(card, SCARD_LEAVE_CARD)
    SCardReleaseContext(context)
    return 0


if __name__ == "__main__":
    sys.exit(main())
