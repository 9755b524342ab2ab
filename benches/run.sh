#!/usr/bin/env bash
# The benchmarks whose figures the issues ask for, measured side by side in one run:
#   1. analysis time on the machine's scripts concatenated to 1,000 / 10,000 / 100,000 lines
#      (cargo bench --bench analysis);
#   2. start-up: `sandbox-bash -c true` against `bash -c true` (and `--sandbox-explain -c true`),
#      hyperfine medians over RUNS runs each, and their ratio;
#   3. peak memory (maximum resident set) of `--sandbox-explain` on the 10,000-line script,
#      next to bash's own `-n` on it.
# Needs hyperfine (Debian package `hyperfine`) and GNU time (`/usr/bin/time`).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-300}"
out=target/bench
mkdir -p "$out"

for tool in hyperfine /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "benches/run.sh: $tool is not installed" >&2; exit 1; }
done

cargo build --release -q
bin="$PWD/target/release/sandbox-bash"
bash_path="$(command -v bash)"

echo "== analysis time (cargo bench --bench analysis)"
SANDBOX_BENCH_WRITE="$PWD/$out" cargo bench -q --bench analysis 2>/dev/null | grep -v '^$'

echo
echo "== start-up ($RUNS runs each, medians)"
hyperfine -N --warmup 30 --runs "$RUNS" --style none --export-json "$out/startup.json" \
  "$bin -c true" "$bash_path -c true" "$bin --sandbox-explain -c true" >/dev/null
python3 - "$out/startup.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
med = {r["command"]: r["median"] for r in results}
names = list(med)
for n in names:
    print(f"  {med[n]*1000:8.3f} ms  {n}")
ours, bash, explain = (med[n] for n in names)
print(f"  ratio sandbox-bash -c true / bash -c true: {ours / bash:.2f}x")
print(f"  ratio --sandbox-explain -c true / bash -c true: {explain / bash:.2f}x")
PY

echo
echo "== peak memory (maximum resident set size)"
script="$out/script-10000.sh"
for cmd in "$bin --sandbox-explain $script" "$bin --sandbox-explain --sandbox-json $script" "$bash_path -n $script" "$bin --sandbox-explain -c true" "$bash_path -c true"; do
  /usr/bin/time -f '%M' -o "$out/rss.txt" $cmd >/dev/null 2>&1 || true
  printf '  %8s KiB  %s\n' "$(tail -1 "$out/rss.txt")" "${cmd//$PWD\//}"
done
