package analyze

import "testing"

func TestIsQuery(t *testing.T) {
	for q, want := range map[string]bool{
		"SELECT 1":                                              true,
		"  \n\tselect\n* FROM requests":                         true,
		"(SELECT 1) UNION ALL (SELECT 2)":                       true,
		"WITH a AS (SELECT 1) SELECT * FROM a":                  true,
		"with\na AS (SELECT 1) SELECT 1":                        true,
		"CREATE OR REPLACE TEMPORARY VIEW events USING parquet": false,
		"SET spark.sql.session.timeZone=UTC":                    false,
		"":                                                      false,
		"SEL":                                                   false,
	} {
		if got := isQuery(q); got != want {
			t.Errorf("isQuery(%q) = %v, want %v", q, got, want)
		}
	}
}
