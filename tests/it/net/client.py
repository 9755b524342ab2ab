# The test's client inside the sandbox: each way out, through paths the analysis cannot see.
# Prints one line per attempt: "OK <what came back>" or "ERR <errno name> <message>".
import os, socket, sys

def proxy():
    host, port = os.environ["SANDBOX_BASH_PROXY"].rsplit(":", 1)
    return host, int(port)

def show(data):
    return data.decode("latin-1").replace("\r", "").replace("\n", "|")

def recv_all(s):
    out = b""
    while True:
        try:
            b = s.recv(65536)
        except OSError:
            break
        if not b:
            break
        out += b
    return out

def main(what, *args):
    if what == "direct":
        host, port = args
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_STREAM)
        s.settimeout(5)
        s.connect((host, int(port)))
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        return show(recv_all(s))
    if what == "udp":
        host, port = args
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"UDP CANARY", (host, int(port)))
        return "sent"
    if what == "dns":
        return str(socket.getaddrinfo(args[0], 80)[0][4])
    s = socket.create_connection(proxy(), timeout=10)
    if what == "http":
        method, url = args[0], args[1]
        body = args[2].encode() if len(args) > 2 else b""
        head = f"{method} {url} HTTP/1.1\r\nHost: ignored.example\r\n"
        if body:
            head += f"Content-Length: {len(body)}\r\n"
        s.sendall(head.encode() + b"\r\n" + body)
        return show(recv_all(s))
    if what == "connect":
        target, inner = args[0], bytes.fromhex(args[1]) if len(args) > 1 else b"GET / HTTP/1.0\r\n\r\n"
        s.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
        head = b""
        while b"\r\n\r\n" not in head:
            b = s.recv(1)
            if not b:
                break
            head += b
        if not head.startswith(b"HTTP/1.1 200"):
            return show(head + recv_all(s))
        s.sendall(inner)
        return "TUNNEL " + show(recv_all(s))
    if what == "socks":
        host, port = args[0], int(args[1])
        s.sendall(b"\x05\x01\x00")
        if s.recv(2) != b"\x05\x00":
            return "no method"
        name = host.encode()
        s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + port.to_bytes(2, "big"))
        reply = s.recv(10)
        if reply[1] != 0:
            return f"SOCKS REPLY {reply[1]}"
        s.sendall(b"GET / HTTP/1.0\r\n\r\n")
        return "SOCKS " + show(recv_all(s))
    raise SystemExit(f"unknown {what}")

try:
    print("OK", main(*sys.argv[1:]))
except OSError as e:
    import errno
    print("ERR", errno.errorcode.get(e.errno, e.errno), e)
