package ingest

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/gunluk"
	"github.com/rewind-dev/rewind/ingest/format/typed"
	"github.com/rewind-dev/rewind/ingest/record"
)

// decodeOnly runs a format's decoder over data, with the checks every
// ingest runs (validation, required columns), without a database: what a
// fuzz target needs to show that no input crashes a decoder. It returns
// the decoder's error.
func decodeOnly(formatName string, data []byte) error {
	f, ok := formatNamed(formatName)
	if !ok {
		panic("no format " + formatName)
	}
	in, err := openInput(Stdin, bytes.NewReader(data), limits{})
	if err != nil {
		return err
	}
	defer in.close()
	c := newCollector()
	defer c.release()
	l := &loader{opts: Options{Run: "r"}}
	p, err := f.Decode(in, c)
	if err != nil {
		return err
	}
	s := newStream(context.Background(), record.Schema, l.requireColumns(validated(p)))
	defer s.Release()
	for s.Next() {
		_ = s.RecordBatch().NumRows()
	}
	return s.Err()
}

// fuzzSeeds adds every file under the given testdata globs as a seed.
func fuzzSeeds(f *testing.F, globs ...string) {
	for _, g := range globs {
		paths, _ := filepath.Glob(g)
		for _, p := range paths {
			if st, err := os.Stat(p); err == nil && st.Mode().IsRegular() && st.Size() < 1<<20 {
				b, _ := os.ReadFile(p)
				f.Add(b)
			}
		}
	}
}

// fuzzFormat is the body of every format's fuzz target: any input gives an
// error or batches, never a panic, a hang or an invalid batch.
func fuzzFormat(f *testing.F, formatName string, globs ...string) {
	fuzzSeeds(f, globs...)
	f.Fuzz(func(t *testing.T, data []byte) {
		_ = decodeOnly(formatName, data)
	})
}

func FuzzGunluk(f *testing.F) {
	fuzzFormat(f, gunluk.Name, "../fixtures/chaos/gunluk.json", "testdata/bad/gunluk-*/*")
}
func FuzzParquet(f *testing.F) {
	fuzzFormat(f, typed.ParquetName, "testdata/fuzz-seeds/*.parquet")
}
func FuzzArrow(f *testing.F) { fuzzFormat(f, typed.ArrowName, "testdata/fuzz-seeds/*.arrow") }
