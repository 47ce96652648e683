#!/usr/bin/env python3
"""A soak of provisioning stations under mixed faults (docs/reliability.md).

scripts/soak.py --seed S --tags N [--out DIR] runs, under a private PostgreSQL (it re-executes
itself under scripts/with-postgres.sh with its own env file when none is set up): stations on
nfctag's driver readers (PostgreSQL jobs `url` (two stations) and `text`, one SQLite station with
`--sdm-url` on NTAG 424 DNA, and soak_jobs.py's `--message --lock`, `--protect`, `--mirror` and
DESFire EV3 jobs), tags presented one at a time from image files (a removed or failed
tag comes back later with its image), and a fault schedule drawn from random.Random(seed). At the
end a sweep finishes every bound row, the invariants are checked from the ledgers' exports and the
images read back by nfctag and by pyscard (soak_pyscard.py), and the summary lines are printed.
Exit 1 on any violation, 2 with no verdict (pcscd gone for 3 minutes, interrupted).
Python 3 standard library only.
"""
import argparse, json, os, random, shutil, signal, subprocess, sys, tempfile, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import soak_check, soak_jobs  # noqa: E402
from soak_readers import Tag, make_uid, take_readers  # noqa: E402
import soak_faults  # noqa: E402  pcscd-restart, pg-cut, disk-full, clock-step

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NFCTAG = os.path.join(ROOT, ".build", "debug", "nfctag")  # copied into OUT/bin at start: a build meanwhile cannot swap it
FAULT_KINDS = ("remove", "garbage", "status", "nak", "slow", "drop", "kill", "stop", "pg-restart") + soak_faults.KINDS
READER_FAULTS = ("garbage", "status", "nak", "slow:6", "drop")  # emulate --fault KIND@N: docs/faults.md
# name, ledger ("pg" or "sqlite"), job, template options, tag kinds in turn, reader face, share of tags
STATIONS = [
    ("a", "pg", "url", ["--url", "https://example.com/t/{n:06}"],
     ["ntag213", "ntag215", "ntag216", "ultralight-ev1", "mifare-classic-1k"], "acr122u", 0.18),
    ("b", "pg", "url", ["--url", "https://example.com/t/{n:06}"],
     ["icode-slix2", "ntag215", "ntag213"], "acr1552u", 0.15),
    ("c", "pg", "text", ["--text", "Asset {n:05}"],
     ["ntag216", "ultralight-ev1", "mifare-classic-1k"], "acr1252u", 0.12),
    ("d", "sqlite", "sdm", ["--sdm-url", "https://example.com/s/{n}?p={picc}&c={cmac}"],
     ["ntag424dna"], "omnikey5422", 0.15),  # Type 4 on a Part 3 reader: the ACR122Us serve a and g (--mirror)
] + soak_jobs.STATIONS  # --message with --lock, --protect, --mirror, DESFire EV3: scripts/soak_jobs.py


def log(out, line):
    with open(os.path.join(out, "soak.log"), "a") as f:
        f.write(time.strftime("%H:%M:%S ") + line + "\n")


