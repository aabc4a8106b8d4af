package main

import (
	"context"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/rewind-dev/rewind/store"
)

const versionUsage = `Usage: rewind version

Print rewind's version (from the build: the module version, or the VCS
revision of a build from a clone), the Go toolchain that built it, and the
DuckDB library embedded in it. rewind --version prints the same.

Examples:
  rewind version
  rewind --version`

func init() {
	register(command{name: "version", summary: "print the rewind, Go and DuckDB versions", run: runVersion})
}

func runVersion(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "version", versionUsage)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("version takes no arguments")
	}
	duck, err := store.DuckDBVersion(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "rewind %s\ngo %s %s/%s\nduckdb %s\n", rewindVersion(), runtime.Version()[2:], runtime.GOOS, runtime.GOARCH, duck)
	return nil
}

// rewindVersion is the module version of an installed build (go install
// …@v1.2.3), else the VCS revision the binary was built from, else "devel".
func rewindVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if modified == "true" {
		rev += "-dirty"
	}
	return "devel (" + rev + ")"
}
