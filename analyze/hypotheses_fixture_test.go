package analyze

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// checkoutFixture writes fixtures/hypotheses/checkout.ndjson: two runs of
// the same checkout service, six minutes at one request a second, a
// baseline and a canary. From 120 s on the canary's GET /cart is 3.5 times
// slower; from 180 s two in five of its POST /checkout time out after 1 s.
func checkoutFixture() string {
	r := rand.New(rand.NewPCG(20260801, 3))
	var b strings.Builder
	b.WriteString(`{"record":"run","experiment":"checkout","run":"baseline","role":"control"}` + "\n")
	b.WriteString(`{"record":"run","experiment":"checkout","run":"canary","role":"experiment"}` + "\n")
	names := []string{"GET /product", "GET /cart", "POST /checkout"}
	base := map[string][2]float64{"GET /product": {40, 120}, "GET /cart": {60, 160}, "POST /checkout": {120, 260}}
	for _, run := range []string{"baseline", "canary"} {
		for k := 0; k < 360; k++ {
			t := float64(k*1000) + float64(r.IntN(400000))/1000
			name := names[r.IntN(len(names))]
			lo, hi := base[name][0], base[name][1]
			lat := lo + float64(r.IntN(int(hi-lo)*1000))/1000
			outcome, status := "ok", 200
			if r.IntN(500) == 0 {
				outcome, status = "error", 503
			}
			if run == "canary" && name == "GET /cart" && t >= 120000 {
				lat *= 3.5
			}
			if run == "canary" && name == "POST /checkout" && t >= 180000 && r.IntN(5) < 2 {
				lat, outcome, status = 1000+float64(r.IntN(5000))/1000, "timeout", 0
			}
			fmt.Fprintf(&b, `{"run":%q,"req":%d,"t_ms":%s,"latency_ms":%s,"outcome":%q,"status":%d,"name":%q}`+"\n",
				run, k, fixtureMs(t), fixtureMs(lat), outcome, status, name)
		}
	}
	return b.String()
}

func fixtureMs(f float64) string {
	return strconv.FormatFloat(float64(int64(f*1000+0.5))/1000, 'f', -1, 64)
}

// The committed fixture is what checkoutFixture writes (fixed seed);
// REWIND_WRITE_FIXTURES=1 rewrites it.
func TestCheckoutFixture(t *testing.T) {
	path := filepath.Join("..", "fixtures", "hypotheses", "checkout.ndjson")
	want := checkoutFixture()
	if os.Getenv("REWIND_WRITE_FIXTURES") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (REWIND_WRITE_FIXTURES=1 go test -run TestCheckoutFixture ./analyze writes it)", err)
	}
	if string(got) != want {
		t.Errorf("%s is not what checkoutFixture writes: REWIND_WRITE_FIXTURES=1 go test -run TestCheckoutFixture ./analyze", path)
	}
}
