#!/usr/bin/env bash
# The analysis a library costs every call that sources it: nvm.sh (tests/corpus/nvm, 4,960
# lines) sourced by a one-line program, side by side with bash reading it (`bash -n`) and bash
# running the same line, ROUNDS hyperfine runs of RUNS runs each (`--sandbox-explain`: the
# analysis alone, nothing run). sandbox-bash is measured twice: walking the library (a line no
# earlier run kept: it ends with a comment new to this bench run, and explaining keeps nothing)
# and taking the analysis an earlier run kept (one run of the line first). The goal is 20 ms.
#
#   RUNS=20 ROUNDS=3 benches/sourced.sh
#   SANDBOX_BASH=path benches/sourced.sh   # a given build instead of this work tree's
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS="${RUNS:-20}"
ROUNDS="${ROUNDS:-3}"
out="$PWD/target/bench/sourced"
mkdir -p "$out"
command -v hyperfine >/dev/null || { echo "benches/sourced.sh: hyperfine is not installed" >&2; exit 1; }
if [ -n "${SANDBOX_BASH:-}" ]; then
  sb="$SANDBOX_BASH"
else
  cargo build --release -q
  sb="$PWD/target/release/sandbox-bash"
fi
cd tests/corpus/nvm
unset BASH_AGENT_BASH_MODE SANDBOX_BASH_ENFORCED
export SANDBOX_BASH_WORKSPACE="$PWD" NVM_DIR="$PWD"
line='source ./nvm.sh --no-use; nvm --version'
walked="$line # $$-$(date +%s%N)"
# The run keeps its analysis (it is denied: nvm --version asks more than 0467 gives).
"$sb" -c "$line" >/dev/null 2>&1 || true
for round in $(seq "$ROUNDS"); do
  # --sandbox-explain exits 126 when it would deny.
  hyperfine -N -i --warmup 3 --runs "$RUNS" --style none --export-json "$out/round-$round.json" \
    "bash -n nvm.sh" "bash -c '$line'" "$sb --sandbox-explain -c '$walked'" "$sb --sandbox-explain -c '$line'" >/dev/null
done
python3 - "$out" "$ROUNDS" <<'PY'
import json, statistics, sys
out, rounds = sys.argv[1], int(sys.argv[2])
names = ["bash -n nvm.sh", "bash running the line", "sandbox-bash, walked", "sandbox-bash, kept"]
rows = [[x["median"] * 1000 for x in json.load(open(f"{out}/round-{r}.json"))["results"]] for r in range(1, rounds + 1)]
for i, n in enumerate(names):
    print(f"  {n:32} " + "  ".join(f"{row[i]:8.1f}" for row in rows) + f"   median {statistics.median(r[i] for r in rows):.1f} ms")
for i, what in [(2, "walked"), (3, "kept")]:
    rs = [row[i] / row[0] for row in rows]
    print(f"  sandbox-bash {what} / bash -n: {statistics.median(rs):.2f}x (rounds {min(rs):.2f} to {max(rs):.2f})")
PY
