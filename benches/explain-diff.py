#!/usr/bin/env python3
"""Compares what two builds explain for every script of the checked-in corpus.

    benches/explain-diff.py OLD NEW [MODE]

Runs `BIN --sandbox-explain --sandbox-json SCRIPT` with each build, in the script's own
directory, with the same environment (MODE, default 0467; a home under target/), and prints
how many explanations are identical and, for each one that is not, the lines that differ.
Exits 1 when any differ. Explanations that differ only in the positions they report are
counted apart (a fix of a wrong position changes nothing else). The scripts are those the scanning tests read: files named *.sh,
*.bash or configure, and files whose #! line names sh, bash or dash.
"""

import difflib
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "corpus"


def is_shell_script(path):
    try:
        with open(path, "rb") as f:
            first = f.read(128).split(b"\n")[0].decode("utf-8", "replace")
    except OSError:
        return False
    if not first.startswith("#!"):
        return False
    words = first[2:].split()
    interp = words[0].rsplit("/", 1)[-1] if words else ""
    if interp == "env":
        interp = words[1] if len(words) > 1 else ""
    return interp in ("sh", "bash", "dash")


def scripts():
    out = []
    for dirpath, dirnames, filenames in os.walk(CORPUS):
        dirnames[:] = sorted(d for d in dirnames if d != "snapshots")
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            if name.endswith((".sh", ".bash")) or name == "configure" or is_shell_script(path):
                out.append(path)
    return sorted(out)


def explain(binary, script, env):
    run = subprocess.run(
        [binary, "--sandbox-explain", "--sandbox-json", str(script)],
        cwd=script.parent,
        env=env,
        capture_output=True,
        timeout=300,
    )
    return run.returncode, run.stdout.decode("utf-8", "replace"), run.stderr.decode("utf-8", "replace")


def without_positions(output):
    """The explanation with every line and column taken out, or None when it is not JSON."""

    def strip(v):
        if isinstance(v, dict):
            return {k: strip(x) for k, x in v.items() if k not in ("line", "column")}
        if isinstance(v, list):
            return [strip(x) for x in v]
        return v

    try:
        return strip(json.loads(output))
    except ValueError:
        return None


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    old, new = (str(Path(p).resolve()) for p in sys.argv[1:3])
    mode = sys.argv[3] if len(sys.argv) == 4 else "0467"
    home = ROOT / "target" / "explain-diff-home"
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "LANG": "C.UTF-8",
        "BASH_AGENT_BASH_MODE": mode,
    }
    all_scripts = scripts()
    differ = []
    for script in all_scripts:
        a = explain(old, script, env)
        b = explain(new, script, env)
        if a != b:
            differ.append((script, a, b))
    moved = [d for d in differ if d[1][0] == d[2][0] and without_positions(d[1][1]) == without_positions(d[2][1])]
    print(
        f"{len(all_scripts)} scripts at mode {mode}: {len(all_scripts) - len(differ)} identical, "
        f"{len(moved)} differ only in positions, {len(differ) - len(moved)} differ otherwise"
    )
    for script, a, b in differ:
        if (script, a, b) in moved:
            print(f"== {script.relative_to(ROOT)}: positions only")
            continue
        print(f"\n== {script.relative_to(ROOT)} (exit {a[0]} -> {b[0]})")
        lines = difflib.unified_diff(
            (a[1] + a[2]).splitlines(), (b[1] + b[2]).splitlines(), "old", "new", lineterm="", n=1
        )
        for line in list(lines)[2:60]:
            print(line)
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
