package probes

import (
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
)

// Text renders the report as the seed's tables: a summary of the scenario,
// one row per setting, and, when swept, the two sweep tables.
func (r Report) Text() string {
	var b strings.Builder
	b.WriteString(describe(r.Scenario))
	b.WriteString("\n")
	b.WriteString(settingsTable(r.Settings))
	if len(r.Sweep) > 0 {
		fmt.Fprintf(&b, "\nliveness sweep (scope process; readiness period %d, threshold %d)\n",
			sweepReadiness.Period, sweepReadiness.Threshold)
		b.WriteString(sweepTables(r.Sweep))
	}
	return b.String()
}

// describe says in a few lines what every setting faces.
func describe(sc Scenario) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d replicas, %d rounds, %d requests per round\n", sc.Replicas(), sc.Rounds, sc.RequestsPerRound)
	fmt.Fprintf(&b, "rounds to start, per replica: %s\n", joinInts(sc.StartupRounds))
	var planned []string
	for _, p := range sc.PlannedRestarts {
		planned = append(planned, fmt.Sprintf("replica %d at round %d", p.Replica, p.Round))
	}
	fmt.Fprintf(&b, "planned restarts: %s\n", joinOr(planned, ", "))
	if len(sc.Faults) == 0 {
		b.WriteString("faults: -\n")
	} else {
		b.WriteString("faults:\n")
	}
	for _, f := range sc.Faults {
		fmt.Fprintf(&b, "  %s\n", describeFault(f))
	}
	return b.String()
}

func describeFault(f Fault) string {
	if f.Type == FaultStuck {
		return fmt.Sprintf("replica %d stuck from round %d until restarted", f.Replica, f.Round)
	}
	return fmt.Sprintf("replica %d loses its dependency at round %d for %d rounds", f.Replica, f.Round, f.Duration)
}

func settingsTable(results []Result) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "setting\trestarts\tunnecessary\tkilled during\tin restart\tearly\terrors\tin service\tstuck detected")
	fmt.Fprintln(tw, "\t\trestarts\tstartup\tloop\terrors\t\t(mean)\tafter (rounds)")
	for _, r := range results {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%s\t%s\n", r.Setting, r.Restarts, r.UnnecessaryRestarts,
			r.KilledDuringStartup, r.InRestartLoop, r.EarlyErrors, r.Errors, fixed2(r), joinInts(r.DetectionRounds))
	}
	tw.Flush()
	return b.String()
}

func sweepTables(rows []SweepResult) string {
	var b strings.Builder
	for _, withStartup := range []bool{false, true} {
		if withStartup {
			fmt.Fprintf(&b, "\nwith a startup probe (period %d, threshold %d: %d rounds to start):\n",
				sweepStartup.Period, sweepStartup.Threshold, sweepStartup.Period*sweepStartup.Threshold)
		} else {
			b.WriteString("\nwithout a startup probe:\n")
		}
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "period\tthreshold\ttolerance\tstuck detected\tkilled during\tin restart\tin service")
		fmt.Fprintln(tw, "\t\t(rounds)\tafter (rounds)\tstartup\tloop\t(mean)")
		for _, row := range rows {
			if row.WithStartup != withStartup {
				continue
			}
			r := row.Result
			fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%d\t%d\t%s\n", row.Period, row.Threshold, row.Period*row.Threshold,
				joinInts(r.DetectionRounds), r.KilledDuringStartup, r.InRestartLoop, fixed2(r))
		}
		tw.Flush()
	}
	return b.String()
}

// fixed2 rounds the mean healthy replicas to two decimals from the exact
// integers, halves up, so a tie cannot come out differently from the seed's
// toFixed(2) through float error.
func fixed2(r Result) string {
	if r.Rounds == 0 {
		return "-"
	}
	hundredths := (200*r.HealthyReplicaRounds + r.Rounds) / (2 * r.Rounds)
	return fmt.Sprintf("%d.%02d", hundredths/100, hundredths%100)
}

func joinInts(v []int) string {
	s := make([]string, len(v))
	for i, n := range v {
		s[i] = strconv.Itoa(n)
	}
	return joinOr(s, ", ")
}

func joinOr(s []string, sep string) string {
	if len(s) == 0 {
		return "-"
	}
	return strings.Join(s, sep)
}
