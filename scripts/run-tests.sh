#!/usr/bin/env bash
# make test's suites, in parallel (Swift Testing runs as many tests at once as the machine has
# cores), in two runs one after the other:
#  1. every module but nfctagTests: the libraries' tests, some against the machine's pcscd;
#  2. nfctagTests: the command lines in process, and the end-to-end suites, which hold the vpcd
#     slot they use (Tests/nfctagTests/E2ESupport.swift, VirtualSlot): suites on different slots
#     run side by side, and one that restarts pcscd holds both. Run after the first, so that no
#     restart of pcscd meets a library test that talks to it.
# Usage (under scripts/with-postgres.sh, NFCTAG_E2E=1): scripts/run-tests.sh [swift test options]
set -uo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
"$swift" test --skip-build --skip '^nfctagTests\.' "$@" || exit $?
"$swift" test --skip-build --filter '^nfctagTests\.' "$@"
