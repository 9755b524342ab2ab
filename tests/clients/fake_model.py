#!/usr/bin/env python3
"""A fake model server for the client suite (Python standard library only).

It listens on loopback and speaks the four wire formats the clients use:

  POST .../chat/completions                    OpenAI Chat Completions (SSE or one JSON)
  POST .../responses                           OpenAI Responses (SSE events, or one JSON)
  POST .../messages                            Anthropic Messages (SSE or one JSON)
  POST .../models/M:generateContent            Gemini (one JSON)
  POST .../models/M:streamGenerateContent      Gemini (SSE with ?alt=sse, else a JSON array)

The conversation is scripted and stateless: a request that offers a shell tool is answered
with the tool call for step N, where N is the number of tool results the request already
carries; once every step has its result, the answer is the final text. A request that offers
no shell tool (titles, summaries, checks a client makes on the side) gets a short text, except
in text mode (see TEXT_TRIGGER): a client that runs the commands proposed in a fenced bash
block of the reply (aider) gets the steps in such a block, then the final text.
Every request is appended to a JSON-lines log (method, path, wire format, step, body).

  fake_model.py serve --log FILE --port-file FILE [--host 127.0.0.1]
  fake_model.py report --log FILE     what the client sent back, as one JSON object
  fake_model.py check --log F --audit F --workspace D --mode M --readme TEXT --shell PATH
                      [--denial kernel --outer WORD]
                                      one run judged (see check())
  fake_model.py lo-up                 bring loopback up in a new network namespace
"""

import argparse
import base64
import json
import os
import re
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# The scripted tool calls, in order. Step 1 must run: its output sandbox-ok-42 is computed by
# the shell, never written in the command, and it prints the shell's own argv (base64 of
# /proc/$$/cmdline) so the suite sees how the client started its shell. It has no "$(", which
# Gemini CLI refuses to run, arithmetic "$((" included. Step 2 needs system read, which no
# mode the suite uses allows; step 3 writes the workspace, which 0467 allows and 0444 does not.
STEPS = [
    "let n=6*7 && echo sandbox-ok-$n && cat README.txt && printf argv: && base64 -w0 < /proc/$$/cmdline && echo",
    "cat /etc/shadow",
    "echo x > written.txt",
]
FINAL_TEXT = "sandbox-suite-done: the three commands came back."
# Text mode, for a client that offers no shell tool but runs the commands the reply proposes in
# a fenced bash block (aider): a request without tools whose user message holds TEXT_TRIGGER is
# answered with the three steps in one block, one command a line; once the outputs are back, with
# FINAL_TEXT.
# Without a TTY aider runs each line with /bin/sh -c, which has no `let`: step 1 is the POSIX
# spelling there (aider does not refuse "$((").
TEXT_TRIGGER = "in a fenced bash block"
TEXT_STEPS = ["n=$((6*7)) && echo sandbox-ok-$n && cat README.txt && printf argv: && base64 -w0 < /proc/$$/cmdline && echo"] + STEPS[1:]
TEXT_COMMANDS = "These are the sandbox check commands.\n\n```bash\n" + "\n".join(TEXT_STEPS) + "\n```\n"
SIDE_TEXT = "Sandbox check"
# With --ask DIR (tool clients), two more steps: a write outside the workspace, which the default
# mode denies with a request hint, and the same command again with the request line the hint
# names (its mode and hosts read from the denial that came back, as a model would), which an
# approvals listener the suite runs allows once.
ASK_DIR = None
ASK_REASON = "the suite writes one file outside the workspace"
HINT = re.compile(r"make its first line (# sandbox-bash: request \S+(?: host \S+)?) because REASON")


def ask_steps():
    return [] if ASK_DIR is None else ["touch %s/granted.txt" % ASK_DIR, None]


def ask_again(denial):
    """The command of the last step: the request line from the hint in `denial`, then the
    command that was denied."""
    m = HINT.search(denial or "")
    if not m:
        return "echo no request hint came back"
    return "%s because %s\n%s" % (m.group(1), ASK_REASON, ask_steps()[0])
