#!/usr/bin/env bash
# timed.sh NAME COMMAND...: runs the command and, when NFCTAG_TIMES names a file (.ci/run sets it),
# appends the command's wall time and the CPU time it and its children used (user + system) to it
# as one line, so that CI's summary shows the parts of a step (build, tests, package) and what
# each costs the machine's two cores. Exits with the command's status.
name=$1
shift
start=$SECONDS
"$@"
code=$?
if [ -n "${NFCTAG_TIMES:-}" ]; then
  # `times`' second line: the children's user and system time, as 1m2.345s 0m0.678s.
  # (`times` in this shell: in a pipeline or $(…) it would time the subshell.)
  scratch=$(mktemp)
  times > "$scratch"
  cpu=$(tail -n 1 "$scratch" | awk '{ s = 0; for (i = 1; i <= 2; i++) { split($i, p, "m"); s += p[1] * 60 + p[2] } printf "%d", s }')
  rm -f "$scratch"
  printf '  %-12s %5d s  (%d s CPU)\n' "$name" $((SECONDS - start)) "$cpu" >> "$NFCTAG_TIMES"
fi
exit $code
