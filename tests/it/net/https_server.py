# An HTTPS server of the test's own: the certificate and key given, on 127.0.0.2, a port the
# kernel picks (printed first), answering every GET with a line.
import http.server, ssl, sys

class Hello(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = f"HELLO OVER TLS {self.path}\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass

server = http.server.HTTPServer(("127.0.0.2", 0), Hello)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1], sys.argv[2])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
