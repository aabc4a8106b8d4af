// Package sparktest gives the Spark suite its cluster: the Spark Connect
// URL in REWIND_SPARK (sc://127.0.0.1:15002, which .ci/spark up starts).
package sparktest

import (
	"os"
	"testing"
)

// URL is the test cluster's Spark Connect URL. Unset, the test is skipped
// on a developer's machine and fails in CI: the Spark suite is never
// skipped there.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("REWIND_SPARK")
	if u == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("REWIND_SPARK is not set in CI: .ci/run starts the cluster (.ci/spark up) and sets it; the Spark suite is never skipped there")
		}
		t.Skip("REWIND_SPARK not set (sc://127.0.0.1:15002 after .ci/spark up)")
	}
	return u
}
