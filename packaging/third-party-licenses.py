#!/usr/bin/env python3
"""Writes the licences of what is linked into the sandbox-bash binary, for the packages.

Usage: third-party-licenses.py METADATA_JSON STATIC(0|1) OUTPUT

METADATA_JSON is `cargo metadata --format-version 1 --filter-platform TARGET` of this
repository. The crates listed are those the binary links: the normal dependencies reachable
from sandbox-bash for that target, without build-only and development dependencies and without
procedural macros (which run in the compiler and are not linked). For each, the licence its
manifest declares and the text of every licence file its source holds, identical texts written
once (compared without regard to spacing). With STATIC=1 the GNU C Library is listed too,
since the static build contains it.
"""

import hashlib
import json
import os
import subprocess
import sys

LICENSE_PREFIXES = ("license", "licence", "copying", "unlicense", "notice", "copyright")


def linked_crates(meta):
    packages = {p["id"]: p for p in meta["packages"]}
    nodes = {n["id"]: n for n in meta["resolve"]["nodes"]}
    root = meta["resolve"]["root"]
    seen, stack = set(), [root]
    while stack:
        node = stack.pop()
        if node in seen:
            continue
        seen.add(node)
        for dep in nodes[node]["deps"]:
            normal = any(k["kind"] is None for k in dep["dep_kinds"])
            macro = any("proc-macro" in t["kind"] for t in packages[dep["pkg"]]["targets"])
            if normal and not macro:
                stack.append(dep["pkg"])
    seen.discard(root)
    return sorted((packages[i] for i in seen), key=lambda p: (p["name"], p["version"]))


def license_files(package):
    directory = os.path.dirname(package["manifest_path"])
    names = sorted(
        n for n in os.listdir(directory)
        if n.lower().startswith(LICENSE_PREFIXES) and os.path.isfile(os.path.join(directory, n))
    )
    return [(n, os.path.join(directory, n)) for n in names]


def glibc_version():
    try:
        out = subprocess.run(["getconf", "GNU_LIBC_VERSION"], capture_output=True, text=True, check=True)
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "glibc (version unknown)"


def main():
    meta_path, static, output = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
    with open(meta_path, encoding="utf-8") as f:
        meta = json.load(f)
    crates = linked_crates(meta)
    lines = [
        "Third-party code linked into /usr/bin/sandbox-bash",
        "",
        "sandbox-bash itself is under MIT OR Apache-2.0 (see copyright). Its binary also",
        "contains the code below, each part under its own licence.",
        "",
    ]
    if static:
        lines += [
            f"The GNU C Library ({glibc_version()}), linked statically: LGPL-2.1-or-later,",
            "with the exceptions its COPYING.LIB and LICENSES files state. Its source is that of the",
            "distribution's C library package it was built with; sandbox-bash's own source, which",
            "can be linked again against a modified C library, is in the source tarball.",
            "",
        ]
    lines.append("Rust crates (name, version, licence declared by the crate):")
    lines += [f"  {p['name']} {p['version']}: {p.get('license') or 'see its licence file'}" for p in crates]
    lines.append("")
    seen_texts = {}
    for p in crates:
        files = license_files(p)
        header = f"{p['name']} {p['version']} ({p.get('license') or 'no licence declared'})"
        lines += ["=" * 78, header, "=" * 78]
        if not files:
            lines += ["The crate's source holds no licence file; the licence is the one it declares.", ""]
        for name, path in files:
            with open(path, "rb") as f:
                text = f.read().decode("utf-8", errors="replace")
            digest = hashlib.sha256(" ".join(text.split()).encode()).hexdigest()
            if digest in seen_texts:
                lines += [f"--- {name}: the same text as {seen_texts[digest]}", ""]
                continue
            seen_texts[digest] = f"{name} of {p['name']} {p['version']}"
            lines += [f"--- {name}", text.rstrip("\n"), ""]
    if static and os.path.isfile("/usr/share/common-licenses/LGPL-2.1"):
        with open("/usr/share/common-licenses/LGPL-2.1", encoding="utf-8") as f:
            lines += ["=" * 78, "GNU Lesser General Public License 2.1 (the GNU C Library)", "=" * 78]
            lines += [f.read().rstrip("\n"), ""]
    with open(output, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    print(f"{len(crates)} crates, {len(seen_texts)} distinct licence texts")


if __name__ == "__main__":
    main()
