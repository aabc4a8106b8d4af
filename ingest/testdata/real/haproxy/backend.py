# Tiny loopback backend for the haproxy sample log: /slow sleeps 300 ms, /missing is a 404.
import http.server, time
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path.startswith("/slow"):
            time.sleep(0.3)
        code = 404 if self.path.startswith("/missing") else 200
        body = b"hello\n"
        self.send_response(code)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_POST = do_GET
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", 18101), H).serve_forever()
