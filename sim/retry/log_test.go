package retry

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"

	"github.com/rewind-dev/rewind/internal/golden"
)

// tiny is a model small enough to read: five clients, a 0.5 s freeze.
func tiny() Config {
	cfg := DefaultConfig()
	cfg.Clients, cfg.Workers, cfg.Queue = 5, 1, 1
	cfg.ThinkMin, cfg.ThinkMax = 200*time.Millisecond, 400*time.Millisecond
	cfg.Duration = 2 * time.Second
	cfg.FreezeFrom, cfg.FreezeTo = time.Second, 1500*time.Millisecond
	cfg.DegradedRPS, cfg.DegradedTo = 12.5, 1800*time.Millisecond
	cfg.AffectedFrom, cfg.AffectedTo = time.Second, 1800*time.Millisecond
	return cfg
}

func TestLogGolden(t *testing.T) {
	got := logBytes(t, tiny())
	golden.Check(t, filepath.Join("testdata", "tiny.ndjson"), got)
}

// TestLogShape checks the metadata lines the analyses take defaults from.
func TestLogShape(t *testing.T) {
	lines := bytes.Split(bytes.TrimSpace(logBytes(t, DefaultConfig())), []byte("\n"))
	var exp struct {
		Record, Experiment string
		Params             map[string]float64
	}
	if err := json.Unmarshal(lines[0], &exp); err != nil {
		t.Fatal(err)
	}
	if exp.Record != "experiment" || exp.Experiment != ExperimentName ||
		exp.Params["affected_from_ms"] != 8500 || exp.Params["affected_to_ms"] != 15000 {
		t.Errorf("experiment line: %s", lines[0])
	}
	runs := 0
	for _, l := range lines {
		if bytes.Contains(l, []byte(`"record":"run"`)) {
			runs++
		}
	}
	if runs != 4 {
		t.Errorf("%d run lines, want 4", runs)
	}
}
