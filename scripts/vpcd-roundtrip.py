#!/usr/bin/python3
"""APDU round trips through pcscd + vpcd: the distribution over N exchanges, through pyscard.

Usage: vpcd-roundtrip.py READER_SUBSTRING [N]
Sends GET DATA (FF CA 00 00 00, the tag's UID) N times (default 1000) to the card in the reader
and prints the round trip in milliseconds: median, p90, p99 and max (one line, then the first 5 for
warm-up). Exits 1 when no card answers 90 00.
"""
import sys
import time

from pcsc_connect import connect



def percentile(sorted_values, p):
    index = min(len(sorted_values) - 1, int(round(p / 100.0 * (len(sorted_values) - 1))))
    return sorted_values[index]


def main():
    want = sys.argv[1] if len(sys.argv) > 1 else "Virtual PCD 00 00"
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    connection = connect(want)
    times = []
    for _ in range(count):
        t0 = time.perf_counter()
        _, sw1, sw2 = connection.transmit([0xFF, 0xCA, 0x00, 0x00, 0x00])
        times.append((time.perf_counter() - t0) * 1000.0)
        if (sw1, sw2) != (0x90, 0x00):
            print("GET DATA failed: %02x%02x" % (sw1, sw2), file=sys.stderr)
            return 1
    ordered = sorted(times)
    print("round trip over %d APDUs (ms): median %.3f  p90 %.3f  p99 %.3f  max %.3f" % (
        count, percentile(ordered, 50), percentile(ordered, 90), percentile(ordered, 99), ordered[-1]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
