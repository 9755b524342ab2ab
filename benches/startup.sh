#!/usr/bin/env bash
# Start-up of `-c true` as an agent's shell sees it, side by side in each hyperfine run:
#   bash                  /bin/bash -c true, the floor
#   C (4 rules)           benches/ns-baseline.c: mount and IPC namespaces, the tree read-only in
#                         one call, the workspace bound back, a Landlock ruleset of 4 rules
#   C (same kernel work)  benches/replay.c making again every kernel call one traced run of
#                         sandbox-bash made to lock itself (its Landlock rules, mounts, masks,
#                         capability drops, a seccomp filter as long), none of the planning
#   C (same kernel work, allowlist)  the same from a traced run with a network allowlist: its
#                         network namespace, loopback and listener, and a process started
#                         outside (the proxy) that takes the hand-over
#   sandbox-bash          the static build, default mode, with the listings kept by earlier runs
#   sandbox-bash (none kept)  the same with the store removed before every run (the store is
#                         below the account's home: ~/.local/state/sandbox-bash/facts/listings)
#   sandbox-bash (allowlist)  the same with SANDBOX_BASH_NETWORK_ALLOW (the network namespace
#                         and the proxy)
# Then, inside a sandbox-bash run (a nested level, as make's recipes and test suites start
# bash): `bash -c true` against `sandbox-bash -c true`.
#
# The workspace is a git repository under target/bench/startup (not /tmp), the home a directory
# beside it with the usual dot-files (shell start-up files, git and ssh settings, a key, cloud
# credentials, package caches, the state directories of agents). ROUNDS hyperfine runs of RUNS
# runs each; medians per round, their median, and the per-round ratios.
#
#   RUNS=200 ROUNDS=3 benches/startup.sh
#   SANDBOX_BASH_STATIC=path benches/startup.sh   # a given build instead of this work tree's
#
# Needs hyperfine, cc, python3 and strace (the replay row is built from a trace).
set -euo pipefail
cd "$(dirname "$0")/.."
root_dir="$PWD"
RUNS="${RUNS:-200}"
ROUNDS="${ROUNDS:-3}"
out="$root_dir/target/bench/startup"
for tool in hyperfine cc python3 strace; do
  command -v "$tool" >/dev/null || { echo "benches/startup.sh: $tool is not installed" >&2; exit 1; }
done
mkdir -p "$out"

if [ -n "${SANDBOX_BASH_STATIC:-}" ]; then
  build="$SANDBOX_BASH_STATIC"
else
  target="$(uname -m)-unknown-linux-gnu"
  RUSTFLAGS="-C target-feature=+crt-static" cargo build --release -q --target "$target"
  build="target/$target/release/sandbox-bash"
fi
# An installed copy, as users run it (see benches/run.sh on why the copy matters).
install -m 755 "$build" "$out/sandbox-bash"
sb="$out/sandbox-bash"
cc -O2 -Wall -o "$out/ns-baseline" benches/ns-baseline.c
cc -O2 -Wall -o "$out/replay" benches/replay.c
# The floor of any program that starts bash in its place, and of any program at all: static C
# programs that exec bash and that return at once (run inside the run below, from the workspace,
# where the default mode lets programs run).
printf '#include <unistd.h>\nint main(int c, char **v) { (void)c; execv("/bin/bash", v); return 127; }\n' >"$out/floor-exec.c"
printf 'int main(void) { return 0; }\n' >"$out/floor-return.c"
cc -O2 -static -o "$out/floor-exec" "$out/floor-exec.c"
cc -O2 -static -o "$out/floor-return" "$out/floor-return.c"

# -- the fixture ---------------------------------------------------------------------------
ws="$out/ws"
home="$out/home"
if [ ! -d "$ws/.git" ]; then
  rm -rf "$ws" "$home"
  mkdir -p "$ws/src" "$home"
  git -C "$ws" init -q
  printf 'fn main() {}\n' >"$ws/src/main.rs"
  printf '[package]\nname = "w"\n' >"$ws/Cargo.toml"
  printf 'node_modules\n' >"$ws/.gitignore"
  git -C "$ws" add -A
  git -C "$ws" -c user.name=b -c user.email=b@b commit -qm init
  (
    cd "$home"
    mkdir -p .ssh .aws .config/git .config/gh .cache/pip .npm/_cacache .cargo/bin .cargo/registry \
      .local/bin .local/share .claude .docker
    printf '# bashrc\n' >.bashrc
    printf '# profile\n' >.profile
    printf '[user]\n\tname = b\n' >.gitconfig
    printf 'KEY\n' >.ssh/id_ed25519
    printf 'Host *\n' >.ssh/config
    printf 'host key\n' >.ssh/known_hosts
    printf '[default]\n' >.aws/credentials
    printf 'github.com:\n' >.config/gh/hosts.yml
    printf '{}\n' >.docker/config.json
    printf 'ls\n' >.bash_history
  )
