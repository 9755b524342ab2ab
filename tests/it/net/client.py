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

def open_tunnel(s, target):
    """CONNECT to target; None once the tunnel is up, else what the proxy answered."""
    s.sendall(f"CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n\r\n".encode())
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            break
        head += b
    return None if head.startswith(b"HTTP/1.1 200") else show(head + recv_all(s))

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
    if what == "icmp":
        # An echo request on a raw socket (root with system execute keeps CAP_NET_RAW).
        s = socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_ICMP)
        s.settimeout(2)
        s.sendto(b"\x08\x00\x00\x00\x00\x01\x00\x01CANARY", (args[0], 0))
        return "sent"
    if what == "dns":
        return str(socket.getaddrinfo(args[0], 80)[0][4])
    if what == "escape":
        # Leave the namespace through a socket made outside it (standard input), or reach what
        # no network namespace bounds.
        import ctypes, fcntl
        out = []
        try:
            fd = fcntl.ioctl(0, 0x894C)
            libc = ctypes.CDLL(None, use_errno=True)
            rc = libc.setns(fd, 0x40000000)
            out.append(f"setns {rc} {ctypes.get_errno()}")
        except OSError as e:
            out.append(f"SIOCGSKNS {errno_name(e)}")
        try:
            socket.socket(40, socket.SOCK_STREAM)
            out.append("vsock made")
        except OSError as e:
            out.append(f"vsock {errno_name(e)}")
        return " ".join(out)
    if what == "many":
        # Refused destinations without end: how many the proxy writes down is its business.
        host, count = args[0], int(args[1])
        for i in range(count):
            s = socket.create_connection(proxy(), timeout=10)
            s.sendall(f"CONNECT {host}:{1000 + i} HTTP/1.1\r\n\r\n".encode())
            recv_all(s)
        return "sent"
    s = socket.create_connection(proxy(), timeout=10)
    if what == "http":
        method, url = args[0], args[1]
        body = args[2].encode() if len(args) > 2 else b""
        head = f"{method} {url} HTTP/1.1\r\nHost: ignored.example\r\n"
        if body:
            head += f"Content-Length: {len(body)}\r\n"
        s.sendall(head.encode() + b"\r\n" + body)
        return show(recv_all(s))
    if what == "split":
        # CONNECT, then the inner bytes in pieces with a pause between them.
        target, pieces = args[0], [bytes.fromhex(a) for a in args[1:]]
        refused = open_tunnel(s, target)
        if refused is not None:
            return refused
        import time
        for p in pieces:
            try:
                s.sendall(p)
            except OSError:
                break
            time.sleep(0.3)
        return "TUNNEL " + show(recv_all(s))
    if what == "connect":
        target, inner = args[0], bytes.fromhex(args[1]) if len(args) > 1 else b"GET / HTTP/1.0\r\n\r\n"
        refused = open_tunnel(s, target)
        if refused is not None:
            return refused
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

def errno_name(e):
    import errno
    return errno.errorcode.get(e.errno, str(e.errno))

try:
    print("OK", main(*sys.argv[1:]))
except OSError as e:
    import errno
    print("ERR", errno.errorcode.get(e.errno, e.errno), e)
