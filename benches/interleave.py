#!/usr/bin/env python3
"""Start-up side by side: runs each command once in turn, RUNS times over, and prints each one's
median and its ratio to the first. Taking the commands in turn, rather than all runs of one
and then the next (as hyperfine does), keeps a machine whose speed drifts from favouring
either side. Usage: interleave.py RUNS 'CMD1' 'CMD2' ..."""
import os, shlex, statistics, subprocess, sys, time

runs = int(sys.argv[1])
commands = [shlex.split(c) for c in sys.argv[2:]]
times = [[] for _ in commands]
null = os.open(os.devnull, os.O_RDWR)
for _ in range(10):
    for c in commands:
        subprocess.run(c, stdin=null, stdout=null, stderr=null)
for _ in range(runs):
    for i, c in enumerate(commands):
        start = time.perf_counter_ns()
        subprocess.run(c, stdin=null, stdout=null, stderr=null)
        times[i].append(time.perf_counter_ns() - start)
first = statistics.median(times[0])
for c, t in zip(sys.argv[2:], times):
    m = statistics.median(t)
    q = statistics.quantiles(t, n=4)
    print(f"  {m / 1e6:7.3f} ms (quartiles {q[0] / 1e6:.3f}-{q[2] / 1e6:.3f})  {m / first:5.3f}x  {c}")
