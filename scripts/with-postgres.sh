#!/usr/bin/env bash
# Runs a command with a throw-away PostgreSQL: scripts/start-postgres.sh, the connection settings
# exported (PGHOST PGPORT PGUSER PGDATABASE PGPASSFILE NFCTAG_TEST_POSTGRES), the command, then
# scripts/stop-postgres.sh whatever the command did (failure, Ctrl-C). Exits with the command's status.
# When PostgreSQL cannot be started the command still runs, without NFCTAG_TEST_POSTGRES: the
# tests that need it are skipped and say why.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
env_file=${NFCTAG_POSTGRES_ENV:-$(cd "$here/.." && pwd)/.build/postgres.env}
export NFCTAG_POSTGRES_ENV=$env_file
stop() { "$here/stop-postgres.sh" "$env_file"; }
if "$here/start-postgres.sh" "$env_file"; then
  trap stop EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  set -a; . "$env_file"; set +a
else
  echo "with-postgres: PostgreSQL did not start; the tests that need it will be skipped" >&2
fi
"$@"
