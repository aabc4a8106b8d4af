package jsfmt

import "testing"

func TestFixed(t *testing.T) {
	for _, c := range []struct {
		x      float64
		digits int
		want   string
	}{
		{0.125, 2, "0.13"}, // exact half: up, where strconv gives 0.12
		{0.375, 2, "0.38"},
		{1.005, 2, "1.00"}, // 1.005 is 1.00499999999999989… in binary
		{2.5, 0, "3"},
		{96, 2, "96.00"},
		{39.65, 1, "39.6"}, // 39.649999999999998…
		{6.4229, 1, "6.4"},
		{-0.125, 2, "-0.13"},
		{-0.001, 2, "-0.00"}, // JavaScript keeps the sign
		{0, 2, "0.00"},
		{1e21, 2, "1e+21"},
		{123.456, 0, "123"},
	} {
		if got := Fixed(c.x, c.digits); got != c.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", c.x, c.digits, got, c.want)
		}
	}
}