class Station:
    def __init__(self, soak, spec, reader):
        self.soak = soak
        self.name, self.backend, self.job, self.template, self.kinds, self.face, self.share = spec
        self.reader, self.port = reader
        self.ledger = soak.pg_url if self.backend == "pg" else os.path.join(soak.out, "station-%s.sqlite" % self.name)
        self.proc, self.events, self.cond, self.lock = None, [], threading.Condition(), threading.Lock()

    def command(self):
        cmd = [NFCTAG, "provision", "--count", str(self.soak.rows[(self.backend, self.job)]), "--job", self.job,
               "--ledger", self.ledger, "--reader", self.reader, "--station", self.name, "--json"] + soak_jobs.options(self.soak, self.template)
        if self.job == "sdm":
            cmd += ["--master-key-file", self.soak.key_file]
        return cmd

    def start(self):
        with self.lock:
            if self.proc and self.proc.poll() is None:
                return
            if self.proc:
                self.soak.note_exit("station " + self.name, self.proc.returncode)
            options = soak_faults.popen_options(self.soak, self)  # its clock (libfaketime), a full disk
            err = options.pop("stderr", None) or open(os.path.join(self.soak.out, "station-%s.err" % self.name), "a")
            self.proc = subprocess.Popen(options.pop("prefix") + self.command(), stdout=subprocess.PIPE, stderr=err,
                                         text=True, start_new_session=True, **options)
            self.soak.pids.append(self.proc)
            threading.Thread(target=self.read_events, args=(self.proc,), daemon=True).start()

    def read_events(self, proc):
        record = open(os.path.join(self.soak.out, "station-%s.jsonl" % self.name), "a")
        for line in proc.stdout:
            record.write(line)
            record.flush()
            try:
                event = json.loads(line)
            except ValueError:
                continue
            if event.get("exit") is not None:
                self.soak.note_exit("tag at " + self.name, event["exit"])
            with self.cond:
                self.events.append(event)
                self.cond.notify_all()

    def signal(self, sig):
        with self.lock:
            if self.proc and self.proc.poll() is None:
                os.kill(self.proc.pid, sig)
                return True
        return False

    def stop(self):
        if self.signal(signal.SIGINT):
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.soak.violation("station %s did not stop after Ctrl-C within 20 s" % self.name)
                self.proc.kill()
                self.proc.wait()
        if self.proc:
            self.soak.note_exit("station " + self.name, self.proc.returncode)

    def wait_event(self, tag, seen, seconds):
        """The status of the station's last event on `tag` after event number `seen`, waiting up to `seconds`."""
        end = time.monotonic() + seconds
        with self.cond:
            while True:
                mine = [e for e in self.events[seen:] if e.get("event") == "tag" and (e.get("uid") or "").lower() in tag.ids]
                if mine or time.monotonic() >= end:
                    return mine[-1]["status"] if mine else None
                self.cond.wait(min(0.1, max(0.0, end - time.monotonic())))

    def present(self, tag, fault=None, timeout=40.0):
        """Shows the tag on the reader until the station reports it, it leaves (--remove-after) or timeout."""
        cmd = [NFCTAG, "emulate", "--tag", tag.kind, "--image", tag.image, "--vpcd", "127.0.0.1:%d" % self.port,
               "--reader", self.face, "--uid", tag.uid]  # always: an ICODE image does not keep its UID
        if fault:  # (kind, N): the tag leaves after N commands, or its Nth command is spoilt
            cmd += ["--remove-after", str(fault[1])] if fault[0] == "remove" else ["--fault", "%s@%d" % fault]
        with self.cond:
            seen = len(self.events)
        tag.presented += 1
        emu = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(os.path.join(self.soak.out, "emulate.err"), "a"),
                               start_new_session=True)
        self.soak.pids.append(emu)
        deadline, result = time.monotonic() + timeout, "timeout"
        try:
            while time.monotonic() < deadline:
                if self.proc is None or self.proc.poll() is not None:
                    if self.proc is not None and self.proc.returncode == 0:
                        result = "finished"  # every row of its job is done: no row for this tag
                        break
                    self.start()  # it was killed and not yet restarted
                found = self.wait_event(tag, seen, 0.1)
                if found:
                    result = found
                    break
                if emu.poll() is not None:
                    result = "removed"
                    break
        finally:
            emu.poll() is None and emu.send_signal(signal.SIGINT)
            try:
                code = emu.wait(15)
            except subprocess.TimeoutExpired:
                emu.kill()
                code = emu.wait()
                self.soak.violation("emulate of %s did not stop after Ctrl-C" % tag.uid)
        self.soak.note_exit("emulate", code)
        if code == 69:  # no reader: pcscd is down (not by the soak: another test's restart); not the tag's fault
            tag.presented -= 1
            self.soak.no_reader()
            return "no reader"
        if code not in (0, -signal.SIGINT):  # SIGINT before its handler was set: the station was quick
            self.soak.violation("emulate of %s (%s) exited %s: see emulate.err" % (tag.uid, tag.kind, code))
        if result in ("removed", "timeout"):
            self.wait_event(tag, seen, 5.0)  # the station's word on the tag that left, not to be taken for the next
        time.sleep(0.5)  # pcscd looks for cards every 0.4 s: let it see the tag leave
        tag.outcome = result if result in ("done", "skipped") else "again"
        return result


