package ingest

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-dev/rewind/ingest/format/aws"
	"github.com/rewind-dev/rewind/ingest/format/envoytext"
	"github.com/rewind-dev/rewind/ingest/format/gcplb"
	"github.com/rewind-dev/rewind/ingest/format/haproxy"
	"github.com/rewind-dev/rewind/ingest/format/traefik"
)

// errorCase is a bad input and the start of the error it must give after
// the file's path (":line: field ...").
type errorCase struct{ in, want string }

// checkErrors ingests each case as name with --from format into a database
// that holds the chaos fixture, and wants its error and an unchanged
// database.
func checkErrors(t *testing.T, format, name string, cases map[string]errorCase) {
	t.Helper()
	for cname, c := range cases {
		t.Run(cname, func(t *testing.T) {
			db, _ := openDB(t)
			mustIngest(t, db, Options{}, chaosFixture)
			before := snapshot(t, db)
			path := writeFile(t, name, c.in)
			_, err := Files(context.Background(), db, Options{From: format}, []string{path})
			if err == nil || !strings.HasPrefix(err.Error(), path+c.want) {
				t.Errorf("error %v, want %s%s", err, path, c.want)
			}
			if snapshot(t, db) != before {
				t.Error("a failed ingest changed the database")
			}
		})
	}
}

// The fuzz engine runs few inputs on a loaded machine; this walks fixed
// mutations of every real file of the line-oriented formats (cuts, flipped
// bytes, stray quotes, brackets and tabs) through the decoders, which must
// answer each with rows or a line's error, never a panic (which the
// stream turns into an error without a line).
func TestTextFormatsSurviveMutations(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	junk := []byte("\"[]{}\t -+:/0\n\\")
	for _, f := range []string{haproxy.Name, envoytext.Name, aws.ALBName, aws.ELBName, aws.CloudFrontName, traefik.Name, gcplb.Name} {
		inputs, _ := filepath.Glob("testdata/real/" + f + "/*/input*")
		for _, in := range inputs {
			data, err := os.ReadFile(in)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < 40; i++ {
				m := bytes.Clone(data)
				for k := 0; k <= i%4; k++ {
					p := rng.IntN(len(m))
					switch rng.IntN(3) {
					case 0:
						m = m[:p]
					case 1:
						m[p] = junk[rng.IntN(len(junk))]
					default:
						m = append(m[:p], append([]byte{junk[rng.IntN(len(junk))]}, m[p:]...)...)
					}
					if len(m) == 0 {
						break
					}
				}
				var le *LineError
				if err := decodeOnly(f, m); err != nil && !errors.As(err, &le) {
					t.Fatalf("%s, mutation %d: %v (want a file:line error)", in, i, err)
				}
			}
		}
	}
}
