package formattest_test

import (
	"os"
	"strings"
	"testing"
)

// CONTRIBUTING.md's example format is the one Example compiles and runs:
// the block between the contributing markers of example_test.go, verbatim.
func TestContributingExample(t *testing.T) {
	src, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(src), "// contributing:begin")
	_, block, _ = strings.Cut(block, "\n")
	block, _, _ = strings.Cut(block, "// contributing:end")
	doc, err := os.ReadFile("../../CONTRIBUTING.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := "```go\n" + strings.TrimSpace(block) + "\n```"; !strings.Contains(string(doc), want) {
		t.Errorf("CONTRIBUTING.md lacks the example format of ingest/formattest/example_test.go, verbatim:\n%s", want)
	}
}