class Soak:
    def __init__(self, args):
        self.args, self.seed, self.rng = args, args.seed, random.Random(args.seed)
        self.out = os.path.abspath(args.out or tempfile.mkdtemp(prefix="nfctag-soak-%d-" % args.seed))
        os.makedirs(os.path.join(self.out, "images"), exist_ok=True)
        self.pg_url = os.environ["NFCTAG_TEST_POSTGRES"]
        self.key_file = os.path.join(self.out, "master.hex")
        with os.fdopen(os.open(self.key_file, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
            f.write("%032x\n" % self.rng.getrandbits(128))
        soak_jobs.setup(self)  # the jobs' message, secret and DESFire master key files
        self.pids, self.exits, self.violations = [], set(), []
        self.faults = {k: 0 for k in FAULT_KINDS}
        self.retried, self.mutex, self.presentations = 0, threading.Lock(), 0
        self.rig_errors, self.missing_since, self.aborted, self.halt = 0, None, None, threading.Event()

    def no_reader(self):
        """An emulator found no reader to attach to: waits for pcscd, and halts the soak after 3 minutes without."""
        with self.mutex:
            self.rig_errors += 1
            self.missing_since = self.missing_since or time.monotonic()
            if time.monotonic() - self.missing_since > 180:
                self.aborted = "pcscd's readers did not listen for 3 minutes"
                self.halt.set()
        log(self.out, "no reader: pcscd down? (%d so far)" % self.rig_errors)
        time.sleep(2)

    def note_exit(self, who, code):
        if code is not None and code >= 0:
            with self.mutex:
                self.exits.add((who, code))

    def violation(self, what):
        with self.mutex:
            self.violations.append(what)
        log(self.out, "VIOLATION " + what)

    def plan(self):
        n = self.args.tags
        counts = [max(1, int(n * spec[-1])) for spec in STATIONS]
        counts[0] += n - sum(counts)
        readers = take_readers([spec[5] for spec in STATIONS])
        self.stations = [Station(self, spec, r) for spec, r in zip(STATIONS, readers)]
        self.rows, self.tags, number = {}, {s.name: [] for s in self.stations}, 0
        for st, count in zip(self.stations, counts):
            self.rows[(st.backend, st.job)] = self.rows.get((st.backend, st.job), 0) + count
            for i in range(count):
                number += 1
                kind = st.kinds[i % len(st.kinds)]
                uid = make_uid(self.rng, kind)
                image = os.path.join(self.out, "images", "%05d-%s-%s.bin" % (number, kind, uid))
                tag = Tag(number, kind, uid, image, st)
                # a removal on this tag's first presentation, after a random command
                # a fault on this tag's first presentation, at a random command
                r, at = self.rng.random(), self.rng.randint(1, 30 if kind == "ntag424dna" or kind.startswith("desfire") else 14)
                tag.fault = ("remove", at) if r < 0.10 else (self.rng.choice(READER_FAULTS), at) if r < 0.20 else None
                self.tags[st.name].append(tag)
        k = max(2, n // 40)
        self.schedule = sorted((self.rng.uniform(0.05, 0.9) * n, self.rng.uniform(0, 2.0), kind, self.rng.choice(self.stations).name)
                               for kind in ("kill", "stop", "pg-restart") for _ in range(k))
        log(self.out, "seed %d tags %d readers %s schedule %s" % (self.seed, n, readers, self.schedule))
        # one lane (a thread) per kind, so that a long fault does not hold the others back
        self.lanes = [[e for e in self.schedule if e[2] == kind] for kind in ("kill", "stop", "pg-restart")]
        self.lanes += soak_faults.plan(self, self.rng, n)
        self.pending = {}  # lane: its next fault not yet started (soak_faults.gate)
        log(self.out, "schedule %s" % [e for lane in self.lanes[3:] for e in lane])

    def worker(self, st):
        queue, again, rng = list(self.tags[st.name]), [], random.Random(self.seed * 1000 + ord(st.name))
        while (queue or again) and not self.halt.is_set():
            if again and (not queue or rng.random() < 0.2):
                tag = again.pop(0)
                fault = None
            else:
                tag = queue.pop(0)
                fault = tag.fault
            if fault:
                with self.mutex:
                    self.faults[fault[0].split(":")[0]] += 1
            soak_faults.gate(self, st, self.halt)  # no fault left behind: each fires while stations work
            with self.mutex:
                self.presentations += 1
            result = st.present(tag, fault, timeout=60 if tag.kind == "ntag424dna" else 40)
            if result == "no reader":
                queue.insert(0, tag) if fault else again.insert(0, tag)
                continue
            with self.mutex:
                self.missing_since = None
            log(self.out, "station %s tag %s (%s) presentation %d: %s" % (st.name, tag.uid, tag.kind, tag.presented, result))
            if tag.outcome == "again":
                with self.mutex:
                    self.retried += 1
                if tag.presented < 6:
                    again.insert(rng.randint(0, len(again)), tag)

    def nemesis(self, stop, lane, index):
        soak_faults.nemesis(self, stop, lane, index)  # one lane of the fault schedule

    def sweep(self):
        """Presents, fault-free, the tag of every row still bound and every tag not done while its job
        has rows left, until none is left (4 rounds at most)."""
        by_uid = {i: t for tags in self.tags.values() for t in tags for i in t.ids}
        for round_ in range(4):
            todo, reports = {}, {}
            for st in self.stations:
                if (st.ledger, st.job) not in reports:
                    reports[(st.ledger, st.job)] = soak_check.export(self, st)[0]
                rows = reports[(st.ledger, st.job)]
                if any(r["status"] != "done" for r in rows):
                    todo.update({t.uid: t for t in self.tags[st.name] if t.outcome not in ("done", "skipped")})
                for row in rows:
                    tag = by_uid.get((row.get("uid") or "").lower())
                    if row["status"] in ("claimed", "failed") and tag and tag.station is st:
                        todo[tag.uid] = tag
            if not todo:
                return
            log(self.out, "sweep round %d: %s" % (round_ + 1, sorted(todo)))
            for tag in todo.values():
                tag.station.start()
                result = tag.station.present(tag, timeout=60)
                log(self.out, "sweep: station %s tag %s: %s" % (tag.station.name, tag.uid, result))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--tags", type=int, default=300)
    p.add_argument("--out")
    args = p.parse_args()
    if "NFCTAG_TEST_POSTGRES" not in os.environ:
        env = dict(os.environ, NFCTAG_POSTGRES_ENV=os.path.join(ROOT, ".build", "soak-postgres.env"))
        os.execvpe(os.path.join(ROOT, "scripts", "with-postgres.sh"),
                   ["with-postgres.sh", sys.executable] + sys.argv, env)
    def interrupted(signum, frame):
        raise KeyboardInterrupt("SIGTERM")
    signal.signal(signal.SIGTERM, interrupted)
    started, soak = time.monotonic(), Soak(args)
    global NFCTAG
    os.makedirs(os.path.join(soak.out, "bin"), exist_ok=True)
    for program in ("nfctag", "nfctag-provision"):
        shutil.copy2(os.path.join(os.path.dirname(NFCTAG), program), os.path.join(soak.out, "bin", program))
    NFCTAG = soak.nfctag = os.path.join(soak.out, "bin", "nfctag")
    soak.plan()
    soak_faults.setup(soak)  # the PostgreSQL relay, the stations' clocks
    stop = threading.Event()
    try:
        for st in soak.stations:
            st.start()
        time.sleep(2)
        lanes = [threading.Thread(target=soak.nemesis, args=(stop, lane, i), daemon=True) for i, lane in enumerate(soak.lanes)]
        for lane in lanes:
            lane.start()
        workers = [threading.Thread(target=soak.worker, args=(st,), daemon=True) for st in soak.stations]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        stop.set()
        for lane in lanes:
            lane.join()
        for st in soak.stations:
            st.signal(signal.SIGCONT)
        if not soak.aborted:
            soak.sweep()
    except KeyboardInterrupt as e:
        soak.aborted = "interrupted (%s)" % e
    finally:
        stop.set()
        soak.halt.set()
        for proc in soak.pids:  # the tags in the field leave, so that the workers end
            if proc.poll() is None and proc.args[1] == "emulate":
                proc.send_signal(signal.SIGINT)
        for w in workers if "workers" in locals() else []:
            w.join(30)
        for st in soak.stations:
            st.signal(signal.SIGCONT)
            st.stop()
        soak_faults.cleanup(soak)  # the shared memory libfaketime leaves
        for proc in soak.pids:  # an emulator or station an exception left running
            if proc.poll() is None:
                soak.violation("process %d (%s) was still running at the end" % (proc.pid, proc.args[1]))
                proc.kill()
                proc.wait()
    if soak.aborted:
        print("soak seed %d: aborted: %s; no verdict (out %s)" % (args.seed, soak.aborted, soak.out))
        return 2
    done = soak_check.check(soak, ROOT)
    time.sleep(0.5)
    for proc in soak.pids:
        if proc.poll() is None:
            soak.violation("process %d (%s) left behind" % (proc.pid, proc.args[1]))
    minutes = (time.monotonic() - started) / 60
    presented = sum(t.presented for tags in soak.tags.values() for t in tags)
    print("soak seed %d: tags %d, presented %d, done %d, retried %d, faults %s, no reader %d, invariant violations %d, %.1f tags/min, out %s"
          % (args.seed, args.tags, presented, done, soak.retried,
             " ".join("%s=%d" % kv for kv in soak.faults.items()), soak.rig_errors, len(soak.violations), done / minutes, soak.out))
    for v in soak.violations[:20]:
        print("  violation: " + v)
    if soak.violations:
        print("replay: scripts/soak.py --seed %d --tags %d" % (args.seed, args.tags))
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("soak: interrupted; no verdict")
