package ingest

import (
	"context"
	"strings"
	"testing"
)

// followHint turns the flags a message suggests (as flagged renders it)
// into options, as a user pasting them would: --from, --map (quoted with
// '…' where it holds spaces), --time-is, --run, --server, --log-format;
// of a flag offered twice ("--server tomcat10 or --server tomcat9") the
// first. fill gives a placeholder (EXPR) its value.
func followHint(t *testing.T, msg string, fill map[string]string) Options {
	t.Helper()
	var opts Options
	for _, with := range []string{"name it with --", "read it with --", "load it with --"} {
		if i := strings.LastIndex(msg, with); i >= 0 {
			msg = msg[i+len(with)-2:]
			break
		}
	}
	words := shellWords(msg)
	for i := 0; i+1 < len(words); i++ {
		v := strings.TrimRight(words[i+1], ",;")
		if strings.Count(v, ")") > strings.Count(v, "(") { // "(use --from caddy)"
			v = strings.TrimSuffix(v, ")")
		}
		if r, ok := fill[v]; ok {
			v = r
		}
		switch words[i] {
		case "--from":
			opts.From = first(opts.From, v)
		case "--map":
			m, err := ParseMap(v)
			if err != nil {
				t.Fatalf("the hint's --map %q: %v", v, err)
			}
			opts.Maps = append(opts.Maps, m)
		case "--time-is":
			opts.TimeIs = first(opts.TimeIs, v)
		case "--run":
			opts.Run = first(opts.Run, v)
		case "--server":
			opts.Server = first(opts.Server, v)
		case "--log-format":
			opts.LogFormat = first(opts.LogFormat, v)
		default:
			continue
		}
		i++
	}
	return opts
}

func first(had, v string) string {
	if had != "" {
		return had
	}
	return v
}

// shellWords splits s at spaces, '…' quoting as a shell does.
func shellWords(s string) []string {
	var out []string
	var b strings.Builder
	quoted, in := false, false
	for _, c := range s {
		switch {
		case c == '\'' && (quoted || b.Len() == 0 || strings.HasSuffix(b.String(), "=")): // not an apostrophe
			quoted, in = !quoted, true
		case c == ' ' && !quoted:
			if in {
				out = append(out, b.String())
			}
			b.Reset()
			in = false
		default:
			b.WriteRune(c)
			in = true
		}
	}
	if in {
		out = append(out, b.String())
	}
	return out
}

// A log/slog service log is named by detection, and the flags the refusal
// gives load it: every request's start and latency match the backend's
// own record (testdata/services/slog: the recorder's Go service in front
// of its backend, TZ -03:00, written at each request's end).
func TestSlogRefusedAndFollowed(t *testing.T) {
	path := "testdata/services/slog/service.log"
	db, _ := openDB(t)
	_, err := Files(context.Background(), db, Options{}, []string{path})
	if err == nil || !strings.Contains(flagged(err), "this is a Go log/slog log") {
		t.Fatalf("error %v, want slog named", err)
	}
	want := `load it with --from ndjson --map ts='time' --map latency_ms='duration / 1e6' --map status=status --time-is end --run service`
	if !strings.HasSuffix(flagged(err), want) {
		t.Fatalf("error %s\nwant it to end %s", flagged(err), want)
	}
	opts := followHint(t, flagged(err), nil)
	res := mustIngest(t, db, opts, path)
	if res[0].Rows != 301 {
		t.Errorf("%d rows, want 301", res[0].Rows)
	}
	holdToBackend(t, db, "testdata/services/slog/backend.csv", res[0].ResolutionMs, 0, 0)
}
