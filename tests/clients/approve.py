#!/usr/bin/env python3
"""A person at an approvals terminal, for the client suite: runs
`sandbox-bash --sandbox-approvals --json` and allows once every request whose program writes
granted.txt, rejecting any other. Ends when killed.

  approve.py SANDBOX_BASH
"""

import json
import subprocess
import sys

listener = subprocess.Popen([sys.argv[1], "--sandbox-approvals", "--json"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
for line in listener.stdout:
    event = json.loads(line)
    print(line.strip(), flush=True)
    if event.get("event") != "pending":
        continue
    request = event["request"]
    answer = "allow-once" if "granted.txt" in request["program"] else "reject"
    listener.stdin.write(json.dumps({"id": request["id"], "answer": answer}) + "\n")
    listener.stdin.flush()
