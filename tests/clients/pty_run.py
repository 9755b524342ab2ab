#!/usr/bin/env python3
"""Runs a program on a new pseudo-terminal and answers it like a person at the keyboard.

  pty_run.py [--timeout S] [--log FILE] [--expect TEXT --send LINE]... -- PROGRAM [ARG...]

Each --expect/--send pair waits until TEXT appears in what the program printed since the last
answer, then types LINE and Enter. After the last pair it waits for the program to end. The
program's whole output (the terminal's bytes) goes to --log (default: standard output). The
exit status is the program's, 124 on a timeout (the program is then killed), 2 on bad usage.
Python standard library only (pty, os, select).
"""

import os
import pty
import select
import signal
import sys
import time


def main(argv):
    timeout, log, pairs = 120.0, None, []
    i = 0
    while i < len(argv) and argv[i] != "--":
        a = argv[i]
        if a == "--timeout":
            timeout = float(argv[i + 1])
        elif a == "--log":
            log = argv[i + 1]
        elif a == "--expect":
            pairs.append([argv[i + 1], None])
        elif a == "--send" and pairs and pairs[-1][1] is None:
            pairs[-1][1] = argv[i + 1]
        else:
            print("pty_run: bad argument %r" % a, file=sys.stderr)
            return 2
        i += 2
    prog = argv[i + 1 :]
    if not prog or any(s is None for _, s in pairs):
        print(__doc__, file=sys.stderr)
        return 2
    out = open(log, "wb") if log else sys.stdout.buffer
    pid, fd = pty.fork()
    if pid == 0:
        try:
            os.execvp(prog[0], prog)
        finally:
            os._exit(127)
    deadline = time.monotonic() + timeout
    seen = b""
    status = None
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            out.write(b"\n[pty_run: timed out]\n")
            out.flush()
            return 124
        r, _, _ = select.select([fd], [], [], min(left, 0.2))
        if r:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: the terminal's other side is closed
                data = b""
            if not data:
                break
            out.write(data)
            out.flush()
            seen += data
            if pairs and pairs[0][0].encode() in seen:
                time.sleep(0.2)  # let the program finish printing its prompt
                os.write(fd, pairs.pop(0)[1].encode() + b"\r")
                seen = b""
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            # drain what is left
            while select.select([fd], [], [], 0.1)[0]:
                try:
                    data = os.read(fd, 65536)
                except OSError:
                    break
                if not data:
                    break
                out.write(data)
            break
    if status is None:
        _, status = os.waitpid(pid, 0)
    out.flush()
    if pairs:
        print("pty_run: the program ended before printing %r" % pairs[0][0], file=sys.stderr)
    return os.waitstatus_to_exitcode(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
