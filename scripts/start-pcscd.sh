#!/usr/bin/env bash
# Starts pcscd when none runs, and waits until the vpcd virtual reader slots are listening.
set -euo pipefail
if ! pgrep -x pcscd >/dev/null; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  # Debian's pcscd is socket-activated under systemd; without systemd (containers, CI) start it ourselves.
  if command -v systemctl >/dev/null && systemctl is-system-running >/dev/null 2>&1; then
    $SUDO systemctl start pcscd.socket pcscd.service || $SUDO pcscd
  else
    $SUDO pcscd
  fi
fi
for _ in $(seq 1 50); do
  # listening on port 35963 (0x8C7B): state 0A in /proc/net/tcp (connecting would insert a card)
  if grep -qiE ':8C7B [0-9A-F]+:0000 0A' /proc/net/tcp /proc/net/tcp6 2>/dev/null; then exit 0; fi
  sleep 0.1
done
echo "pcscd runs but the vpcd slot 127.0.0.1:35963 does not listen: is vsmartcard-vpcd installed?" >&2
exit 1
