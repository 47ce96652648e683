#!/usr/bin/env bash
# Benchmarks: in-process codec throughput, reader round trips and APDUs per provisioned DESFire
# card (Benchmarks/NFCBench); the NTAG 424 DNA commands' exchanges with the tag (sdm setup, keys
# change --all), sdm setup's on a DESFire EV3, and the SUN verifier's URLs per second on both
# (Benchmarks/SUNBench), and `sdm serve` under wrk (scripts/bench-sun-serve.sh); the SQLite
# ledger's claims and finishes per second (Benchmarks/LedgerBench); the CLI's
# `ndef decode --lines` beside Python's ndeflib decoding the same messages, on three corpora (small
# messages of four kinds; small messages of every record kind, 154 bytes on average; mixed
# real-world sizes, 20 bytes to 70 KB); and the cold start (`nfctag --version`)
# beside Python's ndeftool; and the APDU round trip through pcscd + vpcd to `nfctag emulate`
# (median, p90, p99, max over 1,000); the shared ledger on PostgreSQL (claims+finishes per second
# with 8 stations, Benchmarks/PostgresLedgerBench). Run through `make bench`: BIN_DIR is the static release build that
# `make install` and `make deb` ship.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=${BIN_DIR:?run through make bench}
echo "== in-process (NFCBench)"
"$bin/NFCBench"

echo
echo "== SQLite ledger: claims + finishes on one file, one station (Benchmarks/LedgerBench; the file in .build-bench, on disk)"
mkdir -p .build-bench
"$bin/LedgerBench" .build-bench "${BENCH_LEDGER_ROWS:-2000}"

echo
echo "== provisioning: per tag and with 1, 2, 4 readers (nfctag provision, in-process feeder, SQLite ledger on disk)"
BENCH_DIR=.build-bench python3 scripts/bench-provision.py "$bin/nfctag"

echo
echo "== NTAG 424 DNA and DESFire EV3: exchanges with the tag (APDUs to the tag, reader commands not counted; a fresh virtual card each; sdm setup with the default keys and the read-back: 10 on a 424 DNA, GetVersion's 3 included; the five keys in one session: goal <= 7)"
t424=$(mktemp -d)
printf '%s\n' 00112233445566778899aabbccddeeff 11111111111111111111111111111111 22222222222222222222222222222222 \
  33333333333333333333333333333333 44444444444444444444444444444444 > "$t424/keys.hex"
"$bin/nfctag" sdm setup --url 'https://example.com/t?p={picc}&c={cmac}' --reader "sim:ntag424dna:$t424/setup.bin" --format json --quiet \
  | python3 -c 'import json, sys; print("sdm setup (a URL of 75 characters): %d" % json.load(sys.stdin)["exchanges"])'
"$bin/nfctag" keys change --all --new-keys-file "$t424/keys.hex" --version 1 --yes --reader "sim:ntag424dna:$t424/keys.bin" --format json --quiet \
  | python3 -c 'import json, sys; print("keys change --all (five keys):      %d" % json.load(sys.stdin)["exchanges"])'
# The EV3: its NDEF application made with AES keys first (SDM needs them); the URL its read-back
# holds is the EV3 URL SUNBench verifies.
"$bin/nfctag" format --key-type aes --reader "sim:desfire-ev3-4k:$t424/ev3.bin" --quiet
ev3=$("$bin/nfctag" sdm setup --url 'https://example.com/t?p={picc}&c={cmac}' --reader "sim:desfire-ev3-4k:$t424/ev3.bin" --format json --quiet)
python3 -c 'import json, sys; print("sdm setup on a DESFire EV3 (the same URL): %d" % json.load(sys.stdin)["exchanges"])' <<< "$ev3"
ev3_url=$(python3 -c 'import json, sys; print(json.load(sys.stdin)["url"])' <<< "$ev3")
rm -rf "$t424"
echo
echo "== the SUN verifier, URLs per second on one core: a 424 DNA's and a DESFire EV3's (Benchmarks/SUNBench)"
"$bin/SUNBench" 200000 "$ev3_url"

# The service: wrk (a second process, on the same two cores) against sdm serve; each request a
# fresh tap. SQLite on disk (.build-bench), then a throw-away PostgreSQL when one can be started.
echo
echo "== SUN verification service: sdm serve under wrk, ${BENCH_SUN_CONNECTIONS:-64} connections, ${BENCH_SUN_SECONDS:-10} s, every request a fresh tap (scripts/bench-sun-serve.sh; goal with SQLite: >= 20000 per second)"
scripts/bench-sun-serve.sh "$bin" "$(pwd)/.build-bench/sun-serve.ledger" sqlite
scripts/with-postgres.sh bash -c 'if [ -n "${NFCTAG_TEST_POSTGRES:-}" ]; then scripts/bench-sun-serve.sh "$0" "$NFCTAG_TEST_POSTGRES" postgresql; else echo "postgresql: skipped (no PostgreSQL)"; fi' "$bin"

