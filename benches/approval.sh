#!/usr/bin/env bash
# The time from a request to the run when a listener answers at once, beside the same program
# run with the wider mode set, side by side in one hyperfine run (medians, 50 runs each).
#
# Usage: benches/approval.sh [SANDBOX_BASH]   (default target/release/sandbox-bash)
# Needs hyperfine and python3. Works in a directory of its own under target/ (not /tmp).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
sb="$(realpath "${1:-$root/target/release/sandbox-bash}")"
lab="$root/target/bench-approval"
rm -rf "$lab" && mkdir -p "$lab/ws" "$lab/home" "$lab/outside"
cd "$lab/ws" && git init -q .
export HOME="$lab/home" SANDBOX_BASH_WORKSPACE="$lab/ws"
unset BASH_AGENT_BASH_MODE SANDBOX_BASH_ENFORCED
# A person who answers at once: allow-once for every request.
python3 "$root/tests/clients/approve.py" "$sb" > "$lab/approvals.out" 2>&1 &
approver=$!
trap 'pkill -P $approver 2>/dev/null; kill $approver 2>/dev/null' EXIT
for _ in $(seq 100); do grep -q listening "$lab/approvals.out" 2> /dev/null && break; sleep 0.05; done
program="touch $lab/outside/granted.txt"
request="# sandbox-bash: request 0667 because the bench writes outside
$program"
hyperfine -N -i --warmup 3 --runs 50 --export-json "$lab/result.json" \
  -n "request, answered at once (0467 -> 0667)" "$sb -c '$request'" \
  -n "the wider mode set (0667)" "env BASH_AGENT_BASH_MODE=0667 $sb -c '$program'" \
  -n "denied (0467, the hint)" "$sb -c '$program'"
python3 - "$lab/result.json" << 'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
base = r[1]["median"]
for x in r:
    print("%-45s median %7.2f ms  (x%.2f of the wider mode set)" % (x["command"], x["median"] * 1000, x["median"] / base))
PY
