#!/usr/bin/env bash
# The benchmarks whose figures the issues ask for, measured side by side in one run:
#   1. analysis time on the machine's scripts concatenated to 1,000 / 10,000 / 100,000 lines
#      (cargo bench --bench analysis);
#   2. start-up: `sandbox-bash -c true` against `bash -c true` (and `--sandbox-explain -c true`),
#      hyperfine medians over RUNS runs each, and their ratio, for the static build that is
#      shipped (musl, when its target is installed) and the default dynamic build;
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

arch="$(uname -m)"
musl_target="$arch-unknown-linux-musl"
cargo build --release -q
dynamic="$PWD/target/release/sandbox-bash"
if rustup target list --installed 2>/dev/null | grep -qx "$musl_target"; then
  cargo build --release -q --target "$musl_target"
  bin="$PWD/target/$musl_target/release/sandbox-bash"
  echo "measuring the static build ($musl_target); the default dynamic build is measured next to it"
else
  bin="$dynamic"
  echo "NOTE: the $musl_target target is not installed (rustup target add $musl_target);"
  echo "      measuring the default dynamic build only, which starts slower"
fi
bash_path="$(command -v bash)"

echo "== analysis time (cargo bench --bench analysis)"
SANDBOX_BENCH_WRITE="$PWD/$out" cargo bench -q --bench analysis 2>/dev/null | grep -v '^$'

echo
echo "== start-up ($RUNS runs each, medians, side by side)"
commands=("$bin -c true" "$bash_path -c true" "$bin --sandbox-explain -c true")
if [ "$bin" != "$dynamic" ]; then
  commands+=("$dynamic -c true")
fi
hyperfine -N --warmup 30 --runs "$RUNS" --style none --export-json "$out/startup.json" "${commands[@]}" >/dev/null
python3 - "$out/startup.json" <<'PY'
import json, sys
results = json.load(open(sys.argv[1]))["results"]
med = [r["median"] for r in results]
for r in results:
    print(f"  {r['median']*1000:8.3f} ms  {r['command']}")
print(f"  ratio sandbox-bash -c true / bash -c true: {med[0] / med[1]:.2f}x")
print(f"  ratio --sandbox-explain -c true / bash -c true: {med[2] / med[1]:.2f}x")
if len(med) > 3:
    print(f"  ratio dynamic build -c true / bash -c true: {med[3] / med[1]:.2f}x")
PY

echo
echo "== peak memory (maximum resident set size)"
script="$out/script-10000.sh"
for cmd in "$bin --sandbox-explain $script" "$bin --sandbox-explain --sandbox-json $script" "$bash_path -n $script" "$bin --sandbox-explain -c true" "$bin -c true" "$bash_path -c true"; do
  /usr/bin/time -f '%M' -o "$out/rss.txt" $cmd >/dev/null 2>&1 || true
  printf '  %8s KiB  %s\n' "$(tail -1 "$out/rss.txt")" "${cmd//$PWD\//}"
done
