package benchlog

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// clfTime is nginx's $time_local.
const clfTime = "02/Jan/2006:15:04:05 -0700"

// WriteCLF writes n lines of an nginx access log (combined, then
// $request_time and $upstream_response_time, every seventh with two
// upstream times), 50 lines a second, to dir/access.log: the CLF
// benchmark's log (ingest's BenchmarkIngestCLF, bench/clf.sh) and the
// instruction-count gate's (bench/icount.sh). No randomness: line i
// depends on i alone.
func WriteCLF(dir string, n int) (string, error) {
	path := filepath.Join(dir, "access.log")
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	WriteCLFLines(w, n)
	if err := w.Flush(); err != nil {
		return "", err
	}
	return path, f.Close()
}

// WriteCLFLines writes WriteCLF's n lines to w.
func WriteCLFLines(w *bufio.Writer, n int) {
	t0 := time.Date(2026, 12, 2, 17, 0, 0, 0, time.FixedZone("", 3*3600))
	statuses := []int{200, 200, 200, 200, 201, 304, 404, 500, 502, 503}
	for i := 0; i < n; i++ {
		ts := t0.Add(time.Duration(i/50) * time.Second).Format(clfTime)
		urt := fmt.Sprintf("0.%03d", i%200)
		if i%7 == 0 {
			urt = "0.000, " + urt
		}
		fmt.Fprintf(w, `10.0.%d.%d - - [%s] "GET /api/items/%d?page=%d HTTP/1.1" %d %d "https://example.com/p/%d" "Mozilla/5.0 (X11; Linux x86_64) bench/%d" %d.%03d %s`+"\n",
			i%256, i%97, ts, i%5000, i%9, statuses[i%10], 100+i%4000, i%300, i%13, i%3, i%1000, urt)
	}
}
