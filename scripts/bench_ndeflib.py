"""ndeflib side of `make bench`: generate the corpus, or decode hex lines to JSON lines."""
import json
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
    else:
        decode()
