package chaos

import (
	"fmt"
	"time"
)

// Config holds every parameter of the experiment. The defaults are the seed's
// assumptions IO17 (batching, delay, timeout), IO18 (noise) and IO19 (run shape
// and blast-radius plan).
type Config struct {
	Requests    int           // N: requests per run
	Window      int           // PENCERE: window size written to the log for the analyses
	Start       int           // DENEY_BASI: first request the experiment may tag
	BatchSize   int           // requests per batch; the tag and the delay apply per batch
	Delay       time.Duration // delay injected into tagged batches
	Timeout     time.Duration // client timeout per batch
	NoiseShare  float64       // share of untagged batches the service pauses
	NoisePause  time.Duration // length of that pause
	NoiseSeed   uint32        // TagHash seed that picks the paused batches
	TagShare    float64       // planned share of tagged users
	TagSeed     uint32        // TagHash seed that picks the tagged users
	Concurrency int           // client workers, each pulling the next batch
	// Progress, when set, is called after each batch with the batches sent so
	// far and the total over both runs. Workers call it concurrently, so it
	// must be safe for that, and done may arrive out of order.
	Progress func(done, total int)
}

// DefaultConfig returns the seed's parameters, with which a run reproduces the
// seed's gunluk.json.
func DefaultConfig() Config {
	return Config{
		Requests:    400,
		Window:      40,
		Start:       200,
		BatchSize:   4,
		Delay:       240 * time.Millisecond,
		Timeout:     100 * time.Millisecond,
		NoiseShare:  0.03,
		NoisePause:  150 * time.Millisecond,
		NoiseSeed:   31337,
		TagShare:    0.05,
		TagSeed:     20260731,
		Concurrency: 4,
	}
}

// Validate reports the first parameter a run cannot use.
func (c Config) Validate() error {
	switch {
	case c.Requests < 1:
		return fmt.Errorf("requests %d: must be at least 1", c.Requests)
	case c.Window < 1:
		return fmt.Errorf("window %d: must be at least 1", c.Window)
	case c.Start < 0 || c.Start >= c.Requests:
		// An empty experiment window would leave the blast radius undefined.
		return fmt.Errorf("experiment start %d: must be in 0..%d", c.Start, c.Requests-1)
	case c.BatchSize < 1:
		return fmt.Errorf("batch size %d: must be at least 1", c.BatchSize)
	case c.Concurrency < 1:
		return fmt.Errorf("concurrency %d: must be at least 1", c.Concurrency)
	case c.Timeout <= 0:
		return fmt.Errorf("timeout %v: must be positive", c.Timeout)
	case c.Delay < 0 || c.NoisePause < 0:
		return fmt.Errorf("delay %v, noise pause %v: must not be negative", c.Delay, c.NoisePause)
	}
	if err := checkShare("noise share", c.NoiseShare); err != nil {
		return err
	}
	return checkShare("tag share", c.TagShare)
}

func checkShare(name string, v float64) error {
	if !(v >= 0 && v <= 1) { // also rejects NaN
		return fmt.Errorf("%s %v: must be in [0, 1]", name, v)
	}
	return nil
}

// TaggedUser reports whether the blast-radius plan tags user u.
func (c Config) TaggedUser(u int) bool {
	return TagHash(c.TagSeed, int64(u)) < c.TagShare
}

// batches is the number of batches in a run; a last, shorter batch carries
// the remainder when Requests is not a multiple of BatchSize.
func (c Config) batches() int {
	return (c.Requests + c.BatchSize - 1) / c.BatchSize
}

// members returns the half-open request range [first, end) of batch b.
func (c Config) members(b int) (first, end int) {
	first = b * c.BatchSize
	return first, min(first+c.BatchSize, c.Requests)
}

// batchTagged is the client's tagging rule: the tag travels with the batch, so
// one tagged user pulls every member of its batch into the experiment. That is
// the blast-radius multiplier the seed measures.
func (c Config) batchTagged(experimentOn bool, b int) bool {
	first, end := c.members(b)
	if !experimentOn || first < c.Start {
		return false
	}
	for u := first; u < end; u++ {
		if c.TaggedUser(u) {
			return true
		}
	}
	return false
}

// pausedBatch is the service's noise rule, keyed by batch number.
func (c Config) pausedBatch(b int) bool {
	return TagHash(c.NoiseSeed, int64(b)) < c.NoiseShare
}

// TagHash is the seed's seeded 32-bit mixing hash, ported bit for bit. It maps
// (seed, i) to a double in [0, 1); the experiment tags user i when
// TagHash(tagSeed, i) < tagShare, and the catalog service pauses batch b when
// TagHash(noiseSeed, b) < noiseShare.
//
// The seed computes it with Math.imul and >>> 0, i.e. in wrapping 32-bit
// arithmetic on ToInt32(i + 1); uint32 multiplication wraps the same way, and
// uint32(i+1) equals ToInt32(i+1) reinterpreted as unsigned for every i the
// seed can represent exactly (|i| < 2^53).
func TagHash(seed uint32, i int64) float64 {
	x := seed ^ uint32(i+1)*0x9e3779b1
	x = (x ^ x>>16) * 0x85ebca6b
	x = (x ^ x>>13) * 0xc2b2ae35
	x ^= x >> 16
	// 2^32: the result is exactly representable and strictly below 1.
	return float64(x) / 4294967296
}
