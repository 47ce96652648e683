"""ndeflib side of `make bench`: generate a corpus, or decode hex lines to JSON lines.

Corpora (hex, one message per line):
  generate N        N small messages in turn: text, URI, smart poster, MIME + AAR.
  generate-kinds N  N small messages (about 150 bytes on average) of every record kind, seeded:
                    UTF-8 and UTF-16 texts, URIs with every prefix code, MIME, external, AAR,
                    absolute-URI, unknown and empty records, IDs, smart posters, several records
                    in one message, chunked records, and non-canonical headers (the long form for
                    a short payload, IL set with an empty ID).
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


URI_PREFIXES = [
    "", "http://www.", "https://www.", "http://", "https://", "tel:", "mailto:",
    "ftp://anonymous:anonymous@", "ftp://ftp.", "ftps://", "sftp://", "smb://", "nfs://", "ftp://",
    "dav://", "news:", "telnet://", "imap:", "rtsp://", "urn:", "pop:", "sip:", "sips:", "tftp:",
    "btspp://", "btl2cap://", "btgoep://", "tcpobex://", "irdaobex://", "file://", "urn:epc:id:",
    "urn:epc:tag:", "urn:epc:pat:", "urn:epc:raw:", "urn:epc:", "urn:nfc:",
]
WORDS = ["alpha", "Bahnhof", "caf\u00e9", "\u65e5\u672c\u8a9e", "na\u00efve", "\u00fcber", "quote\"d", "back\\slash",
         "tab\there", "line\nfeed", "\u041f\u0440\u0438\u0432\u0435\u0442", "emoji \U0001F600", "r\u00e9sum\u00e9",
         "price: 12,50 \u20ac", "<tag>", "x&y", "plain", "words", "of", "text"]


def words(rng, low, high):
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def ident(rng, i):
    """A record ID a fifth of the time: short names, URIs, numbers."""
    if rng.random() >= 0.2:
        return ""
    return rng.choice(["#%d" % i, "r%d" % (i % 97), "urn:id:%d" % i, "cid:part%d@example" % (i % 13)])


def small_record(rng, i, kind):
    """One record of `kind`, with ndeflib's record classes."""
    name = ident(rng, i)
    if kind == "text8":
        lang = rng.choice(["en", "de", "fr-CA", "ja", "pt-BR", "zh-Hant-TW"])
        return ndef.TextRecord("%d: " % i + words(rng, 4, 34), lang, "UTF-8"), name
    if kind == "text16":  # Python's UTF-16: a byte-order mark, then little-endian
        return ndef.TextRecord(words(rng, 2, 18), rng.choice(["en", "de", "ja"]), "UTF-16"), name
    if kind == "text16be":  # as nfctag writes it: big-endian behind FE FF
        body = ("%d " % i + words(rng, 2, 16)).encode("utf-16-be")
        return ndef.Record("urn:nfc:wkt:T", name, b"\x82en\xfe\xff" + body), name
    if kind == "uri":
        code = i % len(URI_PREFIXES)
        rest = rng.choice(["example.com/", "nfc.example/p?", "host-%d.example.org/a/b/" % (i % 50),
                           "+1555%07d" % (i % 10 ** 7), "user%d@example.com" % i, "b\u00fccher.example/\u00e4"])
        rest += "%d" % i + "/item" * rng.randint(0, 24)
        return ndef.Record("urn:nfc:wkt:U", name, bytes([code]) + rest.encode()), name
    if kind == "mime":
        mtype, data = rng.choice([
            ("text/plain", lambda: words(rng, 4, 40).encode()),
            ("Text/Plain", lambda: words(rng, 2, 12).encode()),
            ("application/json", lambda: ('{"id":%d,"name":"%s"}' % (i, words(rng, 1, 3).replace('"', "'").replace("\\", "/"))).encode()),
            ("text/vcard", lambda: ("BEGIN:VCARD\r\nVERSION:3.0\r\nFN:Person %d\r\nEND:VCARD" % i).encode()),
            ("image/png", lambda: rng.randbytes(rng.randint(16, 320))),
            ("application/octet-stream", lambda: rng.randbytes(rng.randint(1, 240))),
        ])
        return ndef.Record(mtype, name, data()), name
    if kind == "external":
        return ndef.Record("urn:nfc:ext:" + rng.choice(["example.com:thing", "nfc.example:cfg", "acme.org:T1"]),
                           name, rng.randbytes(rng.randint(0, 200))), name
    if kind == "aar":
        return ndef.Record("urn:nfc:ext:android.com:pkg", name, ("com.example.app%d" % (i % 100)).encode()), name
    if kind == "absolute":
        return ndef.Record(rng.choice(["https://example.org/schema/v1", "http://schema.example/kind", "http://a.b/c#d"]),
                           name, words(rng, 0, 24).encode()), name
    if kind == "unknown":
        return ndef.Record("unknown", name, rng.randbytes(rng.randint(0, 240))), name
    if kind == "empty":
        return ndef.Record(), ""
    if kind == "poster":
        titles = {"en": "Poster %d " % i + words(rng, 1, 10)}
        if rng.random() < 0.3:
            titles["de"] = words(rng, 1, 4)
        sp = ndef.SmartposterRecord("https://nfc.example/%d" % i + "/page" * rng.randint(0, 12))
        sp.set_title(titles["en"], "en")
        if "de" in titles:
            sp.set_title(titles["de"], "de")
        if rng.random() < 0.5:
            sp.action = rng.choice(["exec", "save", "edit"])
        if rng.random() < 0.3:
            sp.resource_size = rng.randrange(1 << 20)
        if rng.random() < 0.3:
            sp.resource_type = "text/html"
        sp.name = name
        return sp, name
    raise ValueError(kind)


