"""The soak's end: the ledgers' reports and the tags' images, and the invariants between them
(scripts/soak.py runs it; docs/reliability.md lists what is checked). Python 3 standard library only."""
import json, os, re, shutil, signal, subprocess, time

import soak_jobs


def export(soak, st):
    """The job's audit report (`nfctag ledger export --format jsonl`) split in two: the rows (the first
    line of each row id: rows come first, by sequence) and the tag failures after them (each naming
    the row that was tried, which the tag may no longer hold: LedgerReport.swift)."""
    r = subprocess.run([soak.nfctag, "ledger", "export", st.ledger, "--job", st.job, "--format", "jsonl"],
                       capture_output=True, text=True)
    soak.note_exit("ledger export", r.returncode)
    if r.returncode != 0:
        soak.violation("ledger export of %s/%s: %d %s" % (st.backend, st.job, r.returncode, r.stderr.strip()))
        return [], []
    rows, failures, seen = [], [], set()
    for line in r.stdout.splitlines():
        if line.strip():
            entry = json.loads(line)
            (failures if entry["row"] in seen or len(rows) >= soak.rows[(st.backend, st.job)] else rows).append(entry)
            seen.add(entry["row"])
    return rows, failures


def read_image(soak, tag):
    """The NDEF message (hex) the saved image holds, read by nfctag from a copy (a read changes a 424 DNA)."""
    if not os.path.exists(tag.image):
        return None
    copy = os.path.join(soak.out, "read-" + os.path.basename(tag.image))
    shutil.copyfile(tag.image, copy)
    try:
        r = subprocess.run([soak.nfctag, "read", "--reader", "sim:%s:%s" % (tag.kind, copy), "--format", "hex"],
                           capture_output=True, text=True, timeout=60)
    finally:
        os.unlink(copy)
    return re.sub(r"\s", "", r.stdout).lower() if r.returncode == 0 else None


