"""The soak's jobs beyond `--url`/`--text`/`--sdm-url` and the invariants of what they leave on the
tags (scripts/soak.py, docs/reliability.md): a `--message` job locked for good (`--lock --yes`), a
`--protect` job (a password per UID from a secret file), a `--mirror uid+counter` job and a MIFARE
DESFire EV3 job with keys diversified from a master key file. Every check reads a copy of a tag's
saved image with nfctag (`sim:KIND:COPY`), never the runs' output. Python 3 standard library only;
the AN10922 key diversification the checks need is OpenSSL's CMAC (libcrypto through ctypes), the
password HMAC-SHA256 the standard library's `hmac`."""
import ctypes, ctypes.util, hashlib, hmac, json, os, re, shutil, subprocess

# name, ledger, job, template options, tag kinds in turn, reader face, share of tags (soak.py's STATIONS)
STATIONS = [
    ("e", "pg", "message", ["--message", "@message", "--lock", "--yes"],
     ["ntag213", "ntag215", "ntag216"], "acr1552u", 0.10),
    ("f", "pg", "protect", ["--url", "https://example.com/p/{n:06}", "--protect", "--secret-file", "@secret"],
     ["ntag215", "ntag213", "ntag216"], "acr1552u", 0.10),
    ("g", "pg", "mirror", ["--url", "https://example.com/g/{n:06}?m={mirror}", "--mirror", "uid+counter"],
     ["ntag216", "ntag213", "ntag215"], "acr122u", 0.10),
    ("h", "pg", "desfire", ["--url", "https://example.com/d/{n:06}", "--desfire-master-key-file", "@desfire"],
     ["desfire-ev3-2k", "desfire-ev3-4k", "desfire-ev3-8k"], "utrust3700f", 0.10),
]
MESSAGE = {"records": [{"tnf": "well-known", "type": "U", "uri": "https://example.com/m/{n:05}?u={uid}"},
                       {"tnf": "well-known", "type": "T",
                        "text": {"language": "en", "encoding": "utf-8", "text": "Lot {n}"}}]}


def private_file(path, text):
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(text)
    return path


def setup(soak):
    """The jobs' files in OUT, drawn from the seed: the message template, the password secret and
    the DESFire master key (mode 0600, never on a command line)."""
    soak.job_files = {
        "@message": private_file(os.path.join(soak.out, "message.json"), json.dumps(MESSAGE) + "\n"),
        "@secret": private_file(os.path.join(soak.out, "secret.txt"), "%048x\n" % soak.rng.getrandbits(192)),
        "@desfire": private_file(os.path.join(soak.out, "desfire-master.hex"), "%032x\n" % soak.rng.getrandbits(128)),
    }


def options(soak, template):
    """The station's template options with the jobs' files in place of their @names."""
    return [soak.job_files.get(o, o) for o in template]


def aes_cmac(key, data):
    """AES-CMAC (NIST SP 800-38B) by OpenSSL's EVP_MAC "CMAC": the key diversification oracle."""
    lib = ctypes.CDLL(ctypes.util.find_library("crypto") or "libcrypto.so.3")

    class Param(ctypes.Structure):  # OSSL_PARAM
        _fields_ = [("key", ctypes.c_char_p), ("data_type", ctypes.c_uint), ("data", ctypes.c_void_p),
                    ("data_size", ctypes.c_size_t), ("return_size", ctypes.c_size_t)]
    vp = ctypes.c_void_p
    lib.EVP_MAC_fetch.restype, lib.EVP_MAC_CTX_new.restype, lib.EVP_MAC_CTX_new.argtypes = vp, vp, [vp]
    lib.EVP_MAC_init.argtypes = [vp, ctypes.c_char_p, ctypes.c_size_t, vp]
    lib.EVP_MAC_update.argtypes = [vp, ctypes.c_char_p, ctypes.c_size_t]
    lib.EVP_MAC_final.argtypes = [vp, ctypes.c_char_p, ctypes.POINTER(ctypes.c_size_t), ctypes.c_size_t]
    lib.EVP_MAC_CTX_free.argtypes = lib.EVP_MAC_free.argtypes = [vp]
    cipher = ctypes.create_string_buffer(b"AES-128-CBC")
    params = (Param * 2)(Param(b"cipher", 4, ctypes.cast(cipher, vp), 11, 0), Param(None, 0, None, 0, 0))  # 4: UTF-8 string
    mac = lib.EVP_MAC_fetch(None, b"CMAC", None)
    ctx = lib.EVP_MAC_CTX_new(mac)
    out, n = ctypes.create_string_buffer(16), ctypes.c_size_t(0)
    try:
        if not (lib.EVP_MAC_init(ctx, key, len(key), ctypes.cast(params, vp)) == 1 and lib.EVP_MAC_update(ctx, data, len(data)) == 1
                and lib.EVP_MAC_final(ctx, out, ctypes.byref(n), 16) == 1):
            raise RuntimeError("OpenSSL's CMAC failed")
    finally:
        lib.EVP_MAC_CTX_free(ctx)
        lib.EVP_MAC_free(mac)
    return out.raw[:n.value]


