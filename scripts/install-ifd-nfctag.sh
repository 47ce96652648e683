#!/usr/bin/env bash
# Builds nfctag's pcsc-lite driver (Drivers/ifd-nfctag) and installs it, with its readers
# (/etc/reader.conf.d/nfctag), when either differs from what is installed; then restarts a running
# pcscd, which reads reader.conf.d only when it starts. Nothing changed: nothing is touched.
# docs/ifd-handler.md describes the driver.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
dropdir=$(pkg-config --variable=usbdropdir libpcsclite)
library="$dropdir/serial/libifdnfctag.so"
conf=/etc/reader.conf.d/nfctag
build=.build/ifd-nfctag
mkdir -p "$build"
# -Wall -Wextra -Werror: a warning is a build failure.
"${CC:-$(command -v cc || command -v clang)}" -std=gnu11 -Wall -Wextra -Werror -O2 -fPIC -shared $(pkg-config --cflags libpcsclite) \
  -o "$build/libifdnfctag.so" Drivers/ifd-nfctag/*.c -lpthread
sed "s|@LIBPATH@|$library|" Drivers/ifd-nfctag/reader.conf.in > "$build/nfctag.conf"
changed=0
if ! cmp -s "$build/libifdnfctag.so" "$library"; then
  $SUDO install -D -m 644 "$build/libifdnfctag.so" "$library"; changed=1
fi
if ! cmp -s "$build/nfctag.conf" "$conf"; then
  $SUDO install -D -m 644 "$build/nfctag.conf" "$conf"; changed=1
fi
[ "$changed" = 1 ] || exit 0
echo "installed the nfctag pcsc-lite driver ($library, $conf)"
# A live pcscd (not a zombie) keeps the old driver and readers until it restarts.
if ps -C pcscd -o stat= 2>/dev/null | grep -qv '^Z'; then
  if command -v systemctl >/dev/null && systemctl is-system-running >/dev/null 2>&1; then
    $SUDO systemctl restart pcscd.service
  else
    # The pid file ends with a NUL: keep the digits only.
    pid=$(tr -cd '0-9' < /run/pcscd/pcscd.pid 2>/dev/null || true)
    [ -n "$pid" ] || pid=$(pidof pcscd || true)
    for p in $pid; do $SUDO kill -TERM "$p" 2>/dev/null || true; done
    for _ in $(seq 1 100); do ps -C pcscd -o stat= 2>/dev/null | grep -qv '^Z' || break; sleep 0.1; done
    echo "stopped pcscd: scripts/start-pcscd.sh (make pcscd) starts it with the new driver"
  fi
fi
