package analyze

import (
	"strings"

	"github.com/rewind-dev/rewind/internal/param"
	"github.com/rewind-dev/rewind/store"
)

// maxStopDamageGroups bounds stop-damage's groups (docs/limits.md): its
// cost grows with the square of their number (30,000 groups took 18.5 s,
// 200,000 ran for minutes), and a key with about one value per row, as a
// request id in attrs, is one group per row, which --by refuses for seq.
var maxStopDamageGroups int64 = 10_000

// checkStopDamageGroups refuses a {by} that splits the experiment into
// more than maxStopDamageGroups groups.
func checkStopDamageGroups(db store.Querier, exp string, g grouping, fields []string) error {
	if g.key == "" {
		return nil
	}
	var groups, rows int64
	if err := db.QueryRow(`SELECT count(DISTINCT `+g.key+`), count(*) FROM requests WHERE experiment = ?`, exp).Scan(&groups, &rows); err != nil {
		return err
	}
	return stopDamageGroupsError(fields, groups, rows)
}

// stopDamageGroupsError refuses groups past maxStopDamageGroups, over the
// experiment's rows.
func stopDamageGroupsError(fields []string, groups, rows int64) error {
	if groups <= maxStopDamageGroups {
		return nil
	}
	return param.Errorf("by", "{by} %s: %d groups over %d rows, more than the %d stop-damage takes (a key with about one value per row, like seq, makes a group per row)",
		strings.Join(fields, ","), groups, rows, maxStopDamageGroups)
}
