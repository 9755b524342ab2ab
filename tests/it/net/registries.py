# Package registries of the test's own, on 127.0.0.1 at a port the kernel picks (printed
# first): a directory index for pip (/simple/), a tarball registry for npm (/npm/) and a sparse
# cargo registry (/cargo/index/), each serving one tiny package made here. So the everyday
# tests install, build and run with pip, npm and cargo without reaching any network.
import base64, hashlib, http.server, io, json, sys, tarfile, zipfile

server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
port = server.server_address[1]
base = f"http://127.0.0.1:{port}"
files = {}


def tar_gz(entries):
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as t:
        for name, text, mode in entries:
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(data), mode, 1700000000
            t.addfile(info, io.BytesIO(data))
    return out.getvalue()


# pip: a pure-Python wheel and the index that names it.
def b64(digest):
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


wheel_files = {
    "tinypkg/__init__.py": "VALUE = 'tinypkg works'\n",
    "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
    "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}
record = "".join(
    f"{n},sha256={b64(hashlib.sha256(t.encode()).digest())},{len(t.encode())}\n" for n, t in wheel_files.items()
)
record += "tinypkg-1.0.dist-info/RECORD,,\n"
wheel = io.BytesIO()
with zipfile.ZipFile(wheel, "w") as z:
    for n, t in list(wheel_files.items()) + [("tinypkg-1.0.dist-info/RECORD", record)]:
        z.writestr(n, t)
wheel = wheel.getvalue()
wheel_name = "tinypkg-1.0-py3-none-any.whl"
files[f"/files/{wheel_name}"] = ("application/octet-stream", wheel)
wheel_sha = hashlib.sha256(wheel).hexdigest()
page = f'<html><body><a href="/files/{wheel_name}#sha256={wheel_sha}">{wheel_name}</a></body></html>\n'
for path in ["/simple/tinypkg/", "/simple/tinypkg"]:
    files[path] = ("text/html", page.encode())
files["/simple/"] = ("text/html", b'<html><body><a href="/simple/tinypkg/">tinypkg</a></body></html>\n')

# npm: a package with a program, and its document.
npm_tgz = tar_gz(
    [
        ("package/package.json", json.dumps({"name": "tinynpm", "version": "1.0.0", "bin": {"tinynpm": "cli.js"}}), 0o644),
        ("package/index.js", "module.exports = 'tinynpm works';\n", 0o644),
        ("package/cli.js", "#!/usr/bin/env node\nconsole.log('tinynpm works');\n", 0o755),
    ]
)
files["/npm/tinynpm/-/tinynpm-1.0.0.tgz"] = ("application/octet-stream", npm_tgz)
packument = {
    "name": "tinynpm",
    "dist-tags": {"latest": "1.0.0"},
    "versions": {
        "1.0.0": {
            "name": "tinynpm",
            "version": "1.0.0",
            "bin": {"tinynpm": "cli.js"},
            "dist": {
                "tarball": f"{base}/npm/tinynpm/-/tinynpm-1.0.0.tgz",
                "shasum": hashlib.sha1(npm_tgz).hexdigest(),
                "integrity": "sha512-" + base64.b64encode(hashlib.sha512(npm_tgz).digest()).decode(),
            },
        }
    },
}
files["/npm/tinynpm"] = ("application/json", json.dumps(packument).encode())

# cargo: a sparse index with one crate.
crate = tar_gz(
    [
        (
            "tinycrate-0.1.0/Cargo.toml",
            '[package]\nname = "tinycrate"\nversion = "0.1.0"\nedition = "2021"\n',
            0o644,
        ),
        ("tinycrate-0.1.0/src/lib.rs", "pub fn value() -> u32 {\n    42\n}\n", 0o644),
    ]
)
files["/cargo/crates/tinycrate/0.1.0/download"] = ("application/octet-stream", crate)
files["/cargo/index/config.json"] = ("application/json", json.dumps({"dl": f"{base}/cargo/crates"}).encode())
entry = {
    "name": "tinycrate",
    "vers": "0.1.0",
    "deps": [],
    "cksum": hashlib.sha256(crate).hexdigest(),
    "features": {},
    "yanked": False,
}
files["/cargo/index/ti/ny/tinycrate"] = ("text/plain", (json.dumps(entry) + "\n").encode())


class Serve(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        path = self.path.split("?")[0]
        found = files.get(path)
        if found is None:
            self.send_response(404)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        kind, body = found
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_HEAD(self):
        self.do_GET()

    def log_message(self, *args):
        pass


server.RequestHandlerClass = Serve
print(port, flush=True)
server.serve_forever()
