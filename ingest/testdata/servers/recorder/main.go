// Command recorder is the backend and the load of the server recordings
// under ingest/testdata/real/<server>/: it serves /r/ID on -listen,
// recording for every request its own truth (arrival time, how long its
// handler took, the status it returned), sends -n requests to -target
// (through -proxy when given), four at a time, and writes the record as
// CSV to -record. Requests 120-179 fall in a fault window: 503 after
// 150-200 ms. The others take 5-104 ms, by their id. Everything listens
// on and talks to 127.0.0.1 only.
package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

type rec struct {
	id                 int
	arrivalUs, durUs   int64
	status             int
	clientUs, clientMs int64
}

func main() {
	listen := flag.String("listen", "127.0.0.1:18080", "backend address")
	target := flag.String("target", "", "server URL the load goes to, e.g. http://127.0.0.1:18081")
	proxy := flag.String("proxy", "", "forward proxy URL (Squid, Traffic Server)")
	n := flag.Int("n", 300, "requests")
	out := flag.String("record", "backend.csv", "record file")
	slogListen := flag.String("slog-listen", "", "also run a Go service logging with log/slog on this address, in front of the backend")
	slogLog := flag.String("slog-log", "service.log", "the slog service's log")
	flag.Parse()
	if !strings.HasPrefix(*listen, "127.0.0.1:") {
		log.Fatal("listen on 127.0.0.1 only")
	}
	var mu sync.Mutex
	recs := map[int]*rec{}
	mux := http.NewServeMux()
	mux.HandleFunc("/r/", func(w http.ResponseWriter, r *http.Request) {
		t0 := time.Now()
		id, _ := strconv.Atoi(strings.TrimPrefix(r.URL.Path, "/r/"))
		status, sleep := 200, time.Duration(5+(id*37)%100)*time.Millisecond
		if id >= 120 && id < 180 {
			status, sleep = 503, time.Duration(150+(id*13)%51)*time.Millisecond
		}
		time.Sleep(sleep)
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(status)
		fmt.Fprintf(w, "request %d\n", id)
		mu.Lock()
		recs[id] = &rec{id: id, arrivalUs: t0.UnixMicro(), durUs: time.Since(t0).Microseconds(), status: status}
		mu.Unlock()
	})
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	go http.Serve(ln, mux)
	if *slogListen != "" {
		serveSlog(*slogListen, "http://"+*listen, *slogLog)
	}
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableKeepAlives: false}}
	if *proxy != "" {
		u, _ := url.Parse(*proxy)
		client.Transport = &http.Transport{Proxy: http.ProxyURL(u)}
	}
	waitReady(client, *target)
	mu.Lock()
	recs = map[int]*rec{} // the readiness probes are not part of the record
	mu.Unlock()
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range jobs {
				t0 := time.Now()
				resp, err := client.Get(fmt.Sprintf("%s/r/%d", *target, id))
				if err != nil {
					log.Printf("request %d: %v", id, err)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				mu.Lock()
				if r := recs[id]; r != nil {
					r.clientUs, r.clientMs = t0.UnixMicro(), time.Since(t0).Milliseconds()
				}
				mu.Unlock()
			}
		}()
	}
	for id := 0; id < *n; id++ {
		jobs <- id
	}
	close(jobs)
	wg.Wait()
	time.Sleep(2 * time.Second) // let the server write its last lines
	write(*out, recs)
}

// waitReady probes the target until it answers, at most 20 s.
func waitReady(c *http.Client, target string) {
	for i := 0; i < 200; i++ {
		resp, err := c.Get(target + "/r/999999")
		if err == nil {
			resp.Body.Close()
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	log.Fatal("target not ready: ", target)
}

func write(path string, recs map[int]*rec) {
	var ids []int
	for id := range recs {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	f, err := os.Create(path)
	if err != nil {
		log.Fatal(err)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"id", "arrival_us", "handler_us", "status", "client_sent_us", "client_ms"})
	for _, id := range ids {
		r := recs[id]
		w.Write([]string{strconv.Itoa(id), strconv.FormatInt(r.arrivalUs, 10), strconv.FormatInt(r.durUs, 10),
			strconv.Itoa(r.status), strconv.FormatInt(r.clientUs, 10), strconv.FormatInt(r.clientMs, 10)})
	}
	w.Flush()
	if err := f.Close(); err != nil {
		log.Fatal(err)
	}
}
