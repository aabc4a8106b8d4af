// Package loopback runs the simulators' real HTTP services on 127.0.0.1
// and gives them a context-aware sleep. Shared by sim/chaos (the catalog
// service) and sim/retry --real (the dependency).
package loopback

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Server is an http.Server listening on 127.0.0.1.
type Server struct {
	URL  string // http://127.0.0.1:PORT
	srv  *http.Server
	done chan error
}

// Start listens on 127.0.0.1 with a kernel-chosen port, so parallel runs and
// tests never collide, and serves h until Stop.
func Start(h http.Handler) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("listen on loopback: %w", err)
	}
	s := &Server{
		URL:  "http://" + ln.Addr().String(),
		srv:  &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second},
		done: make(chan error, 1),
	}
	go func() { s.done <- s.srv.Serve(ln) }()
	return s, nil
}

// Stop shuts the server down, giving handlers 5 s to finish before it cuts
// them off, and waits until it has stopped serving.
func (s *Server) Stop() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := s.srv.Shutdown(ctx)
	if err != nil {
		_ = s.srv.Close() // a handler outlived the grace period; cut it off
	}
	if serveErr := <-s.done; !errors.Is(serveErr, http.ErrServerClosed) {
		err = errors.Join(err, serveErr)
	}
	return err
}

// Sleep waits d or until ctx ends, and reports whether d elapsed.
func Sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
