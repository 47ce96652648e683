#!/usr/bin/env python3
"""Provisioning benchmarks (one station's speed, throughput as readers are added), through the real
binary and the in-process tag feeder (`--reader sim:ntag213+feed=N,...`), with a SQLite ledger
on disk:

- per tag, one reader: APDUs (detection, reads, writes, verify and feedback), the tool's own time
  (latency none: everything but the reader, ledger commits included) and the modelled reader time
  (the ACR122U latency model's time: the same run with latency=acr122u, minus the tool's time);
- throughput with 1, 2 and 4 readers under the ACR122U latency model, all drawing rows from one
  ledger: tags per minute, and the speed-up over one reader (goal: 2 readers >= 1.9x).

Usage: bench-provision.py NFCTAG_BINARY
"""
import json, os, statistics, subprocess, sys, tempfile, time

binary = sys.argv[1]

runs = 0

def run(rows, readers, latency, workdir):
    global runs
    runs += 1
    ledger = os.path.join(workdir, f"ledger-{runs}.sqlite")
    args = [binary, "provision", "--count", str(rows), "--url", "https://example.com/t/{n:06}?u={uid}",
            "--ledger", ledger, "--json", "--timeout", "5"]
    per_reader = (rows + readers - 1) // readers + 2
    for i in range(readers):
        images = os.path.join(workdir, f"img-{runs}-{i}")
        args += ["--reader", f"sim:ntag213+feed={per_reader},seed={100 + i},images={images},latency={latency},hand-ms=2000"]
    start = time.monotonic()
    out = subprocess.run(args, capture_output=True, text=True)
    wall = time.monotonic() - start
    events = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    tags = [e for e in events if e.get("event") == "tag"]
    done = [e for e in tags if e["status"] == "done"]
    if out.returncode != 0 or len(done) != rows:
        sys.exit(f"provision failed ({out.returncode}, {len(done)} of {rows} done): {out.stderr.strip()}")
    return done, wall

with tempfile.TemporaryDirectory(dir=os.environ.get("BENCH_DIR")) as workdir:
    fast, _ = run(200, 1, "none", workdir)
    slow, _ = run(60, 1, "acr122u", workdir)
    apdus = statistics.median(e["apdus"] for e in fast[1:])
    tool = statistics.median(e["ms"] for e in fast[1:])
    tool_p90 = sorted(e["ms"] for e in fast[1:])[int(0.9 * (len(fast) - 1))]
    modelled = statistics.median(e["ms"] for e in slow[1:]) - tool
    print(f"per tag (NTAG213, 26-byte URL + UID, 1 reader, after the first): {apdus:.0f} APDUs; "
          f"tool time median {tool:.1f} ms, p90 {tool_p90:.1f} ms (goal <= 5 ms); modelled ACR122U time {modelled:.0f} ms")
    base = None
    for readers in (1, 2, 4):
        rows = 60 * readers
        done, wall = run(rows, readers, "acr122u", workdir)
        rate = rows / wall * 60
        base = base or rate
        print(f"{readers} reader{'s' if readers > 1 else ' '} (ACR122U model, one SQLite ledger): "
              f"{rate:6.0f} tags/min  ({rate / base:.2f}x one reader)")
