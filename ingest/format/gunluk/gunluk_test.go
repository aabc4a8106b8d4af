package gunluk_test

import (
	"os"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/rewind-dev/rewind/ingest/format/gunluk"
	"github.com/rewind-dev/rewind/ingest/formattest"
	"github.com/rewind-dev/rewind/ingest/record"
)

var suite = formattest.Suite{Format: gunluk.Format{}, Dir: "testdata"}

func TestContract(t *testing.T) { formattest.Run(t, suite) }

func FuzzGunlukDecode(f *testing.F) { formattest.Fuzz(f, suite) }

// The experiment's parameters and the two runs' roles go to the Sink (the
// goldens hold the rows only).
func TestRunsAndParams(t *testing.T) {
	data, err := os.ReadFile("testdata/real/seed-cut/input.json")
	if err != nil {
		t.Fatal(err)
	}
	_, sink, err := formattest.Decode(gunluk.Format{}, "gunluk.json", data)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{`{"n":400,"start":200,"window":40}`}, sink.Params); diff != "" {
		t.Errorf("experiment parameters (-want +got):\n%s", diff)
	}
	want := []record.RunMeta{{Run: "control", Role: "control", HasRole: true}, {Run: "experiment", Role: "experiment", HasRole: true}}
	if diff := cmp.Diff(want, sink.Runs); diff != "" {
		t.Errorf("runs (-want +got):\n%s", diff)
	}
}
