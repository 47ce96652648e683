#!/usr/bin/env bash
# Starts a throw-away PostgreSQL cluster for the tests and the ledger benchmark: Debian's
# PostgreSQL (installed when missing), a fresh cluster in a temporary directory owned by the
# `postgres` OS user, listening on 127.0.0.1 on a free port (its unix socket in that directory),
# one role and one database for the tests. The role logs in with a random password (SCRAM) from a
# pgpass file, so the tests go through the same road as a station: PGPASSFILE, never argv.
#
# Writes the connection settings to ENV_FILE (default .build/postgres.env), one VAR=value a line:
#   PGHOST PGPORT PGUSER PGDATABASE PGPASSFILE NFCTAG_TEST_POSTGRES (the ledger URL)
#   NFCTAG_POSTGRES_DIR (the cluster's directory, for scripts/stop-postgres.sh)
# and prints the URL. scripts/with-postgres.sh starts, exports these, runs a command and stops.
set -euo pipefail
cd "$(dirname "$0")/.."
env_file=${1:-${NFCTAG_POSTGRES_ENV:-.build/postgres.env}}
role=nfctag
database=nfctag_test

SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
# Runs a command as the postgres OS user (root: runuser; anyone else: sudo).
as_postgres() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else sudo -u postgres -- "$@"; fi
}

# The server binaries: /usr/lib/postgresql/VERSION/bin, the newest version installed.
pg_bin() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1; }
if [ -z "$(pg_bin)" ] || [ ! -x "$(pg_bin)/initdb" ]; then
  echo "installing: postgresql"
  $SUDO apt-get update -qq
  # The package's own cluster is not used: policy-rc.d keeps apt from starting it where it can.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq postgresql >/dev/null
fi
bin=$(pg_bin)
[ -x "$bin/initdb" ] || { echo "start-postgres: no initdb under /usr/lib/postgresql/*/bin" >&2; exit 1; }

if [ -f "$env_file" ]; then
  # A cluster from an earlier run that was not stopped (a killed make): stop it first.
  "$(dirname "$0")/stop-postgres.sh" "$env_file" || true
fi

started=$EPOCHREALTIME
dir=$(mktemp -d /tmp/nfctag-postgres.XXXXXX)
chmod 0700 "$dir"
$SUDO chown postgres:postgres "$dir"
password=$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')

# initdb with trust on the unix socket (the script's own psql, as postgres) and SCRAM on loopback
# TCP (everyone else). --no-sync: the cluster is thrown away, no need to flush its files.
as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
  --no-sync --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
  || { $SUDO cat "$dir/initdb.log" >&2; exit 1; }

# A free port: ask the kernel for one, and try again if another process takes it first.
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
port=""
for _ in 1 2 3; do
  candidate=$(free_port)
  if as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
       -o "-c listen_addresses=127.0.0.1 -p $candidate -k $dir -c max_connections=200" start >/dev/null 2>&1; then
    port=$candidate; break
  fi
done
if [ -z "$port" ]; then
  echo "start-postgres: the server did not start; its log:" >&2
  $SUDO cat "$dir/server.log" >&2 || true
  as_postgres rm -rf "$dir"; $SUDO rm -rf "$dir"
  exit 1
fi

# The test role may create databases (a fresh database per migration test) and owns the test
# database. The password goes to psql on stdin, never in argv.
as_postgres "$bin/psql" -h "$dir" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 -q >/dev/null <<SQL
CREATE ROLE $role LOGIN CREATEDB PASSWORD '$password';
CREATE DATABASE $database OWNER $role;
SQL

mkdir -p "$(dirname "$env_file")"
pgpass="$(cd "$(dirname "$env_file")" && pwd)/$(basename "$env_file" .env).pgpass"
(umask 077; echo "127.0.0.1:$port:*:$role:$password" > "$pgpass")
chmod 0600 "$pgpass"
url="postgres://$role@127.0.0.1:$port/$database"
cat > "$env_file" <<ENV
PGHOST=127.0.0.1
PGPORT=$port
PGUSER=$role
PGDATABASE=$database
PGPASSFILE=$pgpass
NFCTAG_TEST_POSTGRES=$url
NFCTAG_POSTGRES_DIR=$dir
ENV
elapsed=$(awk "BEGIN { printf \"%.1f\", $EPOCHREALTIME - $started }")
echo "postgres: $url (PostgreSQL $("$bin/postgres" --version | awk '{print $3}'), cluster $dir, settings $env_file, started in $elapsed s)"
