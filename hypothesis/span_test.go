package hypothesis

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestFormatMs(t *testing.T) {
	for ms, want := range map[float64]string{
		8000: "8s", 13000.25: "13.00025s", 0.0015: "1.5µs", 0: "0s", 0.1: "100µs", 250: "250ms",
		1e-7:            "0.0000001", // below a ns: the number of ms
		1700000000000.5: "1700000000000.5",
		1e9:             "1000000000",
		-1700000000000:  "-1700000000000",
	} {
		if got := FormatMs(ms); got != want {
			t.Errorf("FormatMs(%v) = %q, want %q", ms, got, want)
		}
	}
}

// ParseInstant (whole-ms resolutions) refuses numbers past a duration's
// range instead of wrapping them.
func TestParseInstantRange(t *testing.T) {
	for _, s := range []string{"1e20", "-1e20", "NaN", "9300000000000"} {
		if d, err := ParseInstant(s); err == nil {
			t.Errorf("ParseInstant(%q) = %v, want an error", s, d)
		}
	}
	if d, err := ParseInstant("9200000000000"); err != nil || d != 9200000000000*time.Millisecond {
		t.Errorf("ParseInstant(9200000000000) = %v, %v", d, err)
	}
}

// A span printed by FormatMs reads back to the same doubles, at every
// scale: µs times of a relative log, quarter-ms epoch times, and any bits.
func TestFormatMsReadsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(20261201, 21))
	for i := range 30000 {
		var ms float64
		switch i % 3 {
		case 0:
			ms = float64(r.Int64N(1e12)) / 1000 // µs of a relative log
		case 1:
			ms = 1.7e12 + float64(r.Int64N(4e9))/4 // epoch ms in quarters
		default:
			ms = math.Abs(math.Float64frombits(r.Uint64()))
			if math.IsNaN(ms) || math.IsInf(ms, 0) {
				continue
			}
		}
		got, err := instantMs(FormatMs(ms))
		if err != nil || got != ms {
			t.Fatalf("FormatMs(%v) = %q reads back as %v, %v", ms, FormatMs(ms), got, err)
		}
		if s := (Span{FromMs: ms, ToMs: math.Nextafter(ms, math.Inf(1))}); s.ToMs < math.MaxFloat64 {
			back, err := ParseSpan(s.String())
			if err != nil || back != s {
				t.Fatalf("span %v reads back as %v, %v", s, back, err)
			}
		}
	}
}