def encode_record(record, mb, me, cf=False, long_form=False, empty_il=False):
    """One record through ndeflib's encoder; long_form and empty_il rewrite its header to the
    non-canonical forms that tags written by other tools carry (both decode to the same record)."""
    octets = record._encode(mb=mb, me=me, cf=cf)
    header, type_length = octets[0], octets[1]
    if long_form and header & 0x10:
        il = header & 0x08
        rest = octets[3 + (1 if il else 0):]
        octets = bytes([header & ~0x10, type_length]) + struct.pack(">L", octets[2]) + octets[3:3 + (1 if il else 0)] + rest
        header = octets[0]
    if empty_il and not header & 0x08:
        length_bytes = 1 if header & 0x10 else 4
        octets = bytes([header | 0x08]) + octets[1:2 + length_bytes] + b"\x00" + octets[2 + length_bytes:]
    return octets


def chunked(rng, i, mb, me):
    """A record cut into 2 to 4 chunks: the first carries the type, the rest are unchanged (TNF 6)."""
    mtype = rng.choice(["text/plain", "application/octet-stream"])
    data = words(rng, 6, 36).encode() if mtype == "text/plain" else rng.randbytes(rng.randint(8, 240))
    parts = rng.randint(2, 4)
    cuts = sorted(rng.sample(range(1, len(data)), parts - 1)) if len(data) > parts else [len(data)] * (parts - 1)
    pieces = [data[a:b] for a, b in zip([0] + cuts, cuts + [len(data)])]
    out = [ndef.Record(mtype, "", pieces[0])._encode(mb=mb, me=False, cf=True)]
    for k, piece in enumerate(pieces[1:], 1):
        last = k == len(pieces) - 1
        out.append(ndef.Record("unchanged", "", piece)._encode(mb=False, me=me and last, cf=not last))
    return b"".join(out)


SMALL_KINDS = [("text8", 14), ("text16", 5), ("text16be", 3), ("uri", 20), ("mime", 9), ("external", 5),
               ("aar", 3), ("absolute", 4), ("unknown", 4), ("empty", 2), ("poster", 9), ("multi", 12),
               ("chunked", 5), ("longform", 3), ("emptyid", 2)]
SINGLE_KINDS = ["text8", "text16", "text16be", "uri", "mime", "external", "aar", "absolute", "unknown", "poster"]


def generate_kinds(n):
    rng = random.Random(29)
    names = [k for k, _ in SMALL_KINDS]
    weights = [w for _, w in SMALL_KINDS]
    out = sys.stdout
    for i in range(n):
        kind = names[i] if i < len(names) else rng.choices(names, weights)[0]  # every kind at least once
        if kind == "chunked":
            message = chunked(rng, i, True, True)
        elif kind == "multi":  # 2 to 4 records, a chunked one among them now and then
            count = rng.randint(2, 4)
            parts = []
            for k in range(count):
                mb, me = k == 0, k == count - 1
                if rng.random() < 0.1:
                    parts.append(chunked(rng, i, mb, me))
                else:
                    record, _ = small_record(rng, i, rng.choice(SINGLE_KINDS))
                    parts.append(encode_record(record, mb, me))
            message = b"".join(parts)
        elif kind in ("longform", "emptyid"):
            record, _ = small_record(rng, i, rng.choice(SINGLE_KINDS))
            message = encode_record(record, True, True, long_form=kind == "longform", empty_il=kind == "emptyid")
        else:
            record, _ = small_record(rng, i, kind)
            message = encode_record(record, True, True)
        out.write(message.hex() + "\n")


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
    elif sys.argv[1] == "generate-kinds":
        generate_kinds(int(sys.argv[2]))
    elif sys.argv[1] == "generate-mixed":
        generate_mixed(int(sys.argv[2]))
    else:
        decode()
