"""ndeflib side of `make bench`: generate a corpus, or decode hex lines to JSON lines.

Corpora (hex, one message per line):
  generate N        N small messages in turn: text, URI, smart poster, MIME + AAR.
  generate-mixed N  N messages of mixed real-world sizes, 20 bytes to 70 KB, seeded: mostly URIs,
                    texts, smart posters, Wi-Fi credentials and contact cards (vCard), and one in
                    250 a large MIME payload (an image, a file) of 2 KB to 70 KB.
"""
import json
import random
import struct
import sys

import ndef


def generate(n):
    kinds = [
        lambda i: [ndef.TextRecord("Hello number %d" % i, "en")],
        lambda i: [ndef.UriRecord("https://www.example.com/item/%d" % i)],
        lambda i: [ndef.SmartposterRecord("https://nfc.example/%d" % i, title="Poster %d" % i)],
        lambda i: [ndef.Record("text/plain", "", b"payload %d" % i),
                   ndef.Record("urn:nfc:ext:android.com:pkg", "", b"com.example.app")],
    ]
    out = sys.stdout
    for i in range(n):
        out.write(b"".join(ndef.message_encoder(kinds[i % 4](i))).hex() + "\n")


def wifi_payload(rng):
    """A Wi-Fi Simple Configuration credential (WSC TLVs), as phones write them."""
    def tlv(kind, value):
        return struct.pack(">HH", kind, len(value)) + value
    ssid = ("net-%05d" % rng.randrange(100000)).encode()
    key = bytes(rng.choice(b"abcdefghijkmnpqrstuvwxyz23456789") for _ in range(rng.randint(8, 32)))
    credential = (tlv(0x1026, b"\x01") + tlv(0x1045, ssid) + tlv(0x1003, b"\x00\x20")
                  + tlv(0x100F, b"\x00\x08") + tlv(0x1027, key) + tlv(0x1020, b"\xff" * 6))
    return tlv(0x104A, b"\x10") + tlv(0x100E, credential)


def vcard(rng, i):
    lines = ["BEGIN:VCARD", "VERSION:3.0", "N:Person%d;Given;;;" % i, "FN:Given Person%d" % i,
             "TEL;TYPE=CELL:+1555%07d" % rng.randrange(10 ** 7), "EMAIL:person%d@example.com" % i]
    lines += ["NOTE:" + "n" * rng.randint(10, 120) for _ in range(rng.randint(0, 8))]
    lines.append("END:VCARD")
    return "\r\n".join(lines).encode()


def generate_mixed(n):
    rng = random.Random(13)
    out = sys.stdout
    for i in range(n):
        roll = rng.random()
        if i == 0:  # the smallest: a 20-byte message
            records = [ndef.UriRecord("https://a.b/%011d" % i)]
        elif i == 1 or roll < 0.004:  # large MIME payloads, log-uniform 2 KB..70 KB (one of exactly 70 KB)
            size = 70000 - 15 if i == 1 else int(2000 * (35 ** rng.random()))
            kind = "image/png" if i == 1 else rng.choice(["image/png", "image/jpeg", "application/octet-stream"])
            records = [ndef.Record(kind, "", rng.randbytes(size))]
        elif roll < 0.40:
            records = [ndef.UriRecord("https://www.example.com/" + "p/" * rng.randint(0, 20) + "item-%d" % i)]
        elif roll < 0.65:
            records = [ndef.TextRecord("Note %06d: " % i + "lorem ipsum " * rng.randint(0, 20), "en")]
        elif roll < 0.75:
            records = [ndef.SmartposterRecord("https://nfc.example/%d" % i, title="Poster %d" % i)]
        elif roll < 0.85:
            records = [ndef.Record("application/vnd.wfa.wsc", "", wifi_payload(rng))]
        elif roll < 0.95:
            records = [ndef.Record("text/vcard", "", vcard(rng, i))]
        else:
            records = [ndef.Record("text/plain", "", b"payload %d" % i),
                       ndef.Record("urn:nfc:ext:android.com:pkg", "", b"com.example.app")]
        out.write(b"".join(ndef.message_encoder(records)).hex() + "\n")


def decode():
    out = sys.stdout
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            records = []
            for r in ndef.message_decoder(bytes.fromhex(line)):
                item = {"type": r.type, "id": r.name, "payload": bytes(r.data).hex()}
                if isinstance(r, ndef.TextRecord):
                    item["text"] = {"language": r.language, "encoding": r.encoding, "text": r.text}
                elif isinstance(r, ndef.UriRecord):
                    item["uri"] = r.iri
                records.append(item)
            out.write(json.dumps({"records": records}) + "\n")
        except Exception as error:  # noqa: BLE001 - report and go on, like --lines
            out.write(json.dumps({"error": str(error)}) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "generate":
        generate(int(sys.argv[2]))
    elif sys.argv[1] == "generate-mixed":
        generate_mixed(int(sys.argv[2]))
    else:
        decode()
