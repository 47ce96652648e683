"""The soak's faults beyond the tag's own (scripts/soak.py; docs/reliability.md, "Faults"): pcscd restarted
with every lock the tests' `.restartsPcscd` takes, the PostgreSQL connections cut at a relay of the soak's
own, the SQLite station's disk full (RLIMIT_FSIZE), and a station's wall clock stepped (libfaketime).
Also the schedule's lanes (one thread per fault kind) and the gate that keeps the workers from running
past a fault not yet fired, so that every kind fires while stations work. Python 3 standard library only."""
import fcntl, os, random, resource, signal, socket, subprocess, threading, time
from urllib.parse import urlsplit, urlunsplit

from soak_readers import flock_path, lock_fds

KINDS = ("pcscd-restart", "pg-cut", "disk-full", "clock-step")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"  # Debian's libfaketime (package faketime)
PCSCD_LOCK, PCSCD_GATE = "/tmp/nfctag-pcscd.lock", "/tmp/nfctag-pcscd-next.lock"
VPCD_SLOTS = ("/tmp/nfctag-vpcd-slot-1.lock", "/tmp/nfctag-vpcd-slot-0.lock")  # VirtualSlots.swift's order


def counts(n):
    """How many of each kind in a run of n tags: at least one of each, 50 or more at 5,000 tags (pcscd
    restarts stall every station: the rarest)."""
    return {"pcscd-restart": max(1, n // 100), "pg-cut": max(2, n // 40), "disk-full": max(1, n // 100),
            "clock-step": max(2, n // 40)}


class Relay:
    """A TCP relay in front of PostgreSQL: accepts, connects upstream, pumps both ways; cut() closes every
    connection open through it at once (both sides) and it keeps accepting."""

    def __init__(self, host, port):
        self.upstream, self.conns, self.lock = (host, port), set(), threading.Lock()
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1]
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(self.upstream, timeout=10)
                upstream.settimeout(None)
            except OSError:
                client.close()
                continue
            with self.lock:
                self.conns.update((client, upstream))
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self.pump, args=(a, b), daemon=True).start()

    def pump(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        for s in (src, dst):
            self.close(s)

    def close(self, s):
        with self.lock:
            self.conns.discard(s)
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        s.close()

    def cut(self):
        """Closes every relayed connection; returns how many sockets were open."""
        with self.lock:
            open_ = list(self.conns)
        for s in open_:
            self.close(s)
        return len(open_)


def setup(soak):
    """Before the stations start: the relay (the PostgreSQL stations' ledger URL names its port) and
    each station's clock file (libfaketime's FAKETIME_TIMESTAMP_FILE, read at every call)."""
    if not os.path.exists(FAKETIME):
        raise SystemExit("soak: %s is missing: apt-get install faketime (make deps)" % FAKETIME)
    url = urlsplit(soak.pg_url)
    soak.relay = Relay(url.hostname, url.port)
    relayed = urlunsplit(url._replace(netloc=url.netloc.replace(":%d" % url.port, ":%d" % soak.relay.port)))
    # the password is looked up by host and port (PGPASSFILE, never argv): the relay's port gets the same line
    passfile = os.environ.get("PGPASSFILE")
    if passfile and os.path.exists(passfile):
        lines = open(passfile).read().splitlines()
        relay_lines = [":".join([f[0], str(soak.relay.port)] + f[2:]) for f in (l.split(":") for l in lines)
                       if len(f) >= 5 and f[1] == str(url.port)]
        os.environ["PGPASSFILE"] = private_file(os.path.join(soak.out, "relay.pgpass"), "\n".join(lines + relay_lines) + "\n")
    soak.fault_locks, soak.fsize_limit, soak.gave_up, soak.clock_timers = {}, {}, set(), {}
    for st in soak.stations:
        soak.fault_locks[st.name] = threading.Lock()
        if st.backend == "pg":
            st.ledger = relayed
        set_clock(soak, st, 0)


def log(soak, line):
    with open(os.path.join(soak.out, "soak.log"), "a") as f:
        f.write(time.strftime("%H:%M:%S ") + line + "\n")


def private_file(path, text):
    with os.fdopen(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "w") as f:
        f.write(text)
    return path


def set_clock(soak, st, offset):
    path = os.path.join(soak.out, "clock-%s" % st.name)
    with open(path + ".new", "w") as f:
        f.write("%+d\n" % offset)
    os.replace(path + ".new", path)  # libfaketime reads either the old or the new offset, never half


def popen_options(soak, st):
    """What a station's process is started with: libfaketime on its clock file (CLOCK_REALTIME only:
    DONT_FAKE_MONOTONIC=1), and, while its disk is full, RLIMIT_FSIZE with SIGXFSZ ignored (a write
    past the limit fails with EFBIG instead of killing it) and its stderr in a file of its own
    (the limit holds for every file it writes)."""
    env = dict(os.environ, LD_PRELOAD=FAKETIME, FAKETIME_TIMESTAMP_FILE=os.path.join(soak.out, "clock-%s" % st.name),
               FAKETIME_NO_CACHE="1", DONT_FAKE_MONOTONIC="1")
    # Started through env(1): libfaketime's constructor adds FAKETIME_SHARED to the environment, and a Swift
    # program that has it added in its own process loses its arguments (nfctag then prints its help); in
    # env's process it is added, and nfctag finds it there already (then the shared memory named with the
    # pid is left behind: cleanup() removes it).
    options = {"env": env, "prefix": ["/usr/bin/env"]}
    limit = getattr(soak, "fsize_limit", {}).get(st.name)
    if limit:
        def limited():
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
            resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
        options["preexec_fn"] = limited
        options["stderr"] = open(os.path.join(soak.out, "station-%s-disk-full.err" % st.name), "a")
    return options


def cleanup(soak):
    """At the end: the shared memory libfaketime left for each station process (the relay stays: the
    checks read the ledgers through it)."""
    for timer in getattr(soak, "clock_timers", {}).values():
        timer.cancel()
    for proc in soak.pids:
        if proc.poll() is not None:
            for name in ("faketime_shm_%d" % proc.pid, "sem.faketime_sem_%d" % proc.pid):
                try:
                    os.unlink(os.path.join("/dev/shm", name))
                except OSError:
                    pass


def plan(soak, rng, n):
    """The lanes: per kind, the moments (a number of presentations, then a delay) it fires at, drawn from rng."""
    lanes = []
    for kind, k in counts(n).items():
        sqlite = [s.name for s in soak.stations if s.backend == "sqlite"]
        if kind == "disk-full" and sqlite:  # counted in the SQLite station's own presentations: it fires while it works
            lanes.append([(rng.uniform(0.05, 0.8), rng.uniform(0, 2.0), kind, rng.choice(sqlite)) for _ in range(k)])
        elif kind != "disk-full":
            lanes.append([(rng.uniform(0.05, 0.9) * n, rng.uniform(0, 2.0), kind, rng.choice(soak.stations).name)
                          for _ in range(k)])
    return [sorted(lane) for lane in lanes]


def progress(soak, kind, name):
    """Presentations so far on the scale a fault's moment is drawn on."""
    if kind == "disk-full":
        tags = soak.tags[name]
        return sum(t.presented for t in tags) / max(1, len(tags))
    return soak.presentations


def gate(soak, st, stop):
    """Called by a worker before each presentation: waits (up to 2 minutes) while a fault whose moment
    has passed by more than a few presentations has not fired yet."""
    start = time.monotonic()
    while not stop.is_set():
        late = [(kind, at) for kind, at, name in list(soak.pending.values()) if at is not None
                and (kind, at) not in soak.gave_up and (kind != "disk-full" or name == st.name)
                and progress(soak, kind, name) > at + (0.1 if kind == "disk-full" else len(soak.stations))]
        if not late:
            break
        if time.monotonic() - start > 120:
            log(soak, "station %s: went on after 2 minutes waiting for %s" % (st.name, late))
            soak.gave_up.update(late)  # a lane held up (pcscd's locks): not waited for again
            break
        time.sleep(0.2)
    if time.monotonic() - start > 10:
        log(soak, "station %s waited %.0f s for a fault to start" % (st.name, time.monotonic() - start))


def pcscd_pids():
    try:
        pid = "".join(c for c in open("/run/pcscd/pcscd.pid").read() if c.isdigit())
        if pid and os.path.exists("/proc/%s" % pid):
            return [int(pid)]
    except OSError:
        pass
    r = subprocess.run(["pidof", "pcscd"], capture_output=True, text=True)
    return [int(p) for p in r.stdout.split()]


def pcscd_alive():
    r = subprocess.run(["ps", "-C", "pcscd", "-o", "stat="], capture_output=True, text=True)
    return any(line and not line.startswith("Z") for line in r.stdout.splitlines())


def hold_pcscd_alone(soak):
    """The locks of the tests' `.restartsPcscd` (DriverReaders.swift's PcscdLocks.alone, VirtualSlots.swift):
    the gate exclusive, pcscd's lock exclusive (the soak's own shared hold converted: no sharer can start
    while the gate is held) and both vpcd slots exclusive. Returns the descriptors to give back, or None
    (not all within 10 minutes; nothing held then but the soak's shared hold)."""
    mine = [fd for fd in lock_fds if os.readlink("/proc/self/fd/%d" % fd) == PCSCD_LOCK][0]
    gate = flock_path(PCSCD_GATE, fcntl.LOCK_EX, wait=10)
    if gate is None:  # a test holds it waiting for pcscd alone, which our shared hold denies: it goes first
        fcntl.flock(mine, fcntl.LOCK_UN)
        gate = flock_path(PCSCD_GATE, fcntl.LOCK_EX, wait=600)
        if gate is None:
            fcntl.flock(mine, fcntl.LOCK_SH)
            return None
    end = time.monotonic() + 600
    while True:
        try:
            fcntl.flock(mine, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            if time.monotonic() > end:
                fcntl.flock(mine, fcntl.LOCK_SH)
                os.close(gate)
                return None
            time.sleep(0.05)
    slots = [flock_path(p, fcntl.LOCK_EX, wait=60) for p in VPCD_SLOTS]
    if None in slots:  # a test holds a slot and waits for pcscd: give everything back and let it run
        for fd in slots:
            fd is not None and os.close(fd)
        fcntl.flock(mine, fcntl.LOCK_SH)
        os.close(gate)
        return None
    return mine, gate, slots


def restart_pcscd(soak):
    """Restarts pcscd as scripts/install-ifd-nfctag.sh and start-pcscd.sh do (systemd's restart, or SIGTERM
    and start-pcscd.sh), with every lock held; True once its readers listen again."""
    held, started = None, time.monotonic()
    while held is None:
        held = hold_pcscd_alone(soak)
        if held is None:
            log(soak, "pcscd-restart: locks not free; trying again")
    mine, gate, slots = held
    locked, old = time.monotonic(), pcscd_pids()
    try:
        if subprocess.run(["sh", "-c", "command -v systemctl >/dev/null && systemctl is-system-running >/dev/null 2>&1"]).returncode == 0:
            ok = subprocess.run(["systemctl", "restart", "pcscd.service"]).returncode == 0
        else:
            for pid in pcscd_pids():
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            end = time.monotonic() + 10
            while pcscd_alive() and time.monotonic() < end:
                time.sleep(0.1)
            ok = not pcscd_alive()
        r = subprocess.run([os.path.join(ROOT, "scripts", "start-pcscd.sh")], capture_output=True, text=True, timeout=60)
        if r.returncode != 0:
            soak.violation("pcscd-restart: start-pcscd.sh exited %d: %s" % (r.returncode, r.stderr.strip()))
        log(soak, "pcscd-restart: every lock held after %.1f s; pcscd %s stopped, %s listening %.1f s later" % (
            locked - started, old, pcscd_pids(), time.monotonic() - locked))
        return ok and r.returncode == 0
    finally:
        for fd in slots:
            os.close(fd)
        fcntl.flock(mine, fcntl.LOCK_SH)
        os.close(gate)


def fill_disk(soak, st, rng):
    """Restarts the SQLite station with RLIMIT_FSIZE just above its ledger files' sizes (SIGKILL first, so
    that its -wal file stays: the next commit appends past its end), for 4 to 10 s, then normally."""
    with st.lock:  # the presenter may restart it meanwhile: under the limit then
        if st.proc and st.proc.poll() is None:
            st.proc.kill()
            st.proc.wait()
        sizes = [os.path.getsize(st.ledger + ext) for ext in ("", "-wal", "-shm") if os.path.exists(st.ledger + ext)]
        limit = max(sizes + [0]) + 1
        soak.fsize_limit[st.name] = limit
    st.start()
    limited = st.proc
    time.sleep(rng.uniform(4, 10))
    soak.fsize_limit.pop(st.name, None)
    code = limited.poll()
    with st.lock:
        if st.proc and st.proc.poll() is None:
            st.proc.kill()  # the limited one (or one the presenter restarted under the limit)
            st.proc.wait()
    st.start()
    log(soak, "disk-full on %s: limit %d bytes (files %s); the limited station %s" % (
        st.name, limit, sizes, "exited %d" % code if code is not None else "still ran"))


def fire(soak, kind, st, rng):
    """Fires one fault of KINDS; True when it was injected."""
    if kind == "pcscd-restart":
        return restart_pcscd(soak)
    if kind == "pg-cut":
        n = soak.relay.cut()
        log(soak, "pg-cut: %d sockets closed" % n)
        return True
    with soak.fault_locks[st.name]:
        if kind == "disk-full":
            fill_disk(soak, st, rng)
            return True
        if kind == "clock-step":
            step = rng.choice((3600, -3600))
            set_clock(soak, st, step)
            log(soak, "clock-step on %s: %+d s" % (st.name, step))
            # stepped back 5 to 20 s later, as NTP would; meanwhile the lane is free for its next one
            before = soak.clock_timers.pop(st.name, None)
            before and before.cancel()
            timer = threading.Timer(rng.uniform(5, 20), set_clock, (soak, st, 0))
            timer.daemon = True
            soak.clock_timers[st.name] = timer
            timer.start()
            return True
    return False


def nemesis(soak, stop, lane, index):
    """Fires one lane's faults (`(at, delay, kind, station)`, sorted) at their moments, until `stop`."""
    rng = random.Random(soak.seed * 7919 + index)  # the lane's own: the threads' order changes no draw
    try:
        for i, (at, delay, kind, name) in enumerate(lane):
            soak.pending[index] = (kind, at, name)
            while progress(soak, kind, name) < at and not stop.is_set():
                time.sleep(0.1)
            soak.pending[index] = (lane[i + 1][2], lane[i + 1][0], lane[i + 1][3]) if i + 1 < len(lane) else (kind, None, name)
            if stop.is_set():
                return
            time.sleep(delay)
            try:
                st = station_fault(soak, kind, name, rng)
            except Exception as e:  # the soak's own bug: loud, and the other lanes go on
                soak.violation("the soak's %s fault raised %r" % (kind, e))
                continue
            if st:
                with soak.mutex:
                    soak.faults[kind] += 1
                log(soak, "fault %s on %s at presentation %d" % (kind, st.name, soak.presentations))
    finally:
        soak.pending.pop(index, None)


def station_fault(soak, kind, name, rng):
    """Fires one fault on station `name` (another one still running when it has finished); the station
    it hit, None when none was."""
    st = {s.name: s for s in soak.stations}[name]
    if kind != "disk-full" and (st.proc is None or st.proc.poll() is not None):  # it finished its rows: another one
        running = [s for s in soak.stations if s.proc and s.proc.poll() is None]
        if not running:
            return None
        st = rng.choice(running)
    if kind == "kill" and st.signal(signal.SIGKILL):
        st.proc.wait()
        st.start()
    elif kind == "stop" and st.signal(signal.SIGSTOP):
        time.sleep(rng.uniform(5.5, 9))  # past --exchange-timeout's 5 s default (docs/usage.md)
        st.signal(signal.SIGCONT)
    elif kind == "pg-restart":
        pg_ctl = sorted(d for d in os.listdir("/usr/lib/postgresql"))[-1]
        data = os.path.join(os.environ["NFCTAG_POSTGRES_DIR"], "data")
        cmd = ["/usr/lib/postgresql/%s/bin/pg_ctl" % pg_ctl, "-D", data, "-w", "-t", "60", "restart", "-m", "fast"]
        prefix = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else ["sudo", "-u", "postgres", "--"]
        if subprocess.run(prefix + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
            soak.violation("pg_ctl restart failed")
    elif kind not in KINDS or not fire(soak, kind, st, rng):
        return None
    return st
