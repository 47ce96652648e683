#!/usr/bin/env bash
# make test's suites, in five test processes side by side. Swift Testing runs as many tests at
# once in a process as the machine has cores (two here), and a test that waits on a program (all
# the command-line and end-to-end tests do) holds its thread while it waits; so the end-to-end
# suites, which mostly wait on pcscd and the virtual reader, get a process of their own, and the
# rest of the work runs beside them:
#  - pcsc: the library suites that use the machine's pcscd and vpcd (PCSC, NFCReaders and the
#    vpcd bridge), holding both vpcd slots' locks (Tests/nfctagTests/VirtualSlots.swift) for their
#    whole run: they use the slots without asking for them, and none may meet a pcscd restart;
#  - lib: the other library suites (codecs, tags, sessions and CoreNFC on simulated readers, the
#    ledgers against a throw-away PostgreSQL);
#  - e2e: nfctagTests' end-to-end suites (their names hold EndToEnd or E2E): each test holds the
#    slots it needs for the whole of its run, so the process's two threads are the two slots';
#    they start as soon as pcsc is done;
#  - readers: nfctagTests' suites on nfctag's pcsc-lite driver's readers (named Driver…): they
#    need no vpcd slot, only a reader of the driver to themselves and no pcscd restart meanwhile
#    (Tests/nfctagTests/DriverReaders.swift), so they run beside the end-to-end suites;
#  - cli: the rest of nfctagTests (command lines in process, the built programs on `sim:` readers),
#    and DocsCommands, whose tests take both slots only around the documented commands that need
#    pcscd (in the e2e process, the rest of their work would keep a slot's thread busy).
# The end-to-end suites are the longest part and mostly wait: lib and cli run at a lower priority
# (nice 10), so that an end-to-end step (a program starting, an emulator answering) is not kept
# waiting behind them for a core; they still finish within the end-to-end suites' time.
# The test bundle runs directly: `swift test` takes SwiftPM's lock on .build, and a second one
# would wait for the first. Each process writes its own log (.build/test-NAME.log), shown whole
# when all have ended.
# Usage (under scripts/with-postgres.sh, NFCTAG_E2E=1, after `swift build --build-tests`):
#   scripts/run-tests.sh
set -uo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
bundle=$("$swift" build --show-bin-path)/nfctagPackageTests.xctest
[ -x "$bundle" ] || { echo "run-tests: no test bundle at $bundle: build it first (swift build --build-tests)" >&2; exit 1; }
end_to_end='^nfctagTests\.[A-Za-z0-9]*(EndToEnd|E2E)[A-Za-z0-9]*/'
driver='^nfctagTests\.Driver[A-Za-z0-9]*/'
run() {  # run NAME NICENESS OPTIONS...: the bundle's Swift Testing tests, into .build/test-NAME.log
  local name=$1 niceness=$2
  shift 2
  nice -n "$niceness" "$bundle" --testing-library swift-testing "$@" > ".build/test-$name.log" 2>&1
}
pcsc='^(PCSCTests|NFCReadersTests|NFCEmulatorVPCDTests)\.'
started=$SECONDS
flock /tmp/nfctag-vpcd-slot-0.lock flock /tmp/nfctag-vpcd-slot-1.lock \
  "$bundle" --testing-library swift-testing --filter "$pcsc" > .build/test-pcsc.log 2>&1 &
pcsc_pid=$!
run lib 10 --skip '^nfctagTests\.' --skip "$pcsc" &
lib_pid=$!
run e2e 0 --filter "$end_to_end" --skip "$driver" &
e2e_pid=$!
run readers 0 --filter "$driver" &
readers_pid=$!
run cli 10 --filter '^nfctagTests\.' --skip "$end_to_end" --skip "$driver" &
cli_pid=$!
status=0
names="pcsc lib cli readers e2e"
for name in $names; do
  pid=${name}_pid
  wait "${!pid}" || status=1
  echo "== $name: $(grep -a -E '^.{0,12}Test run with' ".build/test-$name.log" | tail -n 1 | sed 's/^[^T]*//') ($((SECONDS - started)) s)"
done
for name in $names; do
  echo "== .build/test-$name.log"
  cat ".build/test-$name.log"
done
exit $status
