package main

import (
	"strings"

	"github.com/rewind-dev/rewind/internal/param"
)

// flags names each library parameter (internal/param) as the CLI spells
// it: the flag that gives it. Today every flag has its parameter's name;
// the table is where a flag would be renamed without touching a message.
// A parameter missing here is a bug that params_test.go finds.
var flags = map[string]string{
	"affected":          "affected",
	"append":            "append",
	"baseline-until":    "baseline-until",
	"by":                "by",
	"closed-loop":       "closed-loop",
	"confidence":        "confidence",
	"control":           "control",
	"expected-interval": "expected-interval",
	"duration":          "duration",
	"every":             "every",
	"experiment":        "experiment",
	"from":              "from",
	"good":              "good",
	"interval":          "interval",
	"log-format":        "log-format",
	"lookback":          "lookback",
	"map":               "map",
	"margin":            "margin",
	"marginal":          "marginal",
	"max":               "max",
	"max-ratio":         "max-ratio",
	"max-record":        "max-record",
	"metric":            "metric",
	"min":               "min",
	"min-change":        "min-change",
	"min-segment":       "min-segment",
	"name":              "name",
	"ok-status":         "ok-status",
	"out":               "out",
	"partial":           "partial",
	"penalty":           "penalty",
	"planned":           "planned",
	"rate":              "rate",
	"replace":           "replace",
	"requests":          "requests",
	"resolutions":       "resolutions",
	"role":              "role",
	"rules":             "rules",
	"run":               "run",
	"server":            "server",
	"set":               "set",
	"speed":             "speed",
	"start":             "start",
	"step":              "step",
	"step-requests":     "step-requests",
	"stop-on":           "stop-on",
	"threshold":         "threshold",
	"time-is":           "time-is",
	"tolerance":         "tolerance",
	"treatment":         "treatment",
	"until":             "until",
	"warmup":            "warmup",
	"window":            "window",
}

// flagName is the flag of a parameter, as "--flag".
func flagName(p string) string {
	if f, ok := flags[p]; ok {
		return "--" + f
	}
	return p
}

// flagged is err's message with its parameters named by their flags.
func flagged(err error) string { return param.Say(err, flagName) }

// flagArgs writes parameters and values as flags for a Try line.
func flagArgs(args []param.Arg) string {
	var parts []string
	for _, a := range args {
		parts = append(parts, flagName(a.Param), a.Value)
	}
	return strings.Join(parts, " ")
}