MODEL = "fake-model"

# Names of shell tools, best first (Codex offers several; shell_command uses the login shell).
SHELL_TOOLS = ["shell_command", "exec_command", "bash", "Bash", "run_shell_command", "shell"]

LOG_LOCK = threading.Lock()


# ---------------------------------------------------------------------------------------------
# Reading requests


def tool_list(api, body):
    """(name, JSON schema of the parameters) of every function tool the request offers."""
    out = []
    if api == "gemini":
        for t in body.get("tools") or []:
            for d in t.get("functionDeclarations") or t.get("function_declarations") or []:
                schema = d.get("parametersJsonSchema") or d.get("parameters") or {}
                out.append((d.get("name"), schema))
        return out
    for t in body.get("tools") or []:
        if not isinstance(t, dict):
            continue
        if api == "anthropic":
            out.append((t.get("name"), t.get("input_schema") or {}))
        elif isinstance(t.get("function"), dict):  # chat completions
            out.append((t["function"].get("name"), t["function"].get("parameters") or {}))
        else:  # responses: flat function tools
            out.append((t.get("name"), t.get("parameters") or {}))
    return out


def text_of(content):
    """The text of a tool result's content, whatever shape the wire format gives it."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(text_of(c) for c in content)
    if isinstance(content, dict):
        for key in ("text", "output", "content"):
            if key in content:
                return text_of(content[key])
        return json.dumps(content)
    return str(content)


def tool_results(api, body):
    """The tool results the request carries, in order: (call id or None, text)."""
    out = []
    if api == "chat":
        for m in body.get("messages") or []:
            if m.get("role") == "tool":
                out.append((m.get("tool_call_id"), text_of(m.get("content"))))
    elif api == "anthropic":
        for m in body.get("messages") or []:
            if isinstance(m.get("content"), list):
                for c in m["content"]:
                    if isinstance(c, dict) and c.get("type") == "tool_result":
                        out.append((c.get("tool_use_id"), text_of(c.get("content"))))
    elif api == "responses":
        for item in body.get("input") or []:
            if isinstance(item, dict) and item.get("type") in (
                "function_call_output",
                "custom_tool_call_output",
                "local_shell_call_output",
            ):
                out.append((item.get("call_id"), text_of(item.get("output"))))
    elif api == "gemini":
        for c in body.get("contents") or []:
            for p in c.get("parts") or []:
                fr = p.get("functionResponse") if isinstance(p, dict) else None
                if fr:
                    resp = fr.get("response")
                    text = text_of(resp) if not isinstance(resp, dict) else json.dumps(resp)
                    out.append((fr.get("id"), text))
    return out


def shell_tool(api, body):
    """The shell tool the request offers and the arguments that run a command with it."""
    tools = dict((n, s) for n, s in tool_list(api, body) if n)
    for name in SHELL_TOOLS:
        if name in tools:
            return name, tools[name]
    return None, None


def arguments(schema, command):
    """Arguments for a shell tool: the command in its command parameter, and a plausible value
    in every other required parameter."""
    props = (schema or {}).get("properties") or {}
    args = {}
    key = next((k for k in ("command", "cmd") if k in props), "command")
    kind = (props.get(key) or {}).get("type")
    if kind == "array":
        args[key] = ["bash", "-lc", command]
    else:
        args[key] = command
    for req in (schema or {}).get("required") or []:
        if req in args:
            continue
        p = props.get(req) or {}
        t = p.get("type")
        if "enum" in p:
            args[req] = p["enum"][0]
        elif t in ("integer", "number"):
            args[req] = 120000 if "timeout" in req else 1
        elif t == "boolean":
            args[req] = False
        elif t == "array":
            args[req] = []
        elif t == "object":
            args[req] = {}
        else:
            args[req] = "Run a check command"
    if "description" in props and "description" not in args:
        args["description"] = "Run a check command"
    return args


def user_texts(api, body):
    """The text of every user message of a chat request (the only wire format text mode uses)."""
    if api != "chat":
        return []
    return [text_of(m.get("content")) for m in body.get("messages") or [] if m.get("role") == "user"]


def text_results(api, body):
    """Text mode: the outputs of the steps as a client that runs commands from the reply's text
    sends them back (aider: "Output from CMD" and the output, in a user message), one string per
    step ("" for a step whose output is not there)."""
    text = "\n".join(user_texts(api, body))
    out = []
    for step in TEXT_STEPS:
        head = "Output from " + step
        i = text.find(head)
        if i < 0:
            out.append("")
            continue
        rest = text[i + len(head) :]
        j = rest.find("Output from ")
        out.append(rest[:j] if j >= 0 else rest)
    return out


def decide(api, body):
    """What to answer: ("tool", step, name, args), ("text", None, side text), or in text mode
    ("text", "commands", a fenced bash block) and at the end ("text", "final", text)."""
    name, schema = shell_tool(api, body)
    if name is None:
        if any(TEXT_TRIGGER in t for t in user_texts(api, body)):
            if text_results(api, body)[0]:
                return ("text", "final", FINAL_TEXT)
            return ("text", "commands", TEXT_COMMANDS)
        return ("text", None, SIDE_TEXT)
    results = tool_results(api, body)
    step = len(results)
    steps = STEPS + ask_steps()
    if step < len(steps):
        command = steps[step] if steps[step] is not None else ask_again(results[-1][1])
        return ("tool", step + 1, name, arguments(schema, command))
    return ("text", None, FINAL_TEXT)


# ---------------------------------------------------------------------------------------------
# Answers, one builder per wire format


def call_id(prefix, step):
    return "%s_sb_%d_%d" % (prefix, step, int(time.time() * 1000) % 100000)


def chat_answer(body, d):
    created = int(time.time())
    base = {"id": "chatcmpl-sb", "object": "chat.completion", "created": created, "model": body.get("model", MODEL)}
    usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
    if d[0] == "tool":
        tc = {"id": call_id("call", d[1]), "type": "function", "function": {"name": d[2], "arguments": json.dumps(d[3])}}
        message, finish = {"role": "assistant", "content": None, "tool_calls": [tc]}, "tool_calls"
    else:
        message, finish = {"role": "assistant", "content": d[2]}, "stop"
    if not body.get("stream"):
        return "json", dict(base, choices=[{"index": 0, "message": message, "finish_reason": finish}], usage=usage)
    chunk = dict(base, object="chat.completion.chunk")
    events = [dict(chunk, choices=[{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}])]
    if d[0] == "tool":
        tc = dict(message["tool_calls"][0], index=0)
        events.append(dict(chunk, choices=[{"index": 0, "delta": {"tool_calls": [tc]}, "finish_reason": None}]))
    else:
        events.append(dict(chunk, choices=[{"index": 0, "delta": {"content": d[2]}, "finish_reason": None}]))
    events.append(dict(chunk, choices=[{"index": 0, "delta": {}, "finish_reason": finish}]))
    if (body.get("stream_options") or {}).get("include_usage"):
        events.append(dict(chunk, choices=[], usage=usage))
    return "sse", [(None, e) for e in events] + [(None, "[DONE]")]


def responses_answer(body, d):
    rid = "resp_sb_%d" % int(time.time() * 1000)
    if d[0] == "tool":
        item = {
            "type": "function_call",
            "id": "fc_sb_%d" % d[1],
            "call_id": call_id("call", d[1]),
            "name": d[2],
            "arguments": json.dumps(d[3]),
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "id": "msg_sb",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": d[2], "annotations": []}],
        }
    usage = {
        "input_tokens": 10,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 5,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": 15,
    }
    response = {
        "id": rid,
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "model": body.get("model", MODEL),
        "output": [item],
        "usage": usage,
    }
    if not body.get("stream"):
        return "json", response
    started = dict(response, status="in_progress", output=[], usage=None)
    events = [
        ("response.created", {"type": "response.created", "response": started}),
        ("response.in_progress", {"type": "response.in_progress", "response": started}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": dict(item, status="in_progress")}),
    ]
    if d[0] == "text":
        events.append(
            (
                "response.output_text.delta",
                {"type": "response.output_text.delta", "item_id": item["id"], "output_index": 0, "content_index": 0, "delta": d[2]},
            )
        )
    else:
        events.append(
            (
                "response.function_call_arguments.done",
                {"type": "response.function_call_arguments.done", "item_id": item["id"], "output_index": 0, "arguments": item["arguments"]},
            )
        )
    events.append(("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}))
    events.append(("response.completed", {"type": "response.completed", "response": response}))
    return "sse", events


def anthropic_answer(body, d):
    mid = "msg_sb_%d" % int(time.time() * 1000)
    usage = {"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    if d[0] == "tool":
        block = {"type": "tool_use", "id": call_id("toolu", d[1]), "name": d[2], "input": d[3]}
        stop = "tool_use"
    else:
        block = {"type": "text", "text": d[2]}
        stop = "end_turn"
    message = {
        "id": mid,
        "type": "message",
        "role": "assistant",
        "model": body.get("model", MODEL),
        "content": [block],
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not body.get("stream"):
        return "json", message
    events = [("message_start", {"type": "message_start", "message": dict(message, content=[], stop_reason=None)})]
    if d[0] == "tool":
        events.append(("content_block_start", {"type": "content_block_start", "index": 0, "content_block": dict(block, input={})}))
        events.append(
            (
                "content_block_delta",
                {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": json.dumps(d[3])}},
            )
        )
    else:
        events.append(("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}))
        events.append(("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": d[2]}}))
    events.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
    events.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": {"output_tokens": 5}}))
    events.append(("message_stop", {"type": "message_stop"}))
    return "sse", events


def gemini_schema_value(schema):
    """A value that fits a JSON schema (Gemini CLI asks for JSON on the side, e.g. who speaks
    next); the first enum value, which for "next_speaker" is "user" in the order we give."""
    t = (schema.get("type") or "").lower()
    if "enum" in schema:
        return "user" if "user" in schema["enum"] else schema["enum"][0]
    if t == "object":
        return {k: gemini_schema_value(v) for k, v in (schema.get("properties") or {}).items()}
    if t == "array":
        return []
    if t in ("integer", "number"):
        return 0
    if t == "boolean":
        return False
    return "done"


def gemini_answer(body, d, stream):
    gc = body.get("generationConfig") or {}
    if d[0] == "tool":
        part = {"functionCall": {"name": d[2], "args": d[3], "id": call_id("gc", d[1])}}
    elif gc.get("responseMimeType") == "application/json" and (gc.get("responseSchema") or gc.get("responseJsonSchema")):
        part = {"text": json.dumps(gemini_schema_value(gc.get("responseSchema") or gc.get("responseJsonSchema")))}
    else:
        part = {"text": d[2]}
    answer = {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
        "modelVersion": body.get("model", MODEL),
    }
    if stream == "sse":
        return "sse", [(None, answer)]
    if stream == "array":
        return "json", [answer]
    return "json", answer


# ---------------------------------------------------------------------------------------------
# The server


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "fake-model/1"

    def log_message(self, fmt, *args):  # quiet
        pass

    def record(self, api, raw, body, decision):
        entry = {
            "time": time.time(),
            "method": self.command,
            "path": self.path,
            "api": api,
            "answer": None if decision is None else ((decision[1] or "text") if decision[0] == "text" else "tool:%d" % decision[1]),
            "body": body if body is not None else raw.decode("utf-8", "replace"),
        }
        with LOG_LOCK, open(self.server.log_path, "a", encoding="utf-8") as f:
            f.write(json.dumps(entry) + "\n")

    def send_json(self, obj, status=200):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_sse(self, events):
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Connection", "close")
        self.end_headers()
        for name, data in events:
            text = data if isinstance(data, str) else json.dumps(data)
            chunk = ("event: %s\n" % name if name else "") + "data: %s\n\n" % text
            self.wfile.write(chunk.encode())
            self.wfile.flush()
        self.close_connection = True

    def do_GET(self):
        self.record("get", b"", None, None)
        path = self.path.split("?")[0]
        if path.endswith("/models"):
            self.send_json({"object": "list", "data": [{"id": MODEL, "object": "model", "created": 0, "owned_by": "fake"}], "models": [{"slug": MODEL}]})
        else:
            self.send_json({"error": {"message": "not found: " + path}}, 404)

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        if self.headers.get("Content-Encoding") == "gzip":
            import gzip

            raw = gzip.decompress(raw)
        elif self.headers.get("Content-Encoding") == "zstd":
            self.record("unknown", raw, None, None)
            return self.send_json({"error": {"message": "zstd bodies are not read here"}}, 415)
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = None
        path = self.path.split("?")[0]
        query = self.path.partition("?")[2]
        if body is None:
            self.record("unknown", raw, None, None)
            return self.send_json({"error": {"message": "body is not JSON"}}, 400)
        if path.endswith("/count_tokens"):
            self.record("anthropic-count", raw, body, None)
            return self.send_json({"input_tokens": 100})
        if path.endswith(":countTokens"):
            self.record("gemini-count", raw, body, None)
            return self.send_json({"totalTokens": 100})
        if path.endswith("/chat/completions"):
            api = "chat"
        elif path.endswith("/responses"):
            api = "responses"
        elif path.endswith("/messages"):
            api = "anthropic"
        elif ":generateContent" in path or ":streamGenerateContent" in path:
            api = "gemini"
        else:
            self.record("unknown", raw, body, None)
            return self.send_json({"error": {"message": "not found: " + path}}, 404)
        d = decide(api, body)
        self.record(api, raw, body, d)
        if api == "chat":
            kind, out = chat_answer(body, d)
        elif api == "responses":
            kind, out = responses_answer(body, d)
        elif api == "anthropic":
            kind, out = anthropic_answer(body, d)
        else:
            stream = None
            if ":streamGenerateContent" in path:
                stream = "sse" if "alt=sse" in query else "array"
            kind, out = gemini_answer(body, d, stream)
        if kind == "sse":
            self.send_sse(out)
        else:
            self.send_json(out)


def serve(args):
    global ASK_DIR
    ASK_DIR = args.ask
    server = ThreadingHTTPServer((args.host, 0), Handler)
    server.daemon_threads = True
    server.log_path = args.log
    open(args.log, "a").close()
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(server.server_address[1]))
    os.replace(tmp, args.port_file)
    server.serve_forever()


# ---------------------------------------------------------------------------------------------
# The report: what came back to the model


def summarize(log):
    entries = load_jsonl(log)
    apis = sorted({e["api"] for e in entries})
    best = []  # the tool results of the scripted conversation's longest request
    final_answered = False
    tool_requests = 0
    for e in entries:
        body = e.get("body")
        if not isinstance(body, dict) or e["api"] not in ("chat", "responses", "anthropic", "gemini"):
            continue
        if shell_tool(e["api"], body)[0] is None:
            if e.get("answer") in ("commands", "final"):  # text mode
                tool_requests += 1
                results = [(None, t) for t in text_results(e["api"], body)]
                if e["answer"] == "final":
                    best, final_answered = results, True
                elif not final_answered:
                    best = results
            continue
        tool_requests += 1
        results = tool_results(e["api"], body)
        if len(results) >= len(best):
            best = results
        if len(results) >= len(STEPS) + len(ask_steps()):
            final_answered = True
    texts = [t for _, t in best]
    argv = None
    if texts:
        m = re.search(r"argv:([A-Za-z0-9+/=]+)", texts[0])
        if m:
            try:
                raw = base64.b64decode(m.group(1))
                argv = [a.decode("utf-8", "replace") for a in raw.split(b"\0")]
                if argv and argv[-1] == "":
                    argv.pop()
            except ValueError:
                argv = None
    out = {
        "requests": len(entries),
        "apis": apis,
        "tool_requests": tool_requests,
        "results": texts,
        "final_answered": final_answered,
        "argv": argv,
        "tools_offered": sorted({n for e in entries if isinstance(e.get("body"), dict) for n, _ in tool_list(e["api"], e["body"]) if n}),
    }
    return out


def report(args):
    json.dump(summarize(args.log), sys.stdout)
    sys.stdout.write("\n")


def load_jsonl(path):
    out = []
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line:
                    out.append(json.loads(line))
    except FileNotFoundError:
        pass
    return out


DENIED = "sandbox-bash: denied:"
POLICY = "command blocked by bash safety policy"
# With --denial kernel the commands reach a shell that sandbox-bash did not start (aider's
# /bin/sh, itself inside the sandbox-bash that started aider): only the kernel refuses, and the
# denial is judged by the error's text (EACCES for the read; for the write under 0444 EROFS from
# the read-only mount, or EACCES from Landlock).
EACCES = "Permission denied"
EROFS = "Read-only file system"


def check(args):
    """Judges one run from what the client sent back, the audit log and the workspace; prints
    one JSON object (the row's cells and every failure)."""
    global ASK_DIR
    ASK_DIR = args.ask
    sent = summarize(args.log)
    audit = load_jsonl(args.audit)
    results = sent["results"] + [""] * (len(STEPS) + len(ask_steps()) - len(sent["results"]))
    fails = []
    written = os.path.join(args.workspace, "written.txt")

    kernel = args.denial == "kernel"

    def denied(text, errnos):
        if kernel:
            return next((e for e in errnos if e in text), None)
        return DENIED in text and POLICY in text

    allowed_back = "sandbox-ok-42" in results[0] and args.readme in results[0] and DENIED not in results[0]
    if not allowed_back:
        fails.append("step 1 (must run): sandbox-ok-42 and the README text did not both come back: %r" % results[0][:300])
    denial_back = bool(denied(results[1], [EACCES]) and "/etc/shadow" in results[1] if kernel else denied(results[1], []))
    denial_back = denial_back and "root:" not in results[1]
    if not denial_back:
        shown = "(the contents of /etc/shadow came back: not shown)" if "root:" in results[1] else repr(results[1][:300])
        fails.append("step 2 (cat /etc/shadow, must be denied): the denial text did not come back: %s" % shown)
    if args.mode == "0444":
        how = denied(results[2], [EROFS, EACCES])
        write_ok = bool(how) and not os.path.exists(written)
        write_cell = ("denied" if not kernel else "EROFS" if how == EROFS else "EACCES") if write_ok else "NOT DENIED"
        if not write_ok:
            fails.append(
                "step 3 (echo x > written.txt under 0444, must be denied): denial back %s, file exists %s"
                % (DENIED in results[2], os.path.exists(written))
            )
    else:
        content = open(written).read() if os.path.exists(written) else None
        write_ok = DENIED not in results[2] and content == "x\n"
        write_cell = "written" if write_ok else "NOT WRITTEN"
        if not write_ok:
            fails.append("step 3 (echo x > written.txt under 0467, must run): file content %r, result %r" % (content, results[2][:300]))
    if not sent["argv"] or sent["argv"][0] != args.shell:
        fails.append("the shell that ran step 1 was started as %s, expected argv[0] %s" % (json.dumps(sent["argv"]), args.shell))
    if not sent["final_answered"]:
        fails.append("the client never sent all the results back together (conversation did not finish)")
    asked = None
    if ASK_DIR is not None:
        # The denial came back with its hint; the request named in it ran once, allowed.
        granted = os.path.join(ASK_DIR, "granted.txt")
        hint = HINT.search(results[3])
        asked = bool(hint) and DENIED in results[3] and os.path.exists(granted) and DENIED not in results[4]
        if not asked:
            fails.append(
                "steps 4-5 (a write outside, then the request its hint names): hint back %s, file written %s, "
                "step 5 said %r" % (bool(hint), os.path.exists(granted), results[4][:300])
            )
        approvals = [(r.get("verdict"), r.get("by", "")) for r in audit if r.get("event") == "approval"]
        if [v for v, _ in approvals] != ["asked", "allowed-once"]:
            fails.append("audit: the approval records were %s, expected asked then allowed-once" % approvals)
    # Records of other events (approvals, refusals told) carry no mode of a run.
    audit = [r for r in audit if r.get("event") is None]

    # The audit log: every record carries the mode the shell got; the scripted commands are
    # there with the verdicts the suite expects.
    granted_mode = [r.get("allowed") for r in audit if "granted.txt" in (r.get("program") or "") and r.get("verdict") == "allow"]
    modes = sorted({r.get("allowed") for r in audit if not ("granted.txt" in (r.get("program") or "") and r.get("verdict") == "allow")})
    if modes != [args.mode]:
        fails.append("audit: the shell ran with modes %s, expected only %s" % (modes, args.mode))

    def verdicts(word):
        return sorted({r.get("verdict") for r in audit if word in (r.get("program") or "")})

    expect = [("sandbox-ok-", ["allow"]), ("/etc/shadow", ["deny"]), ("written.txt", ["deny" if args.mode == "0444" else "allow"])]
    if kernel:
        # One record, the client's own start; the commands never reach sandbox-bash's analysis.
        expect = [(args.outer, ["allow"]), ("sandbox-ok-", []), ("/etc/shadow", []), ("written.txt", [])]
    for word, want in expect:
        got = verdicts(word)
        if got != want:
            fails.append("audit: programs naming %s had verdicts %s, expected %s" % (word, got, want))
    runs = [
        {"source": r.get("source"), "verdict": r.get("verdict"), "program": (r.get("program") or "")[:120]}
        for r in audit
    ]
    out = {
        "allowed_back": allowed_back,
        "denial_back": denial_back,
        "write": write_cell,
        "asked": asked,
        "granted_mode": granted_mode,
        "argv": sent["argv"],
        "apis": sent["apis"],
        "requests": sent["requests"],
        "audit_runs": runs,
        "fails": fails,
    }
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")


def lo_up():
    """Brings the loopback interface of a fresh network namespace up (SIOCGIFFLAGS and
    SIOCSIFFLAGS), so the suite needs no ip(8)."""
    import fcntl
    import socket
    import struct

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ifr = fcntl.ioctl(s, 0x8913, struct.pack("16sH14x", b"lo", 0))
    flags = struct.unpack("16sH14x", ifr)[1]
    fcntl.ioctl(s, 0x8914, struct.pack("16sH14x", b"lo", flags | 1))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("serve")
    s.add_argument("--log", required=True)
    s.add_argument("--port-file", required=True)
    s.add_argument("--host", default="127.0.0.1")
    s.add_argument("--ask", default=None, help="a directory outside the workspace: the two request steps write there")
    r = sub.add_parser("report")
    r.add_argument("--log", required=True)
    c = sub.add_parser("check")
    c.add_argument("--log", required=True)
    c.add_argument("--audit", required=True)
    c.add_argument("--workspace", required=True)
    c.add_argument("--mode", required=True, choices=["0467", "0444"])
    c.add_argument("--readme", required=True)
    c.add_argument("--shell", required=True, help="the argv[0] the client must give its shell")
    c.add_argument("--denial", choices=["static", "kernel"], default="static", help="how a denial must show (see EACCES)")
    c.add_argument("--outer", default="", help="with --denial kernel: a word of the program sandbox-bash started")
    c.add_argument("--ask", default=None, help="as serve's --ask: the request steps are judged too")
    sub.add_parser("lo-up")
    args = p.parse_args()
    if args.cmd == "serve":
        serve(args)
    elif args.cmd == "check":
        check(args)
    elif args.cmd == "lo-up":
        lo_up()
    else:
        report(args)


if __name__ == "__main__":
    main()
