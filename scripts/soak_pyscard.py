"""The soak's independent reader (docs/reliability.md): a done Type 2 tag's saved image shown again
by `nfctag emulate`, read through pcscd by pyscard (Debian's python3-pyscard, for /usr/bin/python3)
with PC/SC Part 3's READ BINARY (FF B0 00 PAGE 10: four pages; PC/SC Part 3 §3.2.2.1.8), its TLVs
and NDEF records parsed here, not by nfctag.

As a program (`/usr/bin/python3 soak_pyscard.py READER`): waits up to 10 s for a card on READER,
prints the NDEF message of its NDEF TLV in hex (an empty line when there is none) and exits 0; 1
with a line on stderr when the card cannot be read. As a module: `records` (NDEF, NFC Forum NDEF
1.0 §3.2) and `tlv_message` (Type 2 Tag 1.0 §2.3), Python 3 standard library only."""
import sys, time


def tlv_message(data, complete=True):
    """The NDEF TLV's value in a Type 2 data area (from page 4): bytes, None when there is none
    (Type 2 Tag 1.0 §2.3.4), or, when `complete` is false, Ellipsis when `data` ends before it."""
    more = None if complete else Ellipsis
    i = 0
    while i < len(data):
        t = data[i]
        if t == 0x00:  # NULL TLV
            i += 1
            continue
        if t == 0xFE:  # Terminator TLV
            return None
        if i + 1 >= len(data):
            return more
        length, i = data[i + 1], i + 2
        if length == 0xFF:
            if i + 1 >= len(data):
                return more
            length, i = (data[i] << 8) | data[i + 1], i + 2
        if t == 0x03:
            return data[i:i + length] if i + length <= len(data) else more
        i += length
    return more


def records(message):
    """(TNF, type, payload) of each record of an NDEF message; raises ValueError on a short one."""
    out, i = [], 0
    while i < len(message):
        header = message[i]
        sr, il, tnf = header & 0x10, header & 0x08, header & 0x07
        if i + 2 > len(message):
            raise ValueError("short record header")
        type_len, i = message[i + 1], i + 2
        if sr:
            payload_len, i = message[i], i + 1
        else:
            payload_len, i = int.from_bytes(message[i:i + 4], "big"), i + 4
        id_len = 0
        if il:
            id_len, i = message[i], i + 1
        type_, i = message[i:i + type_len], i + type_len + id_len
        payload, i = message[i:i + payload_len], i + payload_len
        if i > len(message):
            raise ValueError("record longer than the message")
        out.append((tnf, type_, payload))
        if header & 0x40:  # ME
            break
    return out


def read_ndef(reader_name, wait=10.0):
    from smartcard.System import readers
    from smartcard.Exceptions import NoCardException, CardConnectionException
    reader = next((r for r in readers() if str(r) == reader_name), None)
    if reader is None:
        raise RuntimeError("no reader %s" % reader_name)
    end = time.monotonic() + wait
    while True:
        try:
            conn = reader.createConnection()
            conn.connect()
            break
        except (NoCardException, CardConnectionException):
            if time.monotonic() > end:
                raise RuntimeError("no card on %s within %.0f s" % (reader_name, wait))
            time.sleep(0.2)
    data, page = b"", 4
    try:
        while page < 256:
            answer, sw1, sw2 = conn.transmit([0xFF, 0xB0, 0x00, page, 0x10])
            if (sw1, sw2) != (0x90, 0x00):
                break  # past the end of the tag's memory
            data += bytes(answer)
            page += 4
            message = tlv_message(data, complete=False)
            if message is not Ellipsis:
                return message or b""
        return tlv_message(data) or b""
    finally:
        conn.disconnect()


if __name__ == "__main__":
    try:
        print(read_ndef(sys.argv[1]).hex())
    except Exception as e:  # noqa: BLE001: one line, whatever pyscard raised
        sys.exit("soak_pyscard: %s" % e)
