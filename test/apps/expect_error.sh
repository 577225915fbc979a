#!/usr/bin/env bash
# Runs a command that must fail on bad input: exit code 1 and exactly one line on stderr,
# "APP: error: ...", containing the extended regular expression PATTERN; and no output left behind:
# each --absent FILE does not exist afterwards (it is removed before the run), each --unchanged FILE
# (a pre-existing output, or an input the command was told to overwrite) has the same bytes as
# before, and no partial output (.NAME.partial-*, see cbct::AtomicOutput) remains beside either.
# Usage: expect_error.sh APP PATTERN [--absent FILE]... [--unchanged FILE]... [--] COMMAND [ARGUMENTS...]
set -u
app=$1
pattern=$2
shift 2
absent=()
unchanged=()
while [ $# -gt 0 ]; do
  case $1 in
    --absent) absent+=("$2"); shift 2 ;;
    --unchanged) unchanged+=("$2"); shift 2 ;;
    --) shift; break ;;
    *) break ;;
  esac
done
stderr_file=$(mktemp)
saved=$(mktemp -d)
trap 'rm -rf "$stderr_file" "$saved"' EXIT
# An output spelled otherwise than a file to keep (../dir/p.mha, a hard link to p.mha) is that file:
# it is kept, not removed.
kept_absent=()
for file in "${absent[@]}"; do
  same=0
  for keep in "${unchanged[@]}"; do
    if [ "$file" -ef "$keep" ]; then
      same=1
    fi
  done
  if [ $same -eq 0 ]; then
    rm -f "$file"
    kept_absent+=("$file")
  fi
done
absent=("${kept_absent[@]}")
for i in "${!unchanged[@]}"; do
  if [ ! -f "${unchanged[$i]}" ]; then
    echo "FAIL: --unchanged ${unchanged[$i]} does not exist before the run (the test's set-up should make it)"
    exit 1
  fi
  cp -p "${unchanged[$i]}" "$saved/$i"
done
"$@" >/dev/null 2>"$stderr_file"
rc=$?
message=$(cat "$stderr_file")
lines=$(wc -l <"$stderr_file")
echo "command: $*"
echo "exit code: $rc"
echo "stderr: $message"
fail=0
if [ "$rc" -ne 1 ]; then
  echo "FAIL: expected exit code 1, got $rc"
  fail=1
fi
if [ "$lines" -ne 1 ]; then
  echo "FAIL: expected one line on stderr, got $lines"
  fail=1
fi
if ! grep -q "^$app: error: " "$stderr_file"; then
  echo "FAIL: stderr does not start with '$app: error: '"
  fail=1
fi
if ! grep -Eq -- "$pattern" "$stderr_file"; then
  echo "FAIL: stderr does not match: $pattern"
  fail=1
fi
for file in "${absent[@]}"; do
  if [ -e "$file" ]; then
    echo "FAIL: output $file exists after a failed run"
    fail=1
  fi
done
for i in "${!unchanged[@]}"; do
  if ! cmp -s "$saved/$i" "${unchanged[$i]}"; then
    echo "FAIL: ${unchanged[$i]} changed in a failed run"
    fail=1
  fi
done
for file in "${absent[@]}" "${unchanged[@]}"; do
  directory=$(dirname "$file")
  name=$(basename "$file")
  for partial in "$directory/.$name.partial-"*; do
    if [ -e "$partial" ]; then
      echo "FAIL: a partial output remains: $partial"
      fail=1
    fi
  done
done
if [ "$fail" -eq 0 ]; then
  echo "ok: exit code 1, one line naming what was expected${absent:+, no output}${unchanged:+, files unchanged}"
fi
exit $fail
