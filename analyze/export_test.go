package analyze

import "github.com/rewind-dev/rewind/store"

// InstallAnchor is for the analyses benchmark (package analyze_test, which
// may import replay): it installs the anchor, the SQL the library replaced.
var InstallAnchor = installAnchor

// ScheduleInferred is for BenchmarkOmission: what Omission runs on a Vegeta
// log without a rate (the benchmark's log is NDJSON, whose req Omission
// does not read as a schedule unless a rate is given), past the check of
// its format.
func ScheduleInferred(db store.Querier, o OmissionOptions) error {
	src, err := omissionSource(db, o.Experiment)
	if err != nil {
		return err
	}
	_, _, err = checkedSchedule(db, o.Experiment, o, src)
	return err
}
