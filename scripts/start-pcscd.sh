#!/usr/bin/env bash
# Starts pcscd when none runs, and waits until the vpcd virtual reader slots are listening.
set -euo pipefail
# A pcscd that was killed may linger as a zombie until its parent reaps it: only a live one counts.
pcscd_alive() { ps -C pcscd -o stat= 2>/dev/null | grep -qv '^Z'; }
if ! pcscd_alive; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  # The daemon must not keep its starter's descriptors: a pipe or a process-monitor socket it
  # inherits stays open for its whole life, and whoever waits for that end (a `| tee`, a test's
  # Process.waitUntilExit) waits forever. Close everything above stderr in the subshell that
  # starts it, and give it /dev/null for the standard three.
  start_detached() {
    (
      for fd in /proc/self/fd/*; do
        fd=${fd##*/}
        [ "$fd" -gt 2 ] 2>/dev/null && eval "exec $fd>&-" 2>/dev/null
      done
      exec "$@" </dev/null >/dev/null 2>&1
    )
  }
  # Debian's pcscd is socket-activated under systemd; without systemd (containers, CI) start it ourselves.
  if command -v systemctl >/dev/null && systemctl is-system-running >/dev/null 2>&1; then
    $SUDO systemctl start pcscd.socket pcscd.service || start_detached $SUDO pcscd
  else
    start_detached $SUDO pcscd
  fi
fi
for _ in $(seq 1 50); do
  # listening on port 35963 (0x8C7B): state 0A in /proc/net/tcp (connecting would insert a card)
  if grep -qiE ':8C7B [0-9A-F]+:0000 0A' /proc/net/tcp /proc/net/tcp6 2>/dev/null; then exit 0; fi
  sleep 0.1
done
echo "pcscd runs but the vpcd slot 127.0.0.1:35963 does not listen: is vsmartcard-vpcd installed?" >&2
exit 1
