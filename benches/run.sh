#!/usr/bin/env bash
# The benchmarks whose figures the issues ask for, measured side by side in one run:
#   1. analysis time on the machine's scripts concatenated to 1,000 / 10,000 / 100,000 lines
#      (cargo bench --bench analysis);
#   2. start-up: `sandbox-bash -c true` against `bash -c true` (and `--sandbox-explain -c true`),
#      hyperfine medians over RUNS runs each, side by side, in ROUNDS rounds, and the median of
#      the rounds' ratios, for the static build that is shipped (the C library linked in) and
#      the default dynamic build;
#   3. peak memory (maximum resident set) of `--sandbox-explain` on the 10,000-line script,
#      next to bash's own `-n` on it.
# Needs hyperfine (Debian package `hyperfine`) and GNU time (`/usr/bin/time`).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-200}"
ROUNDS="${ROUNDS:-10}"
out=target/bench
mkdir -p "$out"

for tool in hyperfine /usr/bin/time python3; do
  command -v "$tool" >/dev/null || { echo "benches/run.sh: $tool is not installed" >&2; exit 1; }
done

arch="$(uname -m)"
gnu_target="$arch-unknown-linux-gnu"
cargo build --release -q
dynamic="$PWD/target/release/sandbox-bash"
# The static build is the one shipped (the C library linked in; see .ci/run).
RUSTFLAGS="-C target-feature=+crt-static" cargo build --release -q --target "$gnu_target"
bin="$PWD/target/$gnu_target/release/sandbox-bash"
echo "measuring the static build; the default dynamic build is measured next to it"
bash_path="$(command -v bash)"

# Start-up is measured on installed copies, as users run the program. The copy matters: the
# linker writes the binary in small pieces, which leaves it in the page cache in 4 KiB pages, and
# every start then faults its pages in one by one (about 80 µs more per start here); `install`
# writes it in large pieces, as a package manager does, and a binary read back from disk comes in
# large pieces too.
installed="$PWD/$out/installed"
mkdir -p "$installed"
install -m 755 "$bin" "$installed/sandbox-bash"
install -m 755 "$dynamic" "$installed/sandbox-bash-dynamic"

echo "== analysis time (cargo bench --bench analysis)"
SANDBOX_BENCH_WRITE="$PWD/$out" cargo bench -q --bench analysis 2>/dev/null | grep -v '^$'

echo
echo "== start-up ($ROUNDS rounds of hyperfine, $RUNS runs of each command per round, medians side by side)"
# hyperfine runs all runs of one command, then the next: on a shared machine whose speed drifts,
# one round can favour either side. Several rounds, each side by side, and the median of their
# ratios, say how steady the figure is.
commands=("$installed/sandbox-bash -c true" "$bash_path -c true" "$installed/sandbox-bash --sandbox-explain -c true")
if [ "$bin" != "$dynamic" ]; then
  commands+=("$installed/sandbox-bash-dynamic -c true")
fi
for round in $(seq "$ROUNDS"); do
  hyperfine -N --warmup 30 --runs "$RUNS" --style none --export-json "$out/startup-$round.json" "${commands[@]}" \
    >/dev/null 2>&1
done
python3 - "$out" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
names = ["sandbox-bash -c true", "bash -c true", "sandbox-bash --sandbox-explain -c true", "dynamic build -c true"]
ratios = {0: [], 2: [], 3: []}
for r in range(1, rounds + 1):
    results = json.load(open(f"{out}/startup-{r}.json"))["results"]
    med = [x["median"] for x in results]
    shown = "  ".join(f"{m * 1000:.3f} ms {n}" for m, n in zip(med, names))
    print(f"  round {r}: {shown}")
    for i in ratios:
        if i < len(med):
            ratios[i].append(med[i] / med[1])
for i, label in [(0, "sandbox-bash -c true"), (2, "--sandbox-explain -c true"), (3, "dynamic build -c true")]:
    if ratios[i]:
        each = ", ".join(f"{x:.2f}x" for x in ratios[i])
        print(f"  ratio {label} / bash -c true: median {statistics.median(ratios[i]):.2f}x (rounds: {each})")
PY

echo
echo "== peak memory (maximum resident set size)"
script="$out/script-10000.sh"
for cmd in "$bin --sandbox-explain $script" "$bin --sandbox-explain --sandbox-json $script" "$bash_path -n $script" "$installed/sandbox-bash --sandbox-explain -c true" "$installed/sandbox-bash -c true" "$bash_path -c true"; do
  /usr/bin/time -f '%M' -o "$out/rss.txt" $cmd >/dev/null 2>&1 || true
  printf '  %8s KiB  %s\n' "$(tail -1 "$out/rss.txt")" "${cmd//$PWD\//}"
done
