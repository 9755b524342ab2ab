#!/usr/bin/env bash
# Start-up of `-c true` through the namespace layer's kernel work, side by side:
#   bash                 /bin/bash -c true, the floor
#   C (glibc)            benches/ns-baseline.c built with `cc -O2`: unshare (mount+IPC, plus a user
#                        namespace without CAP_SYS_ADMIN), open_tree clones of W and /tmp, one
#                        recursive mount_setattr (read-only, private) on /, move_mount back,
#                        Landlock (4 rules), execve of /bin/bash
#   C (musl static)      the same program built with musl-gcc -static (when musl-gcc is there):
#                        the floor without glibc's start-up
#   bwrap                bubblewrap with the closest set of mounts that runs here
#   sandbox-bash static  the static build (the C library linked in), as shipped
#   sandbox-bash dynamic the default build
# Each round is one hyperfine run of all rows (-N, RUNS runs each, warmup), ROUNDS rounds, as root
# and as an unprivileged user (setpriv to NOBODY_USER:NOBODY_GROUP, hyperfine included). Then the
# C program's own clock for each of its steps (NS_BASELINE_TIMING=1), TIMING_RUNS runs per user.
#
#   RUNS=200 ROUNDS=5 WARMUP=30 TIMING_RUNS=200 USERS="root nobody" benches/ns-startup.sh
#   SANDBOX_BASH_STATIC=path SANDBOX_BASH_DYNAMIC=path benches/ns-startup.sh   # given builds
#   SANDBOX_BASH_BEFORE=path benches/ns-startup.sh   # one more build in the same runs (a row)
#
# Needs hyperfine, cc, python3, setpriv; installs bubblewrap (and musl-tools) with apt-get when
# they are missing and it can, and says so loudly when it cannot. Every command runs with its cwd
# in W (target/bench/ws, mode 0777 so that the unprivileged user can write it), with
# BASH_AGENT_BASH_MODE and SANDBOX_BASH_ENFORCED unset (the default mode 0467, not nested) and
# SANDBOX_BASH_WORKSPACE=W (sandbox-bash's workspace is then W, the C program's; otherwise it would
# be the top of this git work tree).
set -euo pipefail
cd "$(dirname "$0")/.."
root_dir="$PWD"
RUNS="${RUNS:-200}"
ROUNDS="${ROUNDS:-5}"
WARMUP="${WARMUP:-30}"
TIMING_RUNS="${TIMING_RUNS:-200}"
USERS="${USERS:-root nobody}"
NOBODY_USER="${NOBODY_USER:-nobody}"
NOBODY_GROUP="${NOBODY_GROUP:-nogroup}"

say() { printf '%s\n' "$*"; }
die() { printf 'ns-startup.sh: error: %s\n' "$*" >&2; exit 1; }
loud() {
  printf '\n' >&2
  printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n' >&2
  printf '!!! %s\n' "$@" >&2
  printf '!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n' >&2
}

[ "$(uname -s)" = Linux ] || die "Linux only"
for tool in hyperfine cc python3 setpriv; do
  command -v "$tool" >/dev/null || die "$tool is not installed (hyperfine: Debian package hyperfine)"
done

