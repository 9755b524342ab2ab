#!/usr/bin/env python3
"""The approvals page in a real browser: Chromium, headless, driven by chromedriver over the
WebDriver protocol (plain HTTP and JSON; the standard library only).

  page.py SANDBOX_BASH WORKSPACE OUTSIDE HOME

What it does, in order (each step checked, the first failure ends it with status 1):
  1. starts `sandbox-bash --sandbox-approvals --web`; a process that is not the browser opens
     the link first (as one that read it from a command line would): the terminal names it, and
     the person refuses it; then the browser opens the link, is named, and is let in; the page
     sets no cookie;
  2. a request shows up with its fields, and again after a reload; the link does not work twice;
  3. with the browser offline the page says the connection is lost, and online again it shows
     the same request with the same id;
  4. "Allow once" lets that run go on (the file is written) and the request disappears;
  5. a second answer to the same request, sent from the page, is refused;
  6. a request answered in a terminal listener (--json) disappears from the page;
  7. "Reject" denies the run;
  8. with the browser gone, a request finds no one to ask and is denied at once.
Prints one line per step and "page: all N steps passed" at the end.
"""

import json
import os
import queue
import socket
import threading
import subprocess
import sys
import time
import urllib.request

SB, WS, OUTSIDE, HOME = sys.argv[1:5]
ENV = {"HOME": HOME, "PATH": "/usr/local/bin:/usr/bin:/bin", "LC_ALL": "C",
       "BASH_AGENT_BASH_MODE": "0467", "SANDBOX_BASH_WORKSPACE": WS}
steps = 0


def fail(what):
    print(f"page: FAILED: {what}", flush=True)
    sys.exit(1)


def step(what):
    global steps
    steps += 1
    print(f"page: step {steps}: {what}", flush=True)


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