def diversify(master_file, m):
    """NXP AN10922 §2.2 AES-128 diversification: CMAC(master, 01 ‖ M); M of 16 to 31 bytes, so
    CMAC's own padding (80 00…, subkey K2) is AN10922's."""
    return aes_cmac(bytes.fromhex(open(master_file).read().split()[0]), b"\x01" + m).hex()


class Copy:
    """A copy of a tag's image, for commands that would change it (a read changes a 424 DNA's counter)."""
    def __init__(self, soak, tag):
        self.soak, self.tag, self.path = soak, tag, os.path.join(soak.out, "check-" + os.path.basename(tag.image))
        self.files = []

    def __enter__(self):
        shutil.copyfile(self.tag.image, self.path)
        return self

    def key_file(self, name, hex_):
        self.files.append(private_file(os.path.join(self.soak.out, "check-%s.key" % name), hex_ + "\n"))
        return self.files[-1]

    def run(self, *args):
        r = subprocess.run([self.soak.nfctag] + [a.replace("@reader", "sim:%s:%s" % (self.tag.kind, self.path)) for a in args],
                           capture_output=True, text=True, timeout=60)
        self.soak.note_exit("check " + args[0], r.returncode)
        return r

    def __exit__(self, *exc):
        for f in [self.path] + self.files:
            os.path.exists(f) and os.unlink(f)


def ndef_uri(message_hex):
    """The first URI record's URI of an NDEF message (NFC Forum URI RTD 1.0 §3.2.2 prefixes 0-4 only)."""
    from soak_pyscard import records
    for tnf, type_, payload in records(bytes.fromhex(message_hex or "")):
        if tnf == 1 and type_ == b"U" and payload:
            prefix = ["", "http://www.", "https://www.", "http://", "https://"]
            return (prefix[payload[0]] if payload[0] < len(prefix) else "") + payload[1:].decode("utf-8", "replace")
    return None


def versions(output):
    return [int(v, 16) for v in re.findall(r"version ([0-9a-fA-F]{2})", output)]


def check(soak, reports, done_rows):
    """The jobs' own invariants; `done_rows` maps a station name to [(tag, row)] of its done tags.
    Counts what it checked in soak.checked (the summary's `checked` line)."""
    soak.checked = {"protect": 0, "lock": 0, "424": 0, "424-sun": 0, "desfire": 0, "desfire-done": 0}
    for st in soak.stations:
        for tag, row in done_rows.get(st.name, []):
            if st.job == "protect":
                check_protected(soak, tag)
                soak.checked["protect"] += 1
            elif st.job == "message":
                check_locked(soak, tag)
                soak.checked["lock"] += 1
        if st.job == "sdm":
            for tag in soak.tags[st.name]:
                done = any(t is tag for t, _ in done_rows.get(st.name, []))
                check_424(soak, tag, done)
                soak.checked["424"] += 1
                soak.checked["424-sun"] += done
        elif st.job == "desfire":
            for tag in soak.tags[st.name]:
                done = any(t is tag for t, _ in done_rows.get(st.name, []))
                check_desfire(soak, tag, done)
                soak.checked["desfire"] += 1
                soak.checked["desfire-done"] += done


def check_protected(soak, tag):
    """Opens with its derived password (PWD = HMAC-SHA256(secret, UID)[0:4], provisioning-templates.md)
    and no other: a wrong one is refused (77)."""
    secret = open(soak.job_files["@secret"], "rb").read().rstrip(b"\r\n")
    pwd = hmac.new(secret, bytes.fromhex(tag.uid), hashlib.sha256).digest()[:4]
    with Copy(soak, tag) as c:
        right = c.run("read", "--reader", "@reader", "--format", "hex", "--tag-password-file", c.key_file("pwd", pwd.hex()))
        wrong = c.run("read", "--reader", "@reader", "--format", "hex", "--tag-password-file",
                      c.key_file("wrong", bytes(b ^ 0x5A for b in pwd).hex()))
    if right.returncode != 0:
        soak.violation("protected tag %s does not open with its derived password: %d %s" % (tag.uid, right.returncode, right.stderr.strip()))
    if wrong.returncode != 77:
        soak.violation("protected tag %s: a wrong password gave %d, not 77 (refused)" % (tag.uid, wrong.returncode))