out="$root_dir/target/bench"
ws="$out/ws"
json="$out/ns-json"
installed="$out/ns-installed"
mkdir -p "$out" "$ws" "$json" "$installed"
# The unprivileged user writes W (the commands' cwd) and hyperfine's JSON files.
chmod 0777 "$ws" "$json"
rm -f "$json"/*.json

apt_install() { # PACKAGE: installs it when this is root and apt-get is there; 0 when it worked
  [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null || return 1
  say "installing $1 (apt-get install -y $1)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1" >"$out/apt-$1.log" 2>&1 && return 0
  # The package lists may be missing or stale.
  apt-get update -q >>"$out/apt-$1.log" 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$1" >>"$out/apt-$1.log" 2>&1
}

# -- builds ------------------------------------------------------------------------------------
say "== building"
cc -O2 -Wall -Wextra -o "$out/ns-baseline" benches/ns-baseline.c
say "  $out/ns-baseline (cc -O2, $(cc --version | head -1))"
command -v musl-gcc >/dev/null || apt_install musl-tools || true
have_musl_c=0
if command -v musl-gcc >/dev/null; then
  musl-gcc -O2 -static -Wall -Wextra -o "$out/ns-baseline-musl" benches/ns-baseline.c
  have_musl_c=1
  say "  $out/ns-baseline-musl (musl-gcc -O2 -static)"
else
  say "  NOTE: musl-gcc is not there (Debian package musl-tools): no C (musl static) row"
fi

# Start-up is measured on installed copies, as users run the program (see benches/run.sh: the
# file the linker writes sits in the page cache in 4 KiB pages, which costs every start).
# SANDBOX_BASH_DYNAMIC and SANDBOX_BASH_STATIC name builds to measure instead of building this
# work tree (another commit's, say); with one of them set, the other row is measured only if set.
have_static=0
have_dynamic=0
gnu_target="$(uname -m)-unknown-linux-gnu"
if [ -n "${SANDBOX_BASH_DYNAMIC:-}${SANDBOX_BASH_STATIC:-}" ]; then
  if [ -n "${SANDBOX_BASH_DYNAMIC:-}" ]; then
    [ -x "$SANDBOX_BASH_DYNAMIC" ] || die "SANDBOX_BASH_DYNAMIC=$SANDBOX_BASH_DYNAMIC is not a program"
    install -m 755 "$SANDBOX_BASH_DYNAMIC" "$installed/sandbox-bash-dynamic"
    have_dynamic=1
    say "  sandbox-bash default build: $SANDBOX_BASH_DYNAMIC (given), installed as $installed/sandbox-bash-dynamic"
  fi
  if [ -n "${SANDBOX_BASH_STATIC:-}" ]; then
    [ -x "$SANDBOX_BASH_STATIC" ] || die "SANDBOX_BASH_STATIC=$SANDBOX_BASH_STATIC is not a program"
    install -m 755 "$SANDBOX_BASH_STATIC" "$installed/sandbox-bash"
    have_static=1
    say "  sandbox-bash static build: $SANDBOX_BASH_STATIC (given), installed as $installed/sandbox-bash"
  fi
else
  command -v cargo >/dev/null || die "cargo is not installed (or give SANDBOX_BASH_STATIC/SANDBOX_BASH_DYNAMIC)"
  cargo build --release -q || die "cargo build --release failed"
  install -m 755 target/release/sandbox-bash "$installed/sandbox-bash-dynamic"
  have_dynamic=1
  say "  sandbox-bash default build: $installed/sandbox-bash-dynamic"
  RUSTFLAGS="-C target-feature=+crt-static" cargo build --release -q --target "$gnu_target" \
    || die "the static build (cargo build --release --target $gnu_target, +crt-static) failed"
  install -m 755 "target/$gnu_target/release/sandbox-bash" "$installed/sandbox-bash"
  have_static=1
  say "  sandbox-bash static build: $installed/sandbox-bash"
fi

have_bwrap=1
if ! command -v bwrap >/dev/null; then
  apt_install bubblewrap || true
  if ! command -v bwrap >/dev/null; then
    have_bwrap=0
    loud "bubblewrap (bwrap) is not installed and could not be installed" \
      "(apt-get install -y bubblewrap; see $out/apt-bubblewrap.log):" \
      "THE bwrap ROW IS SKIPPED"
  fi
fi
[ "$have_bwrap" = 1 ] && say "  bwrap: $(command -v bwrap) ($(bwrap --version 2>/dev/null || echo 'version unknown'))"

# -- the environment of every command ----------------------------------------------------------
unset BASH_AGENT_BASH_MODE SANDBOX_BASH_ENFORCED
export SANDBOX_BASH_WORKSPACE="$ws"
nobody_home="$(getent passwd "$NOBODY_USER" | cut -d: -f6 || true)"
[ -n "$nobody_home" ] || nobody_home=/nonexistent

as_user() { # USER COMMAND...: runs COMMAND as USER (root: as is) with its cwd in W
  local user="$1"
  shift
  if [ "$user" = root ]; then
    (cd "$ws" && "$@")
  else
    (cd "$ws" && setpriv --reuid="$NOBODY_USER" --regid="$NOBODY_GROUP" --clear-groups \
      env HOME="$nobody_home" USER="$NOBODY_USER" LOGNAME="$NOBODY_USER" "$@")
  fi
}

for user in $USERS; do
  case "$user" in
    root) [ "$(id -u)" = 0 ] || die "USERS has root but this does not run as root" ;;
    nobody)
      [ "$(id -u)" = 0 ] || die "running as $NOBODY_USER takes root (setpriv)"
      getent passwd "$NOBODY_USER" >/dev/null || die "no user $NOBODY_USER (NOBODY_USER=...)"
      getent group "$NOBODY_GROUP" >/dev/null || die "no group $NOBODY_GROUP (NOBODY_GROUP=...)"
      ;;
    *) die "USERS takes root and nobody, not $user" ;;
  esac
done

# -- the rows ----------------------------------------------------------------------------------
bash_bin=/bin/bash
names=("bash")
cmds=("$bash_bin -c true")
names+=("C (glibc)")
cmds+=("$out/ns-baseline $ws $bash_bin -c true")
if [ "$have_musl_c" = 1 ]; then
  names+=("C (musl static)")
  cmds+=("$out/ns-baseline-musl $ws $bash_bin -c true")
fi
bwrap_variants=(
  # The issue's command. Without --unshare-pid, bwrap binds the caller's /proc for --proc.
  "bwrap --unshare-user --unshare-ipc --ro-bind / / --bind $ws $ws --bind /tmp /tmp --dev-bind /dev /dev --proc /proc $bash_bin -c true"
  # Fallbacks, closest first: /proc bound read-only instead; then a pid namespace for --proc.
  "bwrap --unshare-user --unshare-ipc --ro-bind / / --bind $ws $ws --bind /tmp /tmp --dev-bind /dev /dev --ro-bind /proc /proc $bash_bin -c true"
  "bwrap --unshare-user --unshare-ipc --unshare-pid --ro-bind / / --bind $ws $ws --bind /tmp /tmp --dev-bind /dev /dev --proc /proc $bash_bin -c true"
)
bwrap_cmd=""
if [ "$have_bwrap" = 1 ]; then
  for v in "${bwrap_variants[@]}"; do
    ok=1
    for user in $USERS; do
      # shellcheck disable=SC2086
      if ! as_user "$user" $v >"$out/bwrap-try.log" 2>&1; then
        ok=0
        say "  bwrap as $user fails: $v"
        sed 's/^/    /' "$out/bwrap-try.log"
        break
      fi
    done
    if [ "$ok" = 1 ]; then
      bwrap_cmd="$v"
      break
    fi
  done
  if [ -z "$bwrap_cmd" ]; then
    loud "no bwrap command line runs here as every user of USERS ($USERS): THE bwrap ROW IS SKIPPED"
  else
    names+=("bwrap")
    cmds+=("$bwrap_cmd")
    say "  bwrap row: ${bwrap_cmd//$root_dir\//}"
  fi
fi
if [ "$have_static" = 1 ]; then
  names+=("sandbox-bash static")
  cmds+=("$installed/sandbox-bash -c true")
fi
if [ "$have_dynamic" = 1 ]; then
  names+=("sandbox-bash dynamic")
  cmds+=("$installed/sandbox-bash-dynamic -c true")
fi
# SANDBOX_BASH_BEFORE: one more build in the same runs, e.g. the commit before a change, so that
# the change is measured side by side rather than across runs that other work may slow unequally
# (its ratio is taken to the static build when there is one, so give a static build then).
if [ -n "${SANDBOX_BASH_BEFORE:-}" ]; then
  [ -x "$SANDBOX_BASH_BEFORE" ] || die "SANDBOX_BASH_BEFORE=$SANDBOX_BASH_BEFORE is not a program"
  install -m 755 "$SANDBOX_BASH_BEFORE" "$installed/sandbox-bash-before"
  names+=("sandbox-bash before")
  cmds+=("$installed/sandbox-bash-before -c true")
  say "  sandbox-bash before: $SANDBOX_BASH_BEFORE (given), installed as $installed/sandbox-bash-before"
fi

# Each row once as each user before measuring: a row that fails says why, here.
for user in $USERS; do
  for i in "${!cmds[@]}"; do
    # shellcheck disable=SC2086
    if ! as_user "$user" ${cmds[$i]} >"$out/ns-check.log" 2>&1; then
      sed 's/^/    /' "$out/ns-check.log" >&2
      die "the row '${names[$i]}' fails as $user: ${cmds[$i]}"
    fi
  done
done

# -- measuring ---------------------------------------------------------------------------------
say
say "== start-up: $ROUNDS rounds per user, each one hyperfine -N run of every row ($RUNS runs, warmup $WARMUP)"
say "   W=${ws//$root_dir\//} (cwd of every command), bash=$bash_bin, $(nproc) cores, Linux $(uname -r)"
if [ -r /sys/kernel/security/landlock/abi_version ]; then
  say "   Landlock ABI $(cat /sys/kernel/security/landlock/abi_version)"
fi
read -r load1 _ </proc/loadavg
say "   load average at start: $load1 (other work on the machine slows every row, the kernel's work most)"
for user in $USERS; do
  for round in $(seq "$ROUNDS"); do
    if ! as_user "$user" hyperfine -N --warmup "$WARMUP" --runs "$RUNS" --style none \
      --export-json "$json/$user-$round.json" "${cmds[@]}" >"$out/ns-hyperfine.log" 2>&1; then
      sed 's/^/    /' "$out/ns-hyperfine.log" >&2
      die "hyperfine failed as $user in round $round"
    fi
  done
done

python3 - "$json" "$ROUNDS" "$USERS" "${names[@]}" <<'PY'
import json, statistics, sys

out, rounds, users, names = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(), sys.argv[4:]
med = statistics.median
idx = {n: i for i, n in enumerate(names)}
for user in users:
    print(f"\n-- as {user}: median ms per row and round (each round one hyperfine run), their median, and the\n   p10 of all runs of the row (the fastest tenth: less moved by other work on the machine)")
    width = max(len(n) for n in names)
    rows = []
    for r in range(1, rounds + 1):
        res = json.load(open(f"{out}/{user}-{r}.json"))["results"]
        rows.append([x["median"] * 1000 for x in res])
    # The fastest tenth of all runs of a row, over every round: much less moved by other work on
    # the machine than the medians (which shift whole milliseconds on a busy 2-core machine).
    times = {i: [] for i in range(len(names))}
    for r in range(1, rounds + 1):
        for i, x in enumerate(json.load(open(f"{out}/{user}-{r}.json"))["results"]):
            times[i] += x["times"]
    p10 = [sorted(times[i])[len(times[i]) // 10] * 1000 for i in range(len(names))]
    print(f"  {'':{width}}  " + "  ".join(f"{'round ' + str(r):>8}" for r in range(1, rounds + 1))
          + "    median  p10(all)")
    for i, n in enumerate(names):
        each = [row[i] for row in rows]
        print(f"  {n:{width}}  " + "  ".join(f"{x:8.3f}" for x in each) + f"  {med(each):8.3f}  {p10[i]:8.3f}")
    b = idx["bash"]
    print(f"  added over bash (median across rounds of row - bash, ms; then the same of the p10s):")
    for i, n in enumerate(names):
        if i == b:
            continue
        added = [row[i] - row[b] for row in rows]
        print(f"    {n:{width}}  {med(added):+.3f} ms  ({med([row[i] / row[b] for row in rows]):.2f}x bash)"
              f"   p10: {p10[i] - p10[b]:+.3f} ms ({p10[i] / p10[b]:.2f}x)")
    print(f"  ratios (median across rounds of the per-round ratio):")
    for sb in ("sandbox-bash static", "sandbox-bash dynamic"):
        if sb not in idx:
            continue
        main = "sandbox-bash static" if "sandbox-bash static" in idx else "sandbox-bash dynamic"
        for other in ("C (musl static)", "C (glibc)", "bwrap", "sandbox-bash before"):
            # The build before a change is set against the first build measured (give the same kind).
            if other not in idx or (other == "sandbox-bash before" and sb != main):
                continue
            ratios = [row[idx[sb]] / row[idx[other]] for row in rows]
            each = ", ".join(f"{x:.2f}" for x in ratios)
            print(f"    {sb} / {other}: {med(ratios):.2f}x  (rounds: {each}; p10s: {p10[idx[sb]] / p10[idx[other]]:.2f}x)")
PY

# -- the C program's own clock -----------------------------------------------------------------
say
say "== the C program's own clock (NS_BASELINE_TIMING=1, $TIMING_RUNS runs per user, medians in us)"
timing_bins=("$out/ns-baseline")
[ "$have_musl_c" = 1 ] && timing_bins+=("$out/ns-baseline-musl")
for user in $USERS; do
  for bin in "${timing_bins[@]}"; do
    log="$out/ns-timing-$user-$(basename "$bin").log"
    : >"$log"
    for _ in $(seq "$TIMING_RUNS"); do
      as_user "$user" env NS_BASELINE_TIMING=1 "$bin" "$ws" "$bash_bin" -c true 2>>"$log" \
        || die "$bin failed as $user (see $log)"
    done
    python3 - "$log" "$user" "$(basename "$bin")" <<'PY'
import re, statistics, sys
log, user, binary = sys.argv[1:]
steps, order, totals, head = {}, [], {"ns": [], "all": []}, ""
for line in open(log):
    m = re.match(r"ns-baseline:   (.+?)\s+([0-9.]+) us$", line)
    if m:
        if m[1] not in steps:
            steps[m[1]] = []
            order.append(m[1])
        steps[m[1]].append(float(m[2]))
        continue
    m = re.match(r"ns-baseline: namespace\+mount part ([0-9.]+) us, all before execve ([0-9.]+) us", line)
    if m:
        totals["ns"].append(float(m[1]))
        totals["all"].append(float(m[2]))
        continue
    if line.startswith("ns-baseline: uid"):
        head = line.strip()[len("ns-baseline: "):]
q = lambda xs, p: sorted(xs)[min(len(xs) - 1, int(p * len(xs)))]
print(f"  as {user}, {binary}: {head}")
for s in order:
    xs = steps[s]
    print(f"    {s:36} {statistics.median(xs):7.1f}   (p90 {q(xs, 0.9):7.1f})")
for k, label in (("ns", "namespace+mount part"), ("all", "everything before execve")):
    xs = totals[k]
    print(f"    {label:36} {statistics.median(xs):7.1f}   (p10 {q(xs, 0.1):7.1f}, p90 {q(xs, 0.9):7.1f}, {len(xs)} runs)")
PY
  done
done
say
say "JSON of every round: ${json//$root_dir\//}/USER-ROUND.json; step logs: ${out//$root_dir\//}/ns-timing-*.log"
