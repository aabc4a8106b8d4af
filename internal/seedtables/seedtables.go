// Package seedtables holds numbers the seed documents printed
// (../shared/seeds/), transcribed once, for the tests that must reproduce
// them: the simulator that re-runs a seed model and the analysis that
// recomputes its verdict from the log.
package seedtables

// Storm are the 15 rows the retry-storm seed printed, keyed
// "configuration|scenario": allowed attempts, calls, multiplier, peak
// calls/tick, succeeded, dropped and, with a fault window, window
// calls/tick and its multiple of the normal rate, in the seed's own
// precision. They are the reference a port must reproduce, not output of
// this project.
var Storm = map[string]string{
	"denemesiz|saglikli":                    "1 3832 x1.00 6 3736 96",
	"yalniz gecit (3)|saglikli":             "3 3953 x1.03 6 3851 0",
	"iki katman (3x3)|saglikli":             "9 3953 x1.03 6 3851 0",
	"uc katman (3x3x3)|saglikli":            "27 3953 x1.03 6 3851 0",
	"uc katman + butce 0,30|saglikli":       "27 3953 x1.03 6 3851 0",
	"denemesiz|kesinti (1 s)":               "1 3855 x1.00 5 3775 80 0.80 x0.8",
	"yalniz gecit (3)|kesinti (1 s)":        "3 4071 x1.05 8 3782 94 2.89 x3.0",
	"iki katman (3x3)|kesinti (1 s)":        "9 4435 x1.15 13 3850 20 5.77 x5.9",
	"uc katman (3x3x3)|kesinti (1 s)":       "27 4523 x1.17 17 3870 0 6.24 x6.4",
	"uc katman + butce 0,30|kesinti (1 s)":  "27 4065 x1.05 10 3777 103 2.88 x3.0",
	"denemesiz|bozulma (10 s)":              "1 3855 x1.00 5 3534 321 0.95 x1.0",
	"yalniz gecit (3)|bozulma (10 s)":       "3 4913 x1.28 8 3754 94 2.01 x2.1",
	"iki katman (3x3)|bozulma (10 s)":       "9 5296 x1.39 9 3803 0 2.39 x2.5",
	"uc katman (3x3x3)|bozulma (10 s)":      "27 5296 x1.39 9 3803 0 2.39 x2.5",
	"uc katman + butce 0,30|bozulma (10 s)": "27 4288 x1.11 7 3643 220 1.40 x1.4",
}
