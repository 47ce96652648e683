#!/usr/bin/env bash
# Repeats, after a long test run, what failed and why, so that the end of the output (all that a
# CI page may keep) names it: the Swift Testing and XCTest failure lines and any sanitizer report.
# Usage: scripts/test-summary.sh LOG
set -euo pipefail
log=${1:?usage: scripts/test-summary.sh LOG}
[ -f "$log" ] || exit 0
# A Swift Testing issue's details follow it on lines that start with "↳".
failures=$(grep -a -E -A4 '^✘ Test .*recorded an issue|: error: .*XCTAssert|^Test Case .* failed|Fatal error|WARNING: ThreadSanitizer|SUMMARY: ThreadSanitizer' "$log" \
  | grep -a -E '^✘ Test .*recorded an issue|^↳|: error: |^Test Case .* failed|Fatal error|ThreadSanitizer' | head -n 60 || true)
[ -n "$failures" ] || exit 0
echo
echo "== what failed ($log)"
echo "$failures" | cut -c1-400