class Driver:
    def __init__(self):
        self.port = free_port()
        self.proc = subprocess.Popen(["chromedriver", f"--port={self.port}"], stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL)
        for _ in range(100):
            try:
                self.call("GET", "/status")
                break
            except OSError:
                time.sleep(0.1)
        caps = {"capabilities": {"alwaysMatch": {"browserName": "chrome", "goog:chromeOptions": {
            "binary": "/usr/bin/chromium",
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--user-data-dir={OUTSIDE}/chromium-profile"]}}}}
        self.sid = self.call("POST", "/session", caps)["sessionId"]

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return json.load(r).get("value")
        except urllib.error.HTTPError as e:
            raise RuntimeError(f"{method} {path}: {e.code} {e.read()[:300]!r}")

    def s(self, method, path, body=None):
        return self.call(method, f"/session/{self.sid}{path}", body)

    def go(self, url):
        self.s("POST", "/url", {"url": url})

    def script(self, code, *args):
        return self.s("POST", "/execute/sync", {"script": code, "args": list(args)})

    def wait(self, code, what, seconds=20):
        end = time.time() + seconds
        while time.time() < end:
            value = self.script(code)
            if value:
                return value
            time.sleep(0.2)
        fail(f"waited {seconds} s for {what}; the page shows: {self.script('return document.body.innerText')!r}")

    def offline(self, off):
        self.s("POST", "/chromium/network_conditions", {"network_conditions": {
            "offline": off, "latency": 0, "download_throughput": 100000, "upload_throughput": 100000}})

    def quit(self):
        try:
            self.s("DELETE", "")
        finally:
            self.proc.kill()
            self.proc.wait()


def ask(name, reason="for the page"):
    target = os.path.join(OUTSIDE, name)
    program = f"# sandbox-bash: request 0667 because {reason}\ntouch {target}"
    p = subprocess.Popen([SB, "-c", program], cwd=WS, env=ENV, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    return p, target


def cards():
    return "return [...document.querySelectorAll('.req')].map(e => e.dataset.id)"


def main():
    web = subprocess.Popen([SB, "--sandbox-approvals", "--web"], env={"HOME": HOME, "PATH": ENV["PATH"]},
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    line = web.stdout.readline()
    if "http://" not in line:
        fail(f"no link: {line!r}")
    url = line[line.index("http://"):].split()[0]
    base = url.split("/?")[0]
    said = queue.Queue()
    threading.Thread(target=lambda: [said.put(l) for l in web.stdout], daemon=True).start()

    def terminal_says(words):
        end = time.time() + 20
        while time.time() < end:
            try:
                l = said.get(timeout=1)
            except queue.Empty:
                continue
            if words in l:
                return l
        fail(f"the listener's terminal never said {words!r}")

    def person(word):
        web.stdin.write(word + "\n")
        web.stdin.flush()

    d = Driver()
    terminal = None
    try:
        # A process that read the link races the browser: named, and refused.
        with urllib.request.urlopen(url, timeout=10) as r:
            if r.headers.get("Set-Cookie"):
                fail("the page set a cookie, which every port of loopback would be sent")
        thief = terminal_says("a browser opened the link")
        if "python3" not in thief:
            fail(f"the terminal did not name the process that opened the link: {thief!r}")
        person("n")
        terminal_says("refused:")
        d.go(url)
        named = terminal_says("a browser opened the link")
        if "chrom" not in named:
            fail(f"the terminal did not name the browser: {named!r}")
        d.wait("return document.getElementById('status').textContent.includes('Confirm this page')", "the code")
        person("y")
        terminal_says("let in:")
        d.wait("return document.getElementById('status').textContent.includes('No request')", "the page")
        step("a process that races the browser is named and refused; the browser is named and let in")

        run, target = ask("allowed.txt")
        ids = d.wait(cards(), "the request on the page")
        text = d.script("return document.querySelector('.req').innerText")
        for want in ["0467 \u2192 0667", "for the page", "external write (0200)", target, "Allow once", "Reject"]:
            if want not in text:
                fail(f"{want!r} not in the card: {text!r}")
        d.s("POST", "/refresh", {})
        if d.wait(cards(), "the request after a reload") != ids:
            fail("another request after the reload")
        again = urllib.request.Request(url)
        try:
            urllib.request.urlopen(again, timeout=10)
            fail("the link worked twice")
        except urllib.error.HTTPError as e:
            if e.code != 403:
                fail(f"the link's second use gave {e.code}")
        step("the request shows its fields, again after a reload; the link works once")

        d.offline(True)
        d.wait("return document.getElementById('status').textContent.includes('Connection lost')", "the lost connection")
        d.offline(False)
        d.wait("return document.getElementById('status').textContent.includes('1 waiting')", "the page back")
        if d.script(cards()) != ids:
            fail("another request after the connection came back")
        step("a lost connection is said, and the same request is there when it comes back")

        d.script("document.querySelector('.req .allow').click()")
        out, err = run.communicate(timeout=30)
        if run.returncode != 0 or not os.path.exists(target):
            fail(f"the allowed run: status {run.returncode}, {err!r}")
        d.wait("return document.querySelectorAll('.req').length == 0", "the answered request to go")
        d.wait("return document.getElementById('log').innerText.includes('allowed-once')", "the answer in the log")
        step("Allow once lets the run go on, and the request disappears")

        second = d.s("POST", "/execute/async", {"script": """
            const done = arguments[arguments.length - 1];
            fetch('/answer', {method: 'POST', headers: {'Content-Type': 'application/json', 'X-Sandbox-Bash': 'answer',
                                                 'X-Sandbox-Bash-Key': sessionStorage.getItem('key')},
                              body: JSON.stringify({id: arguments[0], answer: 'allow-once'})})
              .then(r => r.json().then(b => done([r.status, b])));""", "args": [ids[0]]})
        if second[0] != 409 or second[1]["ok"]:
            fail(f"a second answer was taken: {second!r}")
        step("a second answer to the same request is refused")

        terminal = subprocess.Popen([SB, "--sandbox-approvals", "--json"], env={"HOME": HOME, "PATH": ENV["PATH"]},
                                    stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        if json.loads(terminal.stdout.readline())["event"] != "listening":
            fail("the terminal listener")
        run, target = ask("elsewhere.txt")
        pending = json.loads(terminal.stdout.readline())
        d.wait(cards(), "the request on the page")
        terminal.stdin.write(json.dumps({"id": pending["request"]["id"], "answer": "reject"}) + "\n")
        terminal.stdin.flush()
        run.communicate(timeout=30)
        if run.returncode != 126 or os.path.exists(target):
            fail(f"the run rejected in the terminal: {run.returncode}")
        d.wait("return document.querySelectorAll('.req').length == 0", "the request answered elsewhere to go")
        d.wait("return document.getElementById('log').innerText.includes('answered elsewhere')", "answered elsewhere")
        terminal.kill()
        terminal.wait()
        terminal = None
        step("a request answered in the terminal disappears from the page")

        run, target = ask("rejected.txt")
        d.wait(cards(), "the request on the page")
        d.script("document.querySelector('.req .reject').click()")
        out, err = run.communicate(timeout=30)
        if run.returncode != 126 or b"was rejected (by the approvals page at " + base.encode() not in err:
            fail(f"the rejected run: {run.returncode} {err!r}")
        if os.path.exists(target):
            fail("the rejected run wrote its file")
        step("Reject denies the run")

        d.quit()
        d = None
        time.sleep(6)
        started = time.time()
        run, target = ask("nobody.txt")
        out, err = run.communicate(timeout=30)
        if run.returncode != 126 or b"no one can be asked here" not in err:
            fail(f"with the page closed: {run.returncode} {err!r}")
        step(f"with no page open a request is denied at once ({time.time() - started:.2f} s)")
    finally:
        if d:
            d.quit()
        if terminal:
            terminal.kill()
        web.kill()
    print(f"page: all {steps} steps passed", flush=True)


main()
