package ingest

import "database/sql"

func namedArgs(m map[string]any) []any {
	out := make([]any, 0, len(m))
	for k, v := range m {
		out = append(out, sql.Named(k, v))
	}
	return out
}
