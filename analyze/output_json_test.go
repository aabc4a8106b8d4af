package analyze

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/rewind-dev/rewind/internal/jsontext"
)

// TestAppendJSONMatchesMarshal: the RowWriter's direct JSON encoding of
// numbers, booleans, strings and null writes what jsontext.Marshal writes,
// over edge values and random floats of every magnitude.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	values := []any{nil, true, false, 0, -1, 42, int64(math.MaxInt64), int64(math.MinInt64), int32(-7),
		0.0, math.Copysign(0, -1), 1.0, -2.5, 0.1, 1e-6, 9.99999e-7, 1e-7, 1.5e-300, 1e20, 1e21, 123456789e15,
		math.MaxFloat64, math.SmallestNonzeroFloat64, 0.8595584102769972, math.NaN(), math.Inf(1),
		"", "ok_share", "p(95)<200 & x>1", `a"b`, `back\slash`, "tab\there", "caf\u00e9", "\u2028", "bad\xffutf8",
		[]any{1.0, "x"}, uint8(3), float32(0.1)}
	rng := rand.New(rand.NewPCG(41, 1))
	for i := 0; i < 20000; i++ {
		f := math.Float64frombits(rng.Uint64())
		if i%2 == 0 { // magnitudes a row holds, too
			f = (rng.Float64() - 0.5) * math.Pow(10, float64(rng.IntN(50)-25))
		}
		values = append(values, f, int64(rng.Uint64()))
	}
	for _, v := range values {
		got, gotErr := appendJSON([]byte("x"), v)
		want, wantErr := jsontext.Marshal(v)
		if (gotErr != nil) != (wantErr != nil) {
			t.Fatalf("%#v: error %v, Marshal's %v", v, gotErr, wantErr)
		}
		if wantErr == nil && string(got) != "x"+string(want) {
			t.Fatalf("%#v: %s, Marshal writes %s", v, got[1:], want)
		}
	}
}