# pcscd is one per machine: the vpcd part takes the e2e lock itself (set NFCTAG_E2E_LOCK_HELD=1 when
# the caller already holds it, or flock would wait for itself).
echo
echo "== APDU round trip through pcscd + vpcd (nfctag emulate --latency none, Virtual PCD 00 00, 1,000 GET DATA; goal: median <= 2 ms)"
if [ "${NFCTAG_E2E_LOCK_HELD:-0}" = 1 ]; then
  scripts/vpcd-bench.sh "$bin/nfctag" 1000
else
  flock "${NFCTAG_E2E_LOCK:-/tmp/nfctag-e2e.lock}" scripts/vpcd-bench.sh "$bin/nfctag" 1000
fi

work=.build-bench
mkdir -p "$work"
if [ ! -x "$work/venv/bin/ndeftool" ]; then
  python3 -m venv "$work/venv"
  "$work/venv/bin/pip" install -q ndeflib ndeftool
fi
py="$work/venv/bin/python"
runs=${BENCH_RUNS:-3}

# One corpus: both decoders on the same file, each run $runs times (hyperfine, the median), and
# the line counts of both outputs so a decoder that stopped early shows.
codec() {
  local name=$1 file=$2 lines
  lines=$(wc -l < "$file")
  echo
  echo "== nfctag ndef decode --lines vs ndeflib: $name ($lines messages, $(( $(wc -c < "$file") / 1000000 )) MB of hex)"
  hyperfine --style none --runs "$runs" --export-json "$work/$name.json" \
    -n nfctag "'$bin/nfctag' ndef decode --lines < '$file' > '$work/nfctag-$name.out'" \
    -n ndeflib "'$py' scripts/bench_ndeflib.py decode < '$file' > '$work/ndeflib-$name.out'" >/dev/null 2>"$work/hyperfine.log"
  python3 - "$work/$name.json" "$lines" "$(wc -l < "$work/nfctag-$name.out")" "$(wc -l < "$work/ndeflib-$name.out")" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
n = int(sys.argv[2])
ours, theirs = results["nfctag"]["median"], results["ndeflib"]["median"]
print("nfctag:  %6.3f s  %9d messages/s (%s lines out)" % (ours, n / ours, sys.argv[3]))
print("ndeflib: %6.3f s  %9d messages/s (%s lines out)" % (theirs, n / theirs, sys.argv[4]))
print("ratio:   %.1fx (goal: at least 12x)" % (theirs / ours))
PY
}

"$py" scripts/bench_ndeflib.py generate "${BENCH_LINES:-200000}" > "$work/messages.hex"
codec small "$work/messages.hex"
"$py" scripts/bench_ndeflib.py generate-kinds "${BENCH_KINDS_LINES:-100000}" > "$work/kinds.hex"
codec kinds "$work/kinds.hex"
"$py" scripts/bench_ndeflib.py generate-mixed "${BENCH_MIXED_LINES:-100000}" > "$work/mixed.hex"
codec mixed "$work/mixed.hex"

echo
echo "== cold start: nfctag --version vs ndeftool --version"
hyperfine --style none -N --warmup 5 --runs "${BENCH_START_RUNS:-200}" --export-json "$work/start.json" \
  -n nfctag "$bin/nfctag --version" -n ndeftool "$work/venv/bin/ndeftool --version" >/dev/null 2>"$work/hyperfine.log"
python3 - "$work/start.json" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
ours, theirs = results["nfctag"]["median"], results["ndeftool"]["median"]
print("nfctag:   %6.2f ms (median)" % (ours * 1000))
print("ndeftool: %6.2f ms (median)" % (theirs * 1000))
print("ratio:    %.1fx (goal: at least 20x)" % (theirs / ours))
PY
# The binaries are static (the Swift runtime and Foundation would be inside, not in ldd's list):
# nfctag's own symbols say whether Foundation, ICU, SwiftNIO or BoringSSL came in. provision and
# ledger run in nfctag-provision, which holds them (nfctag execs it for those two commands).
foreign=$(nm --defined-only "$bin/nfctag" | grep -E -m 3 '\$s10Foundation|ucal_open|7NIOCore|CCryptoBoringSSL|9SQLiteNIO' || true)
if [ -n "$foreign" ]; then
  echo "nfctag holds Foundation, ICU, SwiftNIO or BoringSSL code (nm):"; echo "$foreign"
else
  echo "nfctag: $(( $(stat -c %s "$bin/nfctag") / 1000000 )) MB, no Foundation, ICU, SwiftNIO or BoringSSL (nm);" \
    "libraries loaded: $(ldd "$bin/nfctag" | awk '{print $1}' | grep -v -e vdso -e ld-linux | tr '\n' ' ')"
fi
echo "nfctag-provision (provision, ledger; exec'd by nfctag): $(( $(stat -c %s "$bin/nfctag-provision") / 1000000 )) MB"

# The shared ledger: stations as concurrent connections (threads) on one throw-away PostgreSQL.
echo
echo "== PostgreSQL ledger: ${BENCH_PG_STATIONS:-8} stations claim and finish ${BENCH_PG_ROWS:-5000} rows (Benchmarks/PostgresLedgerBench, a throw-away cluster; goal: >= 200 per second)"
scripts/with-postgres.sh "$bin/PostgresLedgerBench" "${BENCH_PG_ROWS:-5000}" "${BENCH_PG_STATIONS:-8}"
