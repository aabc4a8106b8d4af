package csv

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rewind-dev/rewind/ingest/record"
)

// decodeDump runs a produce and prints every row's columns but the order
// key, one line per row, with the order keys apart; err is the decode's.
func decodeDump(p record.Produce) (string, []int64, error) {
	var b strings.Builder
	var ords []int64
	err := p(context.Background(), func(rb arrow.RecordBatch) error {
		defer rb.Release()
		for i := 0; i < int(rb.NumRows()); i++ {
			for c := 0; c < int(rb.NumCols()); c++ {
				if c == record.ColOrd {
					continue
				}
				fmt.Fprintf(&b, "%s|", rb.Column(c).ValueStr(i))
			}
			b.WriteByte('\n')
			ords = append(ords, rb.Column(record.ColOrd).(interface{ Value(int) int64 }).Value(i))
		}
		return nil
	})
	return b.String(), ords, err
}

// sameAsOneReader decodes data with the chunked CSV reader at a chunk size
// and with one csv.Reader, and fails unless both give the same rows, lines
// included, in the same order, or the same error.
func sameAsOneReader(t *testing.T, data []byte, chunk int) {
	t.Helper()
	defer func(n int) { record.ChunkBytes = n }(record.ChunkBytes)
	record.ChunkBytes = chunk
	got, gotOrd, gotErr := decodeDump(decodeCSV(strings.NewReader(string(data)), record.DefaultMaxRecord, nil))
	want, wantOrd, wantErr := decodeDump(decodeCSVRecords(strings.NewReader(string(data)), 0, nil))
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("chunks of %d bytes: error %v, one reader %v\ninput %q", chunk, gotErr, wantErr, data)
	}
	if wantErr != nil {
		return
	}
	if got != want {
		t.Fatalf("chunks of %d bytes: rows differ\nchunked:\n%s\none reader:\n%s\ninput %q", chunk, got, want, data)
	}
	for i := 1; i < len(gotOrd); i++ {
		if gotOrd[i] <= gotOrd[i-1] {
			t.Fatalf("chunks of %d bytes: order keys %v not increasing", chunk, gotOrd)
		}
	}
	// one line per record: the same order keys as one reader's count
	if !strings.ContainsAny(strings.ReplaceAll(string(data), "\n", ""), "\"") && !strings.Contains(string(data), "\n\n") &&
		fmt.Sprint(gotOrd) != fmt.Sprint(wantOrd) {
		t.Fatalf("chunks of %d bytes: order keys %v, one reader %v", chunk, gotOrd, wantOrd)
	}
}

// randomCSV is a canonical CSV with what cuts records badly when quotes
// are not followed: quoted cells with commas, doubled quotes and line
// ends (CRLF too), long cells, blank lines, a BOM, and a bad record when
// bad > 0 (of several kinds).
func randomCSV(r *rand.Rand, records, bad int) []byte {
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteString("\ufeff")
	}
	b.WriteString("run,req,t_ms,latency_ms,outcome,note\n")
	for i := 1; i <= records; i++ {
		note := []string{"", "plain", `"a,b"`, `"say ""hi"""`, "\"two\nlines\"", "\"crlf\r\nend\"", `"` + strings.Repeat("z", r.IntN(300)) + `"`, `""`}[r.IntN(8)]
		t := fmt.Sprintf("%d.%d", i, r.IntN(10))
		outcome := "ok"
		if i == bad {
			switch r.IntN(5) {
			case 0:
				t = "soon" // not a number
			case 1:
				note = "x,y" // one cell too many
			case 2:
				note = `bare"quote`
			case 3:
				note = `"never closed`
			default:
				outcome = "" // derive nothing: left for the checks
			}
		}
		eol := "\n"
		if r.IntN(10) == 0 {
			eol = "\r\n"
		}
		fmt.Fprintf(&b, "r%d,%d,%s,%d,%s,%s%s", i%3, i, t, r.IntN(500), outcome, note, eol)
		if r.IntN(20) == 0 {
			b.WriteString("\n")
		}
	}
	return []byte(b.String())
}

// The chunked CSV reader gives what one csv.Reader gives, row for row and
// error for error, with chunks cut everywhere: inside quoted cells, at
// CRLF, at blank lines, and smaller than a record.
func TestCSVChunksAsOneReader(t *testing.T) {
	r := rand.New(rand.NewPCG(20261201, 41))
	for c := range 300 {
		bad := 0
		if c%3 == 2 {
			bad = 1 + r.IntN(60)
		}
		data := randomCSV(r, 1+r.IntN(60), bad)
		for _, chunk := range []int{1, 7, 16, 61, 256, 4 << 20} {
			sameAsOneReader(t, data, chunk)
		}
	}
	for _, data := range []string{"", "\n", "run\n", "run", "run,req\nr,1", "\ufeffrun\n\n\nr\n", `"ru` + "\n" + `n",req` + "\nr,1\n", "run\n\"r\n", "run,\"\n"} {
		for _, chunk := range []int{1, 3, 64} {
			sameAsOneReader(t, []byte(data), chunk)
		}
	}
}

// FuzzCSVChunks: for any bytes, the chunked reader agrees with one reader.
func FuzzCSVChunks(f *testing.F) {
	fuzzSeeds(f, "../../testdata/bad/*/*.csv", "../../../fixtures/peaks/*.csv")
	r := rand.New(rand.NewPCG(1, 2))
	f.Add(randomCSV(r, 20, 0))
	f.Add(randomCSV(r, 20, 7))
	f.Fuzz(func(t *testing.T, data []byte) {
		sameAsOneReader(t, data, 1+len(data)%97)
	})
}

// A stray quote early in a file of many chunks makes the rest of it one
// quoted cell: the chunked reader reads on to the end, as one reader does,
// and gives the same error.
func TestCSVStrayQuoteAcrossChunks(t *testing.T) {
	var b strings.Builder
	b.WriteString("run,req,outcome,note\nr,0,ok,\"open\n")
	for i := 1; b.Len() < 5*record.ChunkBytes; i++ {
		fmt.Fprintf(&b, "r,%d,ok,%s\n", i, strings.Repeat("x", i%61))
	}
	sameAsOneReader(t, []byte(b.String()), record.ChunkBytes)
	sameAsOneReader(t, []byte(b.String()), 4096)
	_, _, err := decodeDump(decodeCSV(strings.NewReader(b.String()), record.DefaultMaxRecord, nil))
	if err == nil || !strings.Contains(err.Error(), `extraneous or missing " in quoted-field`) {
		t.Fatalf("error %v, want the open quote named", err)
	}
}

// fuzzSeeds adds every file under the given globs as a seed.
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
