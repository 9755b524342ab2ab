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
# A process started outside before the lock (the network proxy): started the same way, first.
if any(l.startswith("clone(") for l in lines[:start]):
    out.append("helper")


def ints(args):
    """The top-level arguments that are numbers (flags joined with | summed)."""
    vals = []
    for a in re.split(r",\s*(?![^{\[]*[}\]])", args):
        parts = a.strip().split("|")
        try:
            vals.append(sum(int(p, 0) for p in parts))
        except ValueError:
            vals.append(None)
    return vals


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
    elif name == "socket":
        v = ints(args)
        out.append(f"socket\t{r}\t{v[0]}\t{v[1]}\t{v[2]}")
    elif name == "ioctl" and "ifr_name=" in args:
        ifr = re.search(r'ifr_name="([^"]*)", ifr_flags=(0x[0-9a-f]+|\d+)', args)
        out.append(f"ifflags\t{nums[0]}\t{nums[1]}\t{ifr.group(1)}\t{ifr.group(2)}")
    elif name == "setsockopt":
        v = ints(args)
        val = re.search(r"\[(-?\d+)\]", args).group(1)
        out.append(f"setsockopt\t{v[0]}\t{v[1]}\t{v[2]}\t{val}")
    elif name == "bind" and "sin_addr=" in args:
        port = bytes.fromhex(re.search(r'sin_port="([^"]*)"', args).group(1).replace("\\x", ""))
        addr = bytes.fromhex(re.search(r'sin_addr="([^"]*)"', args).group(1).replace("\\x", ""))
        out.append(f"bind4\t{nums[0]}\t{int.from_bytes(port, 'big')}\t{'.'.join(str(b) for b in addr)}")
    elif name == "listen":
        out.append(f"listen\t{nums[0]}\t{nums[1]}")
    elif name == "sendmsg" and "cmsg_data=[" in args:
        fds = re.search(r"cmsg_data=\[([0-9, ]*)\]", args).group(1).replace(" ", "")
        out.append(f"handover\t{fds}")
    elif name == "execve":
        break
print("\n".join(out))
