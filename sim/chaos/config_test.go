package chaos

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The wanted values follow the seed's JavaScript: (seed ^ imul(i+1, K1)) >>> 0,
// then two xor-shift-multiply rounds with imul and a final xor-shift, divided
// by 2^32. They were cross-checked by running the seed's function under Node.
func TestTagHashValues(t *testing.T) {
	cases := []struct {
		name string
		seed uint32
		i    int64
		want float64
	}{
		{"tag seed, user 0", 20260731, 0, 0.9512913527432829},
		{"tag seed, user 1 (tagged)", 20260731, 1, 0.016720327781513333},
		{"tag seed, user 2", 20260731, 2, 0.2518372677732259},
		{"tag seed, user 199", 20260731, 199, 0.18964726803824306},
		{"tag seed, user 200", 20260731, 200, 0.33308438607491553},
		{"tag seed, user 399", 20260731, 399, 0.13502333359792829},
		{"noise seed, batch 0", 31337, 0, 0.9452595768962055},
		{"noise seed, batch 99", 31337, 99, 0.5367581723257899},
		// seed 0, i 0: x starts at imul(1, K1) = 0x9e3779b1.
		{"zero seed", 0, 0, 0.07026689755730331},
		// i+1 = 0 makes the imul term vanish; ToInt32(0xffffffff) >>> 0 keeps the seed.
		{"all-ones seed, i = -1", 0xffffffff, -1, 0.5075902475509793},
		// i+1 = 2^31 is -2^31 after ToInt32; the product wraps the same way in uint32.
		{"i+1 = 2^31", 1, 2147483647, 0.5449139126576483},
		// i+1 = 2^32 is 0 after ToInt32.
		{"i+1 = 2^32", 7, 4294967295, 0.09682743344455957},
	}
	for _, c := range cases {
		if got := TagHash(c.seed, c.i); got != c.want {
			t.Errorf("%s: TagHash(%d, %d) = %v, want %v", c.name, c.seed, c.i, got, c.want)
		}
	}
}

func TestTagHashRange(t *testing.T) {
	for i := int64(-1000); i < 100000; i++ {
		if h := TagHash(20260731, i); h < 0 || h >= 1 {
			t.Fatalf("TagHash(20260731, %d) = %v, outside [0, 1)", i, h)
		}
	}
}

// With the seed's tag seed and share, 11 of the 200 users in the experiment
// window are tagged, each in a different batch of 4 (so 44 requests are hit).
func TestTagHashTaggedUsers(t *testing.T) {
	var got []int64
	for u := int64(200); u < 400; u++ {
		if TagHash(20260731, u) < 0.05 {
			got = append(got, u)
		}
	}
	want := []int64{210, 235, 302, 309, 314, 318, 340, 367, 370, 378, 390}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("tagged users in 200..399 (-want +got):\n%s", d)
	}
}

// The noise hash pauses 4 of the 100 batches: the control run's 16 broken
// requests. Batches 67 and 88 fall in the experiment window untagged, which
// with the 44 tagged requests gives the experiment window's 52 broken.
func TestTagHashNoiseBatches(t *testing.T) {
	var got []int64
	for b := int64(0); b < 100; b++ {
		if TagHash(31337, b) < 0.03 {
			got = append(got, b)
		}
	}
	want := []int64{17, 21, 67, 88}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("paused batches (-want +got):\n%s", d)
	}
}

// A run whose size is not a multiple of the batch size ends in a short batch
// instead of sending requests past N.
func TestBatchesShortLast(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Requests, cfg.BatchSize = 10, 4
	var got [][2]int
	for b := range cfg.batches() {
		first, end := cfg.members(b)
		got = append(got, [2]int{first, end})
	}
	want := [][2]int{{0, 4}, {4, 8}, {8, 10}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("batch members (-want +got):\n%s", d)
	}
}

func TestValidate(t *testing.T) {
	bad := map[string]func(*Config){
		"no requests":     func(c *Config) { c.Requests = 0 },
		"start past N":    func(c *Config) { c.Start = c.Requests },
		"zero batch":      func(c *Config) { c.BatchSize = 0 },
		"zero workers":    func(c *Config) { c.Concurrency = 0 },
		"zero timeout":    func(c *Config) { c.Timeout = 0 },
		"negative delay":  func(c *Config) { c.Delay = -1 },
		"share above one": func(c *Config) { c.TagShare = 1.5 },
		"zero window":     func(c *Config) { c.Window = 0 },
	}
	for name, mutate := range bad {
		cfg := DefaultConfig()
		mutate(&cfg)
		if cfg.Validate() == nil {
			t.Errorf("%s: Validate() = nil, want an error", name)
		}
	}
	if err := DefaultConfig().Validate(); err != nil {
		t.Errorf("defaults: %v", err)
	}
}
