//go:build ignore

// record writes this folder's access.log.gz and truth.json: a real nginx
// from Debian on 127.0.0.1 in front of a small Go backend whose fault
// starts and ends at known times, under an open-loop load (a request every
// 5 ms, 8000 in all, so the fault does not slow the load down).
//
//	go run record.go   (needs nginx on PATH; writes into the current folder)
//
// The backend answers 200 after 2-4 ms, with 2 % of its answers 500;
// from 15 s to 30 s after its start a quarter of its answers are 503 and
// every answer takes 200 ms more. It records the fault's start and end
// (Unix ms) and its own counts in truth.json.
package main

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"time"
)

const (
	requests   = 8000
	every      = 5 * time.Millisecond
	faultFrom  = 15 * time.Second
	faultUntil = 30 * time.Second
)

type truth struct {
	FaultStartUnixMs int64  `json:"fault_start_unix_ms"`
	FaultEndUnixMs   int64  `json:"fault_end_unix_ms"`
	Requests         int64  `json:"backend_requests"`
	Status500        int64  `json:"backend_500"`
	Status503        int64  `json:"backend_503"`
	InFault          int64  `json:"backend_requests_in_fault"`
	Nginx            string `json:"nginx"`
	LogFormat        string `json:"log_format"`
}

const logFormat = `$msec $status $request_time "$request" $request_id`

func main() {
	dir, err := os.MkdirTemp("", "rewind-nginx-fault")
	check(err)
	defer os.RemoveAll(dir)
	var mu sync.Mutex
	rng := rand.New(rand.NewPCG(39, 2026))
	var tr truth
	start := time.Now()
	tr.FaultStartUnixMs = start.Add(faultFrom).UnixMilli()
	tr.FaultEndUnixMs = start.Add(faultUntil).UnixMilli()
	backend := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		since := time.Since(start)
		fault := since >= faultFrom && since < faultUntil
		mu.Lock()
		delay := 2*time.Millisecond + time.Duration(rng.IntN(2000))*time.Microsecond
		status := 200
		u := rng.Float64()
		switch {
		case fault && u < 0.25:
			status = 503
			tr.Status503++
		case u > 0.98:
			status = 500
			tr.Status500++
		}
		tr.Requests++
		if fault {
			tr.InFault++
			delay += 200 * time.Millisecond
		}
		mu.Unlock()
		time.Sleep(delay)
		w.WriteHeader(status)
		io.WriteString(w, "ok\n")
	})
	bl, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	go http.Serve(bl, backend)
	nl, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	nginxAddr := nl.Addr().String()
	nl.Close()
	conf := fmt.Sprintf(`worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 1024; }
http {
    log_format msec '%[2]s';
    access_log %[1]s/access.log msec;
    client_body_temp_path %[1]s/body;
    proxy_temp_path %[1]s/proxy;
    fastcgi_temp_path %[1]s/fastcgi;
    uwsgi_temp_path %[1]s/uwsgi;
    scgi_temp_path %[1]s/scgi;
    server {
        listen %[3]s;
        location / { proxy_pass http://%[4]s; }
    }
}
`, dir, logFormat, nginxAddr, bl.Addr().String())
	check(os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644))
	v, err := exec.Command("nginx", "-v").CombinedOutput()
	check(err)
	tr.Nginx, tr.LogFormat = string(v[:len(v)-1]), logFormat
	ng := exec.Command("nginx", "-p", dir, "-c", filepath.Join(dir, "nginx.conf"), "-g", "daemon off;")
	check(ng.Start())
	defer ng.Process.Kill()
	waitListening(nginxAddr)
	load("http://"+nginxAddr, start)
	check(ng.Process.Signal(os.Interrupt))
	ng.Wait()
	writeGzip(filepath.Join(dir, "access.log"), "access.log.gz")
	b, err := json.MarshalIndent(tr, "", "  ")
	check(err)
	check(os.WriteFile("truth.json", append(b, '\n'), 0o644))
}

// load sends requests open-loop, one every 5 ms from start, each in its own
// goroutine; it returns when all have answered.
func load(url string, start time.Time) {
	c := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	var wg sync.WaitGroup
	for i := range requests {
		time.Sleep(time.Until(start.Add(time.Duration(i) * every)))
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequestWithContext(context.Background(), "GET", fmt.Sprintf("%s/api/items/%d", url, i), nil)
			if resp, err := c.Do(req); err == nil {
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
}

func waitListening(addr string) {
	for range 200 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	panic("nginx did not listen on " + addr)
}

func writeGzip(from, to string) {
	b, err := os.ReadFile(from)
	check(err)
	f, err := os.Create(to)
	check(err)
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	zw.ModTime = time.Unix(0, 0)
	_, err = zw.Write(b)
	check(err)
	check(zw.Close())
	check(f.Close())
}

func check(err error) {
	if err != nil {
		panic(err)
	}
}
