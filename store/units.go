package store

import "github.com/rewind-dev/rewind/queries"

// Units returns the units of a library macro's output columns, by column
// name, from its "-- Units:" header line (queries.Units): analyses read
// them there rather than repeat them. A column without a unit is absent.
func Units(macro string) map[string]string { return queries.Units(macro) }

// MetricUnit is the unit Units gives a column in the unit of the macro's
// metric argument; the caller, which knows the metric, replaces it.
const MetricUnit = queries.MetricUnit