def check_locked(soak, tag):
    """A tag done with --lock --yes is read-only: a write is refused (77) and the image unchanged."""
    with Copy(soak, tag) as c:
        r = c.run("write", "text", "soak", "--reader", "@reader")
    if r.returncode != 77:
        soak.violation("locked tag %s took a write (exit %d)" % (tag.uid, r.returncode))


def check_424(soak, tag, done):
    """Every key's version is 00 (factory) or 01 (derived, ntag-424-dna.md); a done tag's SUN verifies
    with the master key (keys 1 and 2), its UID is the tag's, and keys 0, 3, 4 are the derived ones
    (ChangeKey of 3 and 4 to themselves, authenticated with key 0, on a copy)."""
    if not os.path.exists(tag.image):
        return
    uid = bytes.fromhex(tag.uid)
    with Copy(soak, tag) as c:
        v = c.run("keys", "versions", "--reader", "@reader")
        vs = versions(v.stdout)
        if v.returncode != 0 or len(vs) != 5 or any(x not in (0, 1) for x in vs):
            soak.violation("424 DNA %s: key versions %s (exit %d), not 00 or 01" % (tag.uid, vs, v.returncode))
        if not done:
            return
        read = c.run("read", "--reader", "@reader", "--format", "hex")
        url = ndef_uri(re.sub(r"\s", "", read.stdout)) if read.returncode == 0 else None
        r = subprocess.run([soak.nfctag, "sdm", "verify", url or "", "--master-key-file", soak.key_file, "--format", "json"],
                           capture_output=True, text=True)
        soak.note_exit("check sdm verify", r.returncode)
        verdict = json.loads(r.stdout) if r.returncode == 0 and r.stdout.strip() else {}
        if not verdict.get("authentic") or (verdict.get("uid") or "").lower() != tag.uid.lower():
            soak.violation("424 DNA %s: its SUN %s does not verify with the derived keys (%d %s)" % (tag.uid, url, r.returncode, r.stderr.strip()))
        k = {i: c.key_file("k%d" % i, diversify(soak.key_file, uid + ("nfctag/app-key-%d/v1" % i).encode())) for i in (0, 3, 4)}
        for i in (3, 4):
            r = c.run("keys", "change", "--reader", "@reader", "--key", str(i), "--auth-key-file", k[0],
                      "--old-key-file", k[i], "--new-key-file", k[i], "--key-version", "1")
            if r.returncode != 0:
                soak.violation("424 DNA %s: key 0 or %d is not the derived one (%d %s)" % (tag.uid, i, r.returncode, r.stderr.strip()))


def check_desfire(soak, tag, done):
    """The PICC master key and the NDEF application's key 0 are each factory (version 00: DES zeros,
    AES zeros) or derived (01: AN10922 with M = UID ‖ AID ‖ "nfctag", provisioning.md), and each
    authenticates with the key its version names; a done card has both derived."""
    if not os.path.exists(tag.image):
        return
    uid, master = bytes.fromhex(tag.uid), soak.job_files["@desfire"]
    with Copy(soak, tag) as c:
        v = c.run("desfire", "keys", "versions", "--reader", "@reader")
        picc = versions(v.stdout)[:1]
        a = c.run("desfire", "keys", "versions", "--reader", "@reader", "--aid", "000001")
        app = versions(a.stdout)[:1] if a.returncode == 0 else []
        if v.returncode != 0 or picc[0:1] not in ([0], [1]) or app[0:1] not in ([], [0], [1]) or (done and (picc, app) != ([1], [1])):
            soak.violation("DESFire %s (%s): key versions PICC %s application %s" % (tag.uid, "done" if done else "not done", picc, app))
            return
        if picc == [1]:
            r = c.run("desfire", "info", "--reader", "@reader", "--picc-key-type", "aes", "--picc-key-file",
                      c.key_file("picc", diversify(master, uid + bytes.fromhex("000000") + b"nfctag")))
        else:  # the factory PICC master key: DES, zeros (provisioning.md)
            r = c.run("desfire", "info", "--reader", "@reader", "--picc-key-type", "des", "--picc-key-file", c.key_file("picc", "00" * 8))
        if r.returncode != 0 or not re.search(r"card uid:\s+%s\b" % tag.uid.lower(), r.stdout.lower()):
            soak.violation("DESFire %s: its PICC master key (version %s) is not the one it names (%d %s)" % (tag.uid, picc, r.returncode, r.stderr.strip()))
        if app:
            key = diversify(master, uid + bytes.fromhex("010000") + b"nfctag") if app == [1] else "00" * 16
            r = c.run("desfire", "read-file", "--reader", "@reader", "--aid", "000001", "--file", "2", "--key-no", "0",
                      "--key-type", "aes", "--key-file", c.key_file("app", key))
            if r.returncode != 0:
                soak.violation("DESFire %s: its application key 0 (version %s) is not the one it names (%d %s)" % (tag.uid, app, r.returncode, r.stderr.strip()))
