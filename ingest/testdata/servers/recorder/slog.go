package main

import (
	"log"
	"log/slog"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"time"
)

// serveSlog runs a Go service on addr that passes every request to the
// backend and logs it when it ends with log/slog's JSON handler, as a
// service's request middleware does: the record's time is when the line
// is written (the request's end, in the local zone), duration a
// time.Duration (integer ns).
func serveSlog(addr, backend, path string) {
	if !strings.HasPrefix(addr, "127.0.0.1:") {
		log.Fatal("listen on 127.0.0.1 only")
	}
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	logger := slog.New(slog.NewJSONHandler(f, nil))
	u, _ := url.Parse(backend)
	proxy := httputil.NewSingleHostReverseProxy(u)
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		sw := &statusWriter{ResponseWriter: w, status: 200}
		proxy.ServeHTTP(sw, r)
		logger.Info("request", "method", r.Method, "path", r.URL.Path, "status", sw.status, "duration", time.Since(t0))
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, handler)
}

type statusWriter struct {
	http.ResponseWriter
	status int
}

func (s *statusWriter) WriteHeader(code int) {
	s.status = code
	s.ResponseWriter.WriteHeader(code)
}