fi
unset BASH_AGENT_BASH_MODE SANDBOX_BASH_ENFORCED SANDBOX_BASH_NETWORK_ALLOW XDG_STATE_HOME XDG_CONFIG_HOME
export HOME="$home" SANDBOX_BASH_WORKSPACE="$ws"
# The listings are kept below the account's own home (from /etc/passwd), whatever HOME says.
account_home="$(getent passwd "$(id -u)" | cut -d: -f6)"
store="$account_home/.local/state/sandbox-bash/facts/listings"
cd "$ws"
# Listings are kept only two seconds after their directory's last change.
sleep 2.5
"$sb" -c true
"$sb" -c true
[ -s "$store" ] || { echo "benches/startup.sh: no listings were kept ($store)" >&2; exit 1; }

# The replay's list of calls, from a trace of one run.
strace -X raw -s 4096 -o "$out/trace.txt" "$sb" -c true
python3 "$root_dir/benches/replay-ops.py" "$out/trace.txt" >"$out/ops.txt"
"$out/replay" "$out/ops.txt" /bin/bash -c true || { echo "benches/startup.sh: the replay fails" >&2; exit 1; }
strace -X raw -s 4096 -o "$out/trace-net.txt" env SANDBOX_BASH_NETWORK_ALLOW=127.0.0.2 "$sb" -c true
python3 "$root_dir/benches/replay-ops.py" "$out/trace-net.txt" >"$out/ops-net.txt"
"$out/replay" "$out/ops-net.txt" /bin/bash -c true || { echo "benches/startup.sh: the allowlist's replay fails" >&2; exit 1; }

names=("bash" "C (4 rules)" "C (same kernel work)" "sandbox-bash" "sandbox-bash (none kept)"
  "C (same kernel work, allowlist)" "sandbox-bash (allowlist)")
cmds=(
  "/bin/bash -c true"
  "$out/ns-baseline $ws /bin/bash -c true"
  "$out/replay $out/ops.txt /bin/bash -c true"
  "$sb -c true"
  "$sb -c true"
)
# The allowlist's pair runs in its own hyperfine call with the variable in hyperfine's own
# environment: a row started as `env VAR=… sandbox-bash` would also time env's own start (about
# 0.9 ms of loader and locale work) against a replay that has none.
net_cmds=(
  "$out/replay $out/ops-net.txt /bin/bash -c true"
  "$sb -c true"
)
for c in "${cmds[@]}"; do
  # shellcheck disable=SC2086
  $c || { echo "benches/startup.sh: fails: $c" >&2; exit 1; }
done
for c in "${net_cmds[@]}"; do
  # shellcheck disable=SC2086
  SANDBOX_BASH_NETWORK_ALLOW=127.0.0.2 $c || { echo "benches/startup.sh: fails with an allowlist: $c" >&2; exit 1; }
done

echo "== start-up: $ROUNDS rounds, $RUNS runs of each row per round ($(nproc) cores, Linux $(uname -r))"
for round in $(seq "$ROUNDS"); do
  args=()
  for i in "${!cmds[@]}"; do
    if [ "${names[$i]}" = "sandbox-bash (none kept)" ]; then
      args+=(--prepare "rm -f $store" "${cmds[$i]}")
    else
      args+=(--prepare "true" "${cmds[$i]}")
    fi
  done
  hyperfine -N --warmup 20 --runs "$RUNS" --style none --export-json "$out/round-$round.json" "${args[@]}" >/dev/null
  SANDBOX_BASH_NETWORK_ALLOW=127.0.0.2 hyperfine -N --warmup 20 --runs "$RUNS" --style none \
    --export-json "$out/round-net-$round.json" "${net_cmds[@]}" >/dev/null
  # The store as the rows after the cold one found it: written again by the next run.
  "$sb" -c true
