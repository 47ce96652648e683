#!/usr/bin/env bash
# Stops the throw-away cluster scripts/start-postgres.sh started and removes it: its temporary
# directory, the settings file and the pgpass file beside it. Does nothing when none is recorded.
set -euo pipefail
cd "$(dirname "$0")/.."
env_file=${1:-${NFCTAG_POSTGRES_ENV:-.build/postgres.env}}
[ -f "$env_file" ] || exit 0
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres -- "$@"; fi
}
dir=$(sed -n 's/^NFCTAG_POSTGRES_DIR=//p' "$env_file")
pgpass=$(sed -n 's/^PGPASSFILE=//p' "$env_file")
started=$EPOCHREALTIME
# Only a directory start-postgres.sh made: never remove anything else the file might name.
case "$dir" in
  /tmp/nfctag-postgres.*)
    if [ -d "$dir/data" ]; then
      bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
      as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w -t 30 stop >/dev/null 2>&1 \
        || as_postgres "$bin/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    $SUDO rm -rf "$dir";;
  *) echo "stop-postgres: $env_file names no throw-away cluster ($dir); left alone" >&2;;
esac
rm -f "$env_file"
[ -n "$pgpass" ] && rm -f "$pgpass"
echo "postgres: stopped and removed $dir in $(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $started }") s"
