#!/usr/bin/env bash
# Starts pcscd when none runs, and waits until the vpcd virtual reader slots (and nfctag's own
# readers, when scripts/install-ifd-nfctag.sh installed them) are listening.
set -euo pipefail
# A pcscd that was killed may linger as a zombie until its parent reaps it: only a live one counts.
pcscd_alive() { ps -C pcscd -o stat= 2>/dev/null | grep -qv '^Z'; }
if ! pcscd_alive; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  # The daemon must not inherit its starter's state: a pipe or a process-monitor socket it keeps
  # open for its whole life makes whoever waits for that end (a `| tee`, a test's
  # Process.waitUntilExit) wait forever, and a signal mask inherited from a multithreaded starter
  # (a Swift test) blocks SIGTERM, so pkill could never stop it. Close every descriptor above
  # stderr, unblock every signal, give it /dev/null, then exec it.
  start_detached() {
    python3 - "$@" <<'PY'
import os, signal, sys
signal.pthread_sigmask(signal.SIG_SETMASK, [])
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGPIPE):
    signal.signal(s, signal.SIG_DFL)
null = os.open(os.devnull, os.O_RDWR)
for fd in (0, 1, 2):
    os.dup2(null, fd)
os.closerange(3, os.sysconf("SC_OPEN_MAX"))
os.execvp(sys.argv[1], sys.argv[1:])
PY
  }
  # A pcscd killed with SIGKILL leaves its pid file; if that pid is a zombie not yet reaped, a new
  # pcscd takes it for a running one and exits. No live pcscd runs here, so the file is stale.
  $SUDO rm -f /run/pcscd/pcscd.pid
  # Debian's pcscd is socket-activated under systemd; without systemd (containers, CI) start it ourselves.
  if command -v systemctl >/dev/null && systemctl is-system-running >/dev/null 2>&1; then
    $SUDO systemctl start pcscd.socket pcscd.service || start_detached $SUDO pcscd
  else
    start_detached $SUDO pcscd
  fi
fi
# listening on a port: state 0A in /proc/net/tcp (connecting would insert a card)
listening() { grep -qiE ":$(printf %04X "$1") [0-9A-F]+:0000 0A" /proc/net/tcp /proc/net/tcp6 2>/dev/null; }
waited=0
for _ in $(seq 1 50); do
  if listening 35963; then waited=1; break; fi
  sleep 0.1
done
if [ "$waited" = 0 ]; then
  echo "pcscd runs but the vpcd slot 127.0.0.1:35963 does not listen: is vsmartcard-vpcd installed?" >&2
  exit 1
fi
# nfctag's own driver (scripts/install-ifd-nfctag.sh, docs/ifd-handler.md), when installed: its
# readers listen once pcscd has loaded them: wait for the last one of its list.
conf=/etc/reader.conf.d/nfctag
[ -f "$conf" ] || exit 0
last=$(sed -n 's|^DEVICENAME *[^:]*:\([0-9]*\)$|\1|p' "$conf" | tail -1)
[ -n "$last" ] || exit 0
for _ in $(seq 1 50); do
  if listening "$last"; then exit 0; fi
  sleep 0.1
done
echo "pcscd runs but nfctag's reader 127.0.0.1:$last does not listen: see docs/ifd-handler.md" >&2
exit 1
