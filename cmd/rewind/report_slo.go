package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/pflag"

	rpt "github.com/rewind-dev/rewind/report"
)

// reportSLOFlags are the report's thresholds and burn-rate flags, named as
// in `rewind analyze thresholds` and `rewind analyze burn-rate`.
type reportSLOFlags struct {
	thresholds         []string
	slo, rules, period string
	good               string
}

func (f *reportSLOFlags) add(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.thresholds, "threshold", nil, "a k6 threshold for the thresholds section, `'METRIC: EXPRESSION'` (repeatable; default: those the k6 log recorded)")
	fs.StringVar(&f.slo, "slo", "", "add the burn-rate section: the SLO, `PERCENT` such as 99.9% (or 0.999)")
	fs.StringVar(&f.rules, "rules", "", "burn-rate rules `SHORT/LONG>FACTOR,...` (default: 5m/1h>14.4,30m/6h>6,6h/3d>1)")
	fs.StringVar(&f.good, "good", "", "burn rate: a SQL boolean over request columns that makes a request good (default: outcome = 'ok')")
	fs.StringVar(&f.period, "period", "30d", "burn rate: the SLO period the error budget is counted over")
}

// read fills o from the flags, and the footer's version and date.
func (f *reportSLOFlags) read(fs *pflag.FlagSet, o *rpt.Options) error {
	var err error
	if o.Thresholds, err = thresholdFlags(f.thresholds, false, ""); err != nil {
		return err
	}
	if f.slo == "" {
		for _, name := range []string{"rules", "good", "period"} {
			if fs.Changed(name) {
				return usagef("--%s applies to the burn-rate section: give --slo too, e.g. --slo 99.9%%", name)
			}
		}
	} else if o.SLO, o.BurnRules, err = burnRules(f.slo, f.rules); err != nil {
		return err
	}
	o.Good = f.good
	if o.Period, err = positiveDuration("period", f.period); err != nil {
		return err
	}
	o.Version = rewindVersion()
	o.Date, err = reportDate()
	return err
}

// reportDate is when the report is made: SOURCE_DATE_EPOCH (seconds since
// 1970, as reproducible builds set it) when set, else now.
func reportDate() (time.Time, error) {
	s, ok := os.LookupEnv("SOURCE_DATE_EPOCH")
	if !ok || s == "" {
		return time.Now().UTC().Truncate(time.Second), nil
	}
	sec, err := strconv.ParseInt(s, 10, 64)
	if err != nil || sec < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH %q: want seconds since 1970-01-01, e.g. 1796169600", s)
	}
	return time.Unix(sec, 0).UTC(), nil
}
