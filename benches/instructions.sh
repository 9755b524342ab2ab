#!/usr/bin/env bash
# The analysis's work counted rather than timed: `benches/instructions.sh OLD NEW` runs each
# build's `--sandbox-explain` on the texts of compare.sh (10,000 lines in three layouts) and on
# nvm.sh sourced by one line, under callgrind, and prints the instructions each thread executed
# (the main thread; the walk; the parsing thread that runs ahead of it), beside `bash -n` on
# the same text.
#
# On a machine whose speed moves by a third within an hour, two builds a few percent apart
# cannot be told apart by time. The main thread's counts, and those of an analysis done on one
# thread (nvm.sh), are the same from run to run, so a change that does less work there shows as
# fewer instructions even then. The walk's and the parsing thread's move by up to 3% between
# runs of one build: the parsing thread splits words ahead only while the walk has pieces
# queued, which depends on how the two threads happen to take turns. Counts are not time: they
# leave out the kernel's work (page faults, system calls) and cache misses, and callgrind runs
# the threads one at a time, while the walk and the parsing thread overlap on two cores. A
# wall-clock comparison (compare.sh, interleave.py) still decides whether a change is faster.
#
# Needs valgrind and python3.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: benches/instructions.sh OLD NEW" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "benches/instructions.sh: valgrind is not installed" >&2; exit 1; }
cd "$(dirname "$0")/.."
root="$PWD"
TEXTS_ONLY=1 benches/compare.sh "$1" "$2"
out="$root/target/bench/compare"
counts="$root/target/bench/instructions"
rm -rf "$counts"
mkdir -p "$counts"
unset BASH_AGENT_BASH_MODE SANDBOX_BASH_ENFORCED

# One command under callgrind, a file of counts per thread: NAME-01 (main), -02, -03.
count() {
  local name="$1"
  shift
  valgrind --tool=callgrind --separate-threads=yes --callgrind-out-file="$counts/$name" "$@" \
    >/dev/null 2>"$counts/$name.log" || true
  ls "$counts/$name"-01 >/dev/null 2>&1 || { echo "benches/instructions.sh: no counts for $name (see $counts/$name.log)" >&2; exit 1; }
}

cases=()
for text in concat-10000 functions-10000 corpus-10000; do
  cases+=("$text")
  (
    cd "$out"
    count "$text.old" ./old --sandbox-explain "$text.sh"
    count "$text.new" ./new --sandbox-explain "$text.sh"
    count "$text.bash" bash -n "$text.sh"
  )
done
# nvm.sh sourced by one line (benches/sourced.sh): a comment new to this run, so nothing kept
# answers it.
(
  cd "$root/tests/corpus/nvm"
  export SANDBOX_BASH_WORKSPACE="$PWD" NVM_DIR="$PWD"
  line="source ./nvm.sh --no-use; nvm --version # $$-$(date +%s%N)"
  count "nvm.old" "$out/old" --sandbox-explain -c "$line"
  count "nvm.new" "$out/new" --sandbox-explain -c "$line"
  count "nvm.bash" bash -n nvm.sh
)
cases+=(nvm)

python3 - "$counts" "${cases[@]}" <<'PY'
import glob, sys
counts, cases = sys.argv[1], sys.argv[2:]

def threads(name):
    """Instructions per thread, main first (callgrind numbers them as they started)."""
    found = []
    for path in sorted(glob.glob(f"{counts}/{name}-[0-9][0-9]")):
        with open(path) as f:
            for line in f:
                if line.startswith("summary:"):
                    found.append(int(line.split()[1]))
                    break
    return found

def m(n):
    return f"{n / 1e6:8.1f}M"

print("== instructions (millions): total, main thread, walk, parsing thread; bash -n on the same text")
for case in cases:
    bash = sum(threads(f"{case}.bash"))
    old, new = threads(f"{case}.old"), threads(f"{case}.new")
    for label, t in (("old", old), ("new", new)):
        parts = "  ".join(m(x) for x in t)
        print(f"  {case:<16} {label}  total {m(sum(t))} ({sum(t) / bash:5.2f}x bash -n)   threads {parts}")
    print(f"  {case:<16} new/old total {sum(new) / sum(old):.3f}; bash -n {m(bash)}")
PY
