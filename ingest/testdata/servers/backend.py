import http.server, time, sys
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        code, delay = 200, 0.002
        if self.path.startswith("/slow"): delay = 0.120
        if self.path.startswith("/fail"): code = 503
        if self.path.startswith("/missing"): code = 404
        time.sleep(delay)
        body = b"ok\n" if code == 200 else b"no\n"
        self.send_response(code); self.send_header("Content-Length", str(len(body))); self.end_headers(); self.wfile.write(body)
    do_POST = do_GET
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
