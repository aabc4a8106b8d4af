package hypothesis

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseSLO(t *testing.T) {
	for in, want := range map[string]Decimal{"99.9%": "0.999", "99%": "0.99", "0.995": "0.995", " 99.99 % ": "0.9999", "50%": "0.5"} {
		if got, err := ParseSLO(in); err != nil || got != want {
			t.Errorf("%q: %q, %v", in, got, err)
		}
	}
	for _, in := range []string{"100%", "0", "99", "1e-3", "abc", "99.99999999%"} {
		if got, err := ParseSLO(in); err == nil {
			t.Errorf("%q: %q, want an error", in, got)
		}
	}
}

func TestParseBurnRules(t *testing.T) {
	got, err := ParseBurnRules("5m/1h>14.4, 30m/6h>6,6h/3d>1,90s/1h30m>0.5")
	if err != nil {
		t.Fatal(err)
	}
	want := append(append([]BurnRule(nil), DefaultBurnRules...), BurnRule{"1m30s/1h30m>0.5", 90 * time.Second, 90 * time.Minute, "0.5"})
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for in, msg := range map[string]string{
		"5m>14.4":         `rule "5m>14.4": not a rule (want SHORT/LONG>FACTOR, e.g. 5m/1h>14.4)`,
		"1h/5m>14.4":      `rule "1h/5m>14.4": the short window must be shorter than the long one (want SHORT/LONG>FACTOR, e.g. 5m/1h>14.4)`,
		"5m/1h>-1":        `rule "5m/1h>-1": the factor is not a number of 0 or more (want SHORT/LONG>FACTOR, e.g. 5m/1h>14.4)`,
		"5m/1h>1.0000001": `rule "5m/1h>1.0000001": the factor has more than 6 decimals (want SHORT/LONG>FACTOR, e.g. 5m/1h>14.4)`,
		"5x/1h>1":         `rule "5x/1h>1": the short window is not a positive duration (want SHORT/LONG>FACTOR, e.g. 5m/1h>14.4)`,
	} {
		if _, err := ParseBurnRules(in); err == nil || err.Error() != msg {
			t.Errorf("%s:\n got %v\nwant %s", in, err, msg)
		}
	}
}
