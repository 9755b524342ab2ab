#!/usr/bin/env bash
# Two builds side by side: `benches/compare.sh OLD NEW [BASH]` times the analysis
# (`--sandbox-explain FILE`) of scripts of 1,000, 10,000 and 100,000 lines in three layouts,
# and `-c true`, with OLD, NEW and bash (`bash -n FILE`, `bash -c true`) in the same
# hyperfine run. It prints medians and the ratios NEW/OLD and NEW/bash per case.
#
# The layouts, to show how the figures spread with the shape of the code:
#   concat     the machine's scripts (/usr/bin, /usr/sbin, dpkg maintainer scripts) one after
#              the other, as top-level code;
#   functions  the same scripts, each wrapped in a function of its own (code a library
#              defines, analysed when called or at the end);
#   corpus     the third-party scripts checked in under tests/corpus, one after the other
#              (the same text on every machine).
# Both binaries are copied with `install` first (see run.sh for why that matters).
# Needs hyperfine and python3. RUNS scales the number of runs (default 1); TEXTS_ONLY=1 writes
# the texts and times nothing.
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: benches/compare.sh OLD NEW [BASH]" >&2; exit 2; }
cd "$(dirname "$0")/.."
root="$PWD"
out="$root/target/bench/compare"
mkdir -p "$out"
install -m 755 "$1" "$out/old"
install -m 755 "$2" "$out/new"
bash_path="${3:-$(command -v bash)}"
scale="${RUNS:-1}"

python3 - "$out" "$root/tests/corpus" <<'PY'
import os, sys
out, corpus = sys.argv[1], sys.argv[2]

def shell(path):
    try:
        with open(path, "rb") as f:
            head = f.read(128)
    except OSError:
        return False
    first = head.split(b"\n")[0]
    if not first.startswith(b"#!"):
        return False
    words = first[2:].split()
    name = os.path.basename(words[0]) if words else b""
    if name == b"env" and len(words) > 1:
        name = words[1]
    return name in (b"sh", b"bash", b"dash")

def machine():
    found = []
    for d in ("/usr/bin", "/usr/sbin"):
        for n in sorted(os.listdir(d)):
            p = os.path.join(d, n)
            if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) < 4 << 20 and shell(p):
                found.append(p)
    info = "/var/lib/dpkg/info"
    if os.path.isdir(info):
        for n in sorted(os.listdir(info)):
            if n.rsplit(".", 1)[-1] in ("preinst", "postinst", "prerm", "postrm", "config"):
                found.append(os.path.join(info, n))
    return found

def corpus_files():
    found = []
    for d, _, names in sorted(os.walk(corpus)):
        if "snapshots" in d:
            continue
        for n in sorted(names):
            p = os.path.join(d, n)
            if n.endswith((".sh", ".bash")) or shell(p):
                found.append(p)
    return found

def texts(paths):
    result = []
    for p in paths:
        with open(p, "rb") as f:
            t = f.read().decode("utf-8", "replace")
        if not t.endswith("\n"):
            t += "\n"
        result.append(t)
    return result

def build(pieces, lines, wrap):
    text, count, i = [], 0, 0
    while count < lines:
        t = pieces[i % len(pieces)]
        if wrap:
            t = f"f_{i}() {{\n{t}}}\n"
        text.append(t)
        count += t.count("\n")
        i += 1
    return "".join(text), count

layouts = {"concat": (texts(machine()), False), "functions": (texts(machine()), True), "corpus": (texts(corpus_files()), False)}
for name, (pieces, wrap) in layouts.items():
    for lines in (1000, 10000, 100000):
        text, count = build(pieces, lines, wrap)
        with open(f"{out}/{name}-{lines}.sh", "w") as f:
            f.write(text)
PY

# TEXTS_ONLY=1: write the texts and stop (benches/instructions.sh reads them).
[ "${TEXTS_ONLY:-}" != 1 ] || exit 0
cd "$out"
runs_for() { case "$1" in 1000) echo $((40 * scale)) ;; 10000) echo $((15 * scale)) ;; *) echo $((5 * scale)) ;; esac; }
report() {
  python3 - "$1" "$2" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
m = [x["median"] * 1000 for x in r]
print(f"  {sys.argv[2]:<22} old {m[0]:9.2f} ms  new {m[1]:9.2f} ms  bash {m[2]:8.2f} ms   new/old {m[1] / m[0]:.3f}  new/bash {m[1] / m[2]:.2f}")
PY
}
echo "== analysis (--sandbox-explain FILE against bash -n FILE), medians"
for layout in concat functions corpus; do
  for lines in 1000 10000 100000; do
    f="$layout-$lines.sh"
    hyperfine -N -i --warmup 2 --runs "$(runs_for "$lines")" --style none --export-json "$out/r.json" \
      "./old --sandbox-explain $f" "./new --sandbox-explain $f" "$bash_path -n $f" >/dev/null 2>&1
    report "$out/r.json" "$layout $lines"
  done
done
echo "== start-up (-c true), medians of 5 rounds side by side"
for round in 1 2 3 4 5; do
  hyperfine -N --warmup 30 --runs $((200 * scale)) --style none --export-json "$out/r.json" \
    "./old -c true" "./new -c true" "$bash_path -c true" >/dev/null 2>&1
  report "$out/r.json" "-c true, round $round"
done
