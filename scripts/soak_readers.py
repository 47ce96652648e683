"""The soak's tags and readers (scripts/soak.py). Tags: a UID drawn from the seed per kind, an image
file, the station that shows it. Readers: nfctag's driver readers as the tests find them
(Tests/nfctagTests/DriverReaders.swift), taken with the tests' locks: pcscd's lock shared through
its gate (PcscdLocks.sharing), then one driver reader's lock exclusive per station, held until the
process ends, so that a soak and the tests never share a reader. Python 3 standard library only."""
import fcntl, os, sys, time

from soak_check import reversed_hex

CONF = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Drivers", "ifd-nfctag", "reader.conf.in")
lock_fds = []  # every flock held, for the whole run


def driver_readers():
    """(face, name, port) of every reader in reader.conf.in, as DriverReaders.swift reads it."""
    readers, face, friendly = [], None, None
    for line in open(CONF, encoding="utf-8"):
        line = line.strip()
        if line.startswith("# face ") and ":" in line:
            face = line[7:line.index(":")]
        elif line.startswith("FRIENDLYNAME"):
            friendly = line.split('"')[1]
        elif line.startswith("CHANNELID") and face and friendly:
            readers.append((face, "%s %02d 00" % (friendly, len(readers)), int(line.split()[-1])))
            face = friendly = None
    return readers


def flock_path(path, mode, wait=600.0):
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    deadline = time.monotonic() + wait
    while True:
        try:
            fcntl.flock(fd, mode | fcntl.LOCK_NB)
            return fd
        except BlockingIOError:
            if time.monotonic() > deadline:
                os.close(fd)
                return None
            time.sleep(0.05)


def take_readers(faces):
    """pcscd shared (through the gate, as PcscdLocks.sharing), then one free driver reader per face."""
    gate = flock_path("/tmp/nfctag-pcscd-next.lock", fcntl.LOCK_SH)
    lock_fds.append(flock_path("/tmp/nfctag-pcscd.lock", fcntl.LOCK_SH))
    os.close(gate)
    chosen, deadline = [], time.monotonic() + 900
    for face in faces:
        while True:
            got = None
            for f, name, port in driver_readers():
                if f == face and port not in [p for _, p in chosen]:
                    fd = flock_path("/tmp/nfctag-driver-%d.lock" % port, fcntl.LOCK_EX, wait=0)
                    if fd is not None:
                        lock_fds.append(fd)
                        got = (name, port)
                        break
            if got:
                chosen.append(got)
                break
            if time.monotonic() > deadline:
                sys.exit("soak: no free driver reader of face %s (is `make pcscd` done?)" % face)
            time.sleep(0.2)
    return chosen


class Tag:
    def __init__(self, n, kind, uid, image, station):
        self.n, self.kind, self.uid, self.image, self.station = n, kind, uid, image, station
        self.outcome, self.presented, self.ids = None, 0, {uid.lower(), reversed_hex(uid).lower()}




def make_uid(rng, kind):
    rand = lambda k: "".join("%02X" % rng.randrange(256) for _ in range(k))
    if kind.startswith("mifare-classic"):
        return rand(4)
    if kind == "icode-slix2":
        return rand(5) + "0104E0"  # least significant byte first (emulate --uid)
    return "04" + rand(6)
