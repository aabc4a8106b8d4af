package record

import "testing"

// DecimalText takes what JSON writes, with a sign or a leading point as a
// CSV cell may have them, and nothing Go's ParseFloat also takes.
func TestDecimalText(t *testing.T) {
	for _, s := range []string{"1", "-1", "+1", "1.5", ".5", "5.", "1e3", "1E-3", "0.000"} {
		if !DecimalText(s) {
			t.Errorf("%q refused", s)
		}
	}
	for _, s := range []string{"", "1_000", "0x1p4", "0x10", "Inf", "NaN", "infinity", "1e", "e5", ".", "-", "1.2.3", "1e+", "0b1", "１"} {
		if DecimalText(s) {
			t.Errorf("%q taken", s)
		}
	}
}