def same_message(read, recorded, job, uid=""):
    """The image's message is the row's; a SUN URL's {picc} and {cmac}, recorded as ASCII zeros
    after their '=', change at every read; a mirror's room (21 zeros for uid+counter) shows the
    tag's UID in uppercase hex, 'x' and the counter's 6 hex digits (NTAG213/215/216 §8.7)."""
    if job == "mirror":
        room = "".join("%02x" % ord(c) for c in uid.upper()) + "78" + "(?:3[0-9]|4[1-6]){6}"
        return re.fullmatch(recorded.lower().replace("3d" + "30" * 21, "3d" + room), read) is not None
    if job != "sdm":
        return read == recorded.lower()
    pattern = re.sub(r"3d((?:30){16,})", lambda m: "3d(?:3[0-9]|4[1-6]){%d}" % (len(m.group(1)) // 2), recorded.lower())
    return re.fullmatch(pattern, read) is not None


def reversed_hex(h):
    return "".join(reversed([h[i:i + 2] for i in range(0, len(h), 2)]))


def check(soak, root):
    """Checks every invariant, recording each violation with soak.violation; returns the done rows found."""
    documented = set()
    for line in open(os.path.join(root, "docs", "exit-codes.md"), encoding="utf-8"):
        m = re.match(r"\| (\d+) \|", line)
        if m:
            documented.add(int(m.group(1)))
    for who, code in sorted(soak.exits):
        if code not in documented:
            soak.violation("%s exited %d, which docs/exit-codes.md does not list" % (who, code))
    reports = {}  # (ledger, job) -> (rows, failures)
    for st in soak.stations:
        if (st.ledger, st.job) not in reports:
            reports[(st.ledger, st.job)] = export(soak, st)
    holders = {r["message_hex"]: r["uid"] for rows, _ in reports.values() for r in rows if r.get("message_hex")}
    done, done_rows = 0, {}
    for st in soak.stations:
        rows_, tags = reports[(st.ledger, st.job)][0], soak.tags[st.name]
        by_uid = {}
        for row in rows_:
            if row.get("uid"):
                if row["uid"].lower() in by_uid and by_uid[row["uid"].lower()]["row"] != row["row"]:
                    soak.violation("tag %s holds rows %s and %s" % (row["uid"], by_uid[row["uid"].lower()]["row"], row["row"]))
                by_uid[row["uid"].lower()] = row
        for tag in tags:
            message = read_image(soak, tag)
            row = next((by_uid[i] for i in tag.ids if i in by_uid), None)
            if row and row["status"] == "done":
                done += 1
                done_rows.setdefault(st.name, []).append((tag, row))
                if not message or not same_message(message, row["message_hex"] or "", st.job, tag.uid):
                    soak.violation("row %s is done on %s, whose image holds %s, not %s" % (row["row"], tag.uid, message, row["message_hex"]))
            elif message and message not in ("", "d00000", "0000"):
                if not row:
                    soak.violation("tag %s holds %s, and the ledger shows no row on it" % (tag.uid, message))
            owner = holders.get(message) if message else None
            if owner and owner != tag.uid.lower() and owner != reversed_hex(tag.uid).lower():
                soak.violation("tag %s holds the message of row on tag %s" % (tag.uid, owner))
        for row in rows_:  # a done row names its tag, and a row bound to a tag is a tag of the soak
            if row["status"] == "done" and not row.get("uid"):
                soak.violation("row %s of %s is done with no UID" % (row["row"], st.job))
            if row.get("uid") and not any(row["uid"].lower() in t.ids for ts in soak.tags.values() for t in ts):
                soak.violation("row %s of %s is on %s, which is no tag of the soak" % (row["row"], st.job, row["uid"]))
        status = subprocess.run([soak.nfctag, "ledger", "status", st.ledger, "--job", st.job, "--json"], capture_output=True, text=True)
        soak.note_exit("ledger status", status.returncode)
        if status.returncode == 0:
            counts = json.loads(status.stdout)
            if counts["done"] != sum(1 for r in rows_ if r["status"] == "done"):
                soak.violation("ledger status and export of %s disagree on done rows" % st.job)
    messages = {}
    for rows, _ in reports.values():
        for row in rows:
            if row["status"] == "done":
                if row["message_hex"] in messages:
                    soak.violation("one message on rows %s and %s" % (messages[row["message_hex"]], row["row"]))
                messages[row["message_hex"]] = row["row"]
    soak_jobs.check(soak, reports, done_rows)
    check_pyscard(soak, done_rows)
    c = soak.checked
    print("soak seed %d checked: protect %d (password), lock %d, 424 DNA %d (keys; %d SUN and derived keys), DESFire %d (keys; %d done, derived),"
          " pyscard %d (every done Type 2 tag)" % (soak.seed, c["protect"], c["lock"], c["424"], c["424-sun"], c["desfire"],
                                                   c["desfire-done"], getattr(soak, "pyscard_read", 0)))
    return done


TYPE2 = ("ntag213", "ntag215", "ntag216", "ultralight-ev1")


def check_pyscard(soak, done_rows):
    """Every done Type 2 tag read by an independent reader: a copy of its image shown on its
    station's reader (the stations are stopped), read through pcscd by pyscard in /usr/bin/python3
    (scripts/soak_pyscard.py), its message the row's."""
    python = "/usr/bin/python3"
    if subprocess.run([python, "-c", "import smartcard"], capture_output=True).returncode != 0:
        soak.violation("pyscard is missing (apt-get install python3-pyscard): the independent reader did not run")
        return
    soak.pyscard_read = 0
    for st in soak.stations:
        for tag, row in done_rows.get(st.name, []):
            if tag.kind not in TYPE2:
                continue
            copy = os.path.join(soak.out, "pyscard-" + os.path.basename(tag.image))
            shutil.copyfile(tag.image, copy)
            emu = subprocess.Popen([soak.nfctag, "emulate", "--tag", tag.kind, "--image", copy, "--uid", tag.uid,
                                    "--vpcd", "127.0.0.1:%d" % st.port, "--reader", st.face],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
            soak.pids.append(emu)
            try:
                r = subprocess.run([python, os.path.join(os.path.dirname(os.path.abspath(__file__)), "soak_pyscard.py"), st.reader],
                                   capture_output=True, text=True, timeout=60)
            finally:
                emu.send_signal(signal.SIGINT)
                try:
                    emu.wait(15)
                except subprocess.TimeoutExpired:
                    emu.kill()
                    emu.wait()
                os.unlink(copy)
                time.sleep(0.5)  # pcscd looks for cards every 0.4 s: let it see the tag leave
            read = r.stdout.strip().lower()
            if r.returncode != 0 or not same_message(read, row["message_hex"] or "", st.job, tag.uid):
                soak.violation("pyscard read %s on tag %s (row %s): %s, not %s" % (
                    st.reader, tag.uid, row["row"], read or r.stderr.strip(), row["message_hex"]))
            soak.pyscard_read += 1
