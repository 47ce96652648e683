#!/usr/bin/env bash
# timed.sh NAME COMMAND...: runs the command and, when NFCTAG_TIMES names a file (.ci/run sets it),
# appends the command's wall time to it as one line, so that CI's summary shows the parts of a
# step (build, tests, package). Exits with the command's status.
name=$1
shift
start=$SECONDS
"$@"
code=$?
if [ -n "${NFCTAG_TIMES:-}" ]; then
  printf '  %-12s %5d s\n' "$name" $((SECONDS - start)) >> "$NFCTAG_TIMES"
fi
exit $code
