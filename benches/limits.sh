#!/usr/bin/env bash
# Start-up with resource limits beside the same run without them, side by side in one
# hyperfine run (medians of 200 runs each): `-c true` at the default mode, a workspace with a git
# repository under target/ (not /tmp), a home of its own.
#
#   none      no limits: no keeper, nothing made
#   wall      a deadline: the keeper (and, as root, a group that holds the tree)
#   all       cpu, memory, pids, wall and file: the keeper and every group (as root)
#   disk      the keeper, asked before each access to the run's own mounts of scratch (root)
#
# Then the disk limit's cost to work in scratch: 2,000 writes of 4 KiB to a file in /tmp and
# 2,000 reads of it back, with and without it (medians of 30 runs each).
#
# Usage: benches/limits.sh [SANDBOX_BASH]   (default target/release/sandbox-bash)
# Needs hyperfine and python3.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sb="$(realpath "${1:-$root/target/release/sandbox-bash}")"
lab="$root/target/bench-limits"
rm -rf "$lab" && mkdir -p "$lab/ws" "$lab/home"
cd "$lab/ws" && git init -q .
export HOME="$lab/home" SANDBOX_BASH_WORKSPACE="$lab/ws"
unset BASH_AGENT_BASH_MODE SANDBOX_BASH_ENFORCED SANDBOX_BASH_LIMITS
# Every row starts through env, so that env's own start (about 0.9 ms) is in each of them alike.
hyperfine -N --warmup 20 --runs 200 --export-json "$lab/result.json" \
  -n "bash -c true" "env X=1 bash -c true" \
  -n "no limits" "env X=1 $sb -c true" \
  -n "wall=10m" "env SANDBOX_BASH_LIMITS=wall=10m $sb -c true" \
  -n "cpu,memory,pids,wall,file" "env SANDBOX_BASH_LIMITS=cpu=60s,memory=2G,pids=256,wall=10m,file=512M $sb -c true" \
  -n "disk=1G" "env SANDBOX_BASH_LIMITS=disk=1G $sb -c true"
summary() {
  python3 - "$1" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[1]["median"]
for x in r:
    print("%-28s median %7.2f ms  (x%.2f of the second)  stddev %.2f ms" % (x["command"], x["median"] * 1000, x["median"] / base, x["stddev"] * 1000))
PY
}
summary "$lab/result.json"
f="/tmp/sbx-bench-disk-$$"
work="dd if=/dev/zero of=$f bs=4k count=2000 2>/dev/null; dd if=$f of=/dev/null bs=4k 2>/dev/null; rm -f $f"
hyperfine -N --warmup 3 --runs 30 --export-json "$lab/work.json" \
  -n "bash: 2000 writes, 2000 reads" "env X=1 bash -c '$work'" \
  -n "no limits: the same" "env X=1 $sb -c '$work'" \
  -n "disk=1G: the same" "env SANDBOX_BASH_LIMITS=disk=1G $sb -c '$work'"
summary "$lab/work.json"
