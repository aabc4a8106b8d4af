// Command genlog writes the chaos-shaped canonical NDJSON log of the
// benchmarks (internal/benchlog): bench/scale.sh runs it.
//
//	go run ./bench/genlog -rows 10000000 -shape interleaved -dir /tmp/x
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/rewind-dev/rewind/internal/benchlog"
)

func main() {
	rows := flag.Int("rows", 1_000_000, "rows to write")
	shape := flag.String("shape", "interleaved", "interleaved (one file) or sequential (one file per run)")
	dir := flag.String("dir", ".", "folder to write into")
	flag.Parse()
	if err := os.MkdirAll(*dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "genlog:", err)
		os.Exit(1)
	}
	paths, err := benchlog.WriteChaosLog(*dir, *rows, *shape)
	if err != nil {
		fmt.Fprintln(os.Stderr, "genlog:", err)
		os.Exit(1)
	}
	for _, p := range paths {
		fmt.Println(p)
	}
}
