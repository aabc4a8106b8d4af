// Command genlog writes the benchmarks' generated logs (internal/benchlog):
// the chaos-shaped canonical NDJSON log (bench/scale.sh, bench/icount.sh)
// or, with -format clf, the nginx access log of the CLF benchmark
// (bench/icount.sh).
//
//	go run ./bench/genlog -rows 10000000 -shape interleaved -dir /tmp/x
//	go run ./bench/genlog -rows 1000000 -format clf -dir /tmp/x
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rewind-dev/rewind/internal/benchlog"
)

func main() {
	rows := flag.Int("rows", 1_000_000, "rows (lines) to write")
	shape := flag.String("shape", "interleaved", "interleaved (one file) or sequential (one file per run); ndjson only")
	format := flag.String("format", "ndjson", "ndjson (the chaos-shaped canonical log) or clf (an nginx access log, access.log)")
	dir := flag.String("dir", ".", "folder to write into")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fail(err)
	}
	var paths []string
	switch *format {
	case "ndjson":
		var err error
		if paths, err = benchlog.WriteChaosLog(*dir, *rows, *shape); err != nil {
			fail(err)
		}
	case "clf":
		p, err := benchlog.WriteCLF(*dir, *rows)
		if err != nil {
			fail(err)
		}
		paths = []string{p}
	default:
		fail(fmt.Errorf("-format %q: want ndjson or clf", *format))
	}
	for _, p := range paths {
		fmt.Println(p)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genlog:", err)
	os.Exit(1)
}
