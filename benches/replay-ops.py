#!/usr/bin/env python3
"""Turns `strace -X raw -s 4096 -o TRACE sandbox-bash -c true` into the kernel calls that
sandbox-bash made to lock itself (from its Landlock ruleset to the execve of bash), one per
line, for benches/replay.c to make again: the same kernel work, without any of the planning.

    benches/replay-ops.py TRACE > OPS

Descriptors become slots (the number a call returned, named again by later calls). A call that
failed in the trace is made again and may fail again.
"""
import re
import sys

lines = open(sys.argv[1]).read().splitlines()
start = next(i for i, l in enumerate(lines) if l.startswith("landlock_create_ruleset({"))
out = []


def q(s):
    return s.replace("\t", " ")


for l in lines[start:]:
    m = re.match(r"(\w+)\((.*)\)\s+= (-?\w+)", l)
    if not m:
        continue
    name, args, ret = m.group(1), m.group(2), m.group(3)
    strs = re.findall(r'"((?:[^"\\]|\\.)*)"', args)
    nums = re.findall(r"(?<![\w\"])(-?0x[0-9a-f]+|-?\d+)(?![\w\"])", re.sub(r'"(?:[^"\\]|\\.)*"', '""', args))
    r = ret if ret.lstrip("-").isdigit() else "-1"
    if name == "landlock_create_ruleset":
        fs = re.search(r"handled_access_fs=(0x[0-9a-f]+)", args).group(1)
        out.append(f"ruleset\t{r}\t{fs}")
    elif name == "fcntl" and nums[1] == "0x406":
        out.append(f"dup\t{r}\t{nums[0]}")
    elif name in ("openat", "open_tree"):
        out.append(f"{name}\t{r}\t{nums[0]}\t{q(strs[0])}\t{nums[1]}")
    elif name == "landlock_add_rule":
        acc = re.search(r"allowed_access=(0x[0-9a-f]+|\d+)", args).group(1)
        pfd = re.search(r"parent_fd=(\d+)", args).group(1)
        out.append(f"addrule\t{nums[0]}\t{acc}\t{pfd}")
    elif name == "close":
        out.append(f"close\t{nums[0]}")
    elif name == "unshare":
        out.append(f"unshare\t{nums[0]}")
    elif name == "mount":
        flags = re.search(r"(0x[0-9a-f]+)", args).group(1)
        out.append(f"mount_private\t{q(strs[0])}\t{flags}")
    elif name == "fsopen":
        out.append(f"fsopen\t{r}\t{strs[0]}\t{nums[0]}")
    elif name == "fsconfig":
        key = strs[0] if len(strs) > 0 else "-"
        val = strs[1] if len(strs) > 1 else "-"
        out.append(f"fsconfig\t{nums[0]}\t{nums[1]}\t{q(key)}\t{q(val)}")
    elif name == "fsmount":
        out.append(f"fsmount\t{r}\t{nums[0]}\t{nums[1]}\t{nums[2]}")
    elif name == "mount_setattr":
        s = re.search(r"attr_set=(0x[0-9a-f]+|\d+)", args).group(1)
        c = re.search(r"attr_clr=(0x[0-9a-f]+|\d+)", args).group(1)
        out.append(f"mount_setattr\t{nums[0]}\t{q(strs[0]) or '-'}\t{nums[1]}\t{s}\t{c}")
    elif name in ("mknodat", "mkdirat"):
        out.append(f"{name}\t{nums[0]}\t{q(strs[0])}\t{nums[1]}")
    elif name == "move_mount":
        out.append(f"move_mount\t{nums[0]}\t{q(strs[1])}")
    elif name == "chdir":
        out.append(f"chdir\t{q(strs[0])}")
    elif name == "statx":
        out.append(f"stat\t{q(strs[0])}")
    elif name == "newfstatat":
        out.append(f"fstat\t{nums[0]}")
    elif name == "prctl":
        if nums[0] == "0x26":
            out.append("nnp")
        elif nums[0] == "0x18":
            out.append(f"capdrop\t{nums[1]}")
        elif nums[0] == "0x16":
            length = re.search(r"len=(\d+)", args).group(1)
            out.append(f"seccomp\t{length}")
    elif name == "capset":
        e = re.search(r"effective=([0-9a-fx|]+)", args).group(1).split("|")
        out.append(f"capset\t{e[0]}\t{e[1] if len(e) > 1 else '0'}")
    elif name == "landlock_restrict_self":
        out.append(f"restrict\t{nums[0]}")
    elif name == "execve":
        break
print("\n".join(out))