done

# -- nested: inside a sandbox-bash run ------------------------------------------------------
# The inner level is the same program (as make's SHELL or a test suite's bash would be): with
# the run's own inputs it adds no layer of its own (see ARCHITECTURE.md).
# Beside them, the floors: a static C program that execs bash, one that returns at once,
# sandbox-bash's own work with no bash after it (`--sandbox-explain -c true`), and it printing
# its version (`--sandbox-version`: about what the binary's start costs before any of its work;
# a nested level pays it and bash's start whatever work it leaves out).
install -m 755 "$out/floor-exec" "$out/floor-return" "$ws/"
for round in $(seq "$ROUNDS"); do
  "$sb" -c "hyperfine -N --warmup 20 --runs $RUNS --style none --export-json nested-$round.json \
    '/bin/bash -c true' '$sb -c true' './floor-exec -c true' './floor-return' '$sb --sandbox-explain -c true' \
    '$sb --sandbox-version' >/dev/null"
  mv "$ws/nested-$round.json" "$out/nested-$round.json"
done
rm -f "$ws/floor-exec" "$ws/floor-return"

python3 - "$out" "$ROUNDS" "${names[@]}" <<'PY'
import json, statistics, sys
out, rounds, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
med = statistics.median
rows = [[x["median"] * 1000 for x in json.load(open(f"{out}/round-{r}.json"))["results"]
         + json.load(open(f"{out}/round-net-{r}.json"))["results"]] for r in range(1, rounds + 1)]
w = max(len(n) for n in names)
print(f"  {'':{w}}  " + "  ".join(f"{'round ' + str(r):>8}" for r in range(1, rounds + 1)) + "    median (ms)")
for i, n in enumerate(names):
    each = [row[i] for row in rows]
    print(f"  {n:{w}}  " + "  ".join(f"{x:8.3f}" for x in each) + f"  {med(each):8.3f}")
idx = {n: i for i, n in enumerate(names)}
def ratio(a, b):
    rs = [row[idx[a]] / row[idx[b]] for row in rows]
    return f"{med(rs):.2f}x (rounds {min(rs):.2f} to {max(rs):.2f})"
for a, b in [("sandbox-bash", "C (same kernel work)"), ("sandbox-bash", "C (4 rules)"), ("sandbox-bash", "bash"),
             ("sandbox-bash (none kept)", "sandbox-bash"), ("sandbox-bash (allowlist)", "C (same kernel work, allowlist)"),
             ("sandbox-bash (allowlist)", "sandbox-bash"), ("C (same kernel work)", "C (4 rules)")]:
    print(f"  {a} / {b}: {ratio(a, b)}")
nested = [[x["median"] * 1000 for x in json.load(open(f"{out}/nested-{r}.json"))["results"]] for r in range(1, rounds + 1)]
print("  nested, inside a sandbox-bash run: bash " + ", ".join(f"{r[0]:.3f}" for r in nested)
      + " ms; sandbox-bash " + ", ".join(f"{r[1]:.3f}" for r in nested) + " ms")
rs = [r[1] / r[0] for r in nested]
print(f"  nested sandbox-bash / bash: {med(rs):.2f}x (rounds {min(rs):.2f} to {max(rs):.2f})")
# What a nested level adds, and what the run's watch adds to every process (bash there against
# bash outside, in the same round).
ds = [r[1] - r[0] for r in nested]
print(f"  nested sandbox-bash - bash: {med(ds):.3f} ms (rounds {min(ds):.3f} to {max(ds):.3f})")
ws_ = [n[0] / row[idx["bash"]] for n, row in zip(nested, rows)]
print(f"  bash inside the run / bash outside: {med(ws_):.2f}x (rounds {min(ws_):.2f} to {max(ws_):.2f})")
# The floors inside the run: what any program that starts bash in its place pays, and
# sandbox-bash's own process there (no bash after it).
for i, what in [(2, "C program exec'ing bash"), (3, "C program returning at once"), (4, "sandbox-bash --sandbox-explain -c true"),
                (5, "sandbox-bash --sandbox-version")]:
    ms = [r[i] for r in nested]
    rs = [r[i] / r[0] for r in nested]
    print(f"  inside the run, {what}: {med(ms):.3f} ms, {med(rs):.2f}x bash (rounds {min(rs):.2f} to {max(rs):.2f})")
PY
