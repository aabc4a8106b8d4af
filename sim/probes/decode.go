package probes

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
)

// LoadScenario reads a scenario file. Its errors start with the file name,
// then the line and column or the field: scenario.json: faults[2].type: ...
func LoadScenario(path string) (Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Scenario{}, err // already names the file
	}
	sc, err := DecodeScenario(data)
	if err != nil {
		var syn *syntaxError
		if errors.As(err, &syn) {
			return Scenario{}, fmt.Errorf("%s:%w", path, err)
		}
		return Scenario{}, fmt.Errorf("%s: %w", path, err)
	}
	return sc, nil
}

// DecodeScenario parses and validates a scenario. Decoding is strict: an
// unknown key, a value of the wrong type or an invalid value is an error
// that names the field by its JSON path.
func DecodeScenario(data []byte) (Scenario, error) {
	// A first pass over the whole text locates syntax errors by line and
	// column before the field-by-field pass, which only knows paths.
	var whole any
	if err := json.Unmarshal(data, &whole); err != nil {
		return Scenario{}, newSyntaxError(data, err)
	}
	sc, err := decodeScenario(data)
	if err != nil {
		return Scenario{}, err
	}
	return sc, sc.Validate()
}

func decodeScenario(data []byte) (Scenario, error) {
	var sc Scenario
	o, err := decodeObject("", data, "rounds", "requests_per_round", "startup_rounds",
		"planned_restarts", "faults", "settings")
	if err != nil {
		return sc, err
	}
	if err := o.int("rounds", true, &sc.Rounds); err != nil {
		return sc, err
	}
	if err := o.int("requests_per_round", true, &sc.RequestsPerRound); err != nil {
		return sc, err
	}
	if err := o.ints("startup_rounds", &sc.StartupRounds); err != nil {
		return sc, err
	}
	if sc.PlannedRestarts, err = decodeList(o, "planned_restarts", false, decodePlanned); err != nil {
		return sc, err
	}
	if sc.Faults, err = decodeList(o, "faults", false, decodeFault); err != nil {
		return sc, err
	}
	sc.Settings, err = decodeList(o, "settings", true, decodeSetting)
	return sc, err
}

func decodePlanned(path string, raw json.RawMessage) (Planned, error) {
	var p Planned
	o, err := decodeObject(path, raw, "replica", "round")
	if err == nil {
		err = o.int("replica", true, &p.Replica)
	}
	if err == nil {
		err = o.int("round", true, &p.Round)
	}
	return p, err
}

func decodeFault(path string, raw json.RawMessage) (Fault, error) {
	var f Fault
	o, err := decodeObject(path, raw, "replica", "round", "type", "duration")
	if err == nil {
		err = o.int("replica", true, &f.Replica)
	}
	if err == nil {
		err = o.int("round", true, &f.Round)
	}
	if err == nil {
		err = o.str("type", true, &f.Type)
	}
	if err == nil {
		err = o.int("duration", false, &f.Duration)
	}
	return f, err
}

func decodeSetting(path string, raw json.RawMessage) (Setting, error) {
	var st Setting
	o, err := decodeObject(path, raw, "name", "liveness", "readiness", "startup")
	if err == nil {
		err = o.str("name", true, &st.Name)
	}
	if err == nil {
		st.Liveness, err = decodeProbe(o, "liveness", "period", "threshold", "scope")
	}
	if err == nil {
		st.Readiness, err = decodeProbe(o, "readiness", "period", "threshold")
	}
	if err == nil {
		st.Startup, err = decodeProbe(o, "startup", "period", "threshold")
	}
	return st, err
}

// decodeProbe returns nil when the probe is absent or null: not configured.
func decodeProbe(parent object, key string, keys ...string) (*Probe, error) {
	raw, ok := parent.get(key)
	if !ok {
		return nil, nil
	}
	o, err := decodeObject(parent.at(key), raw, keys...)
	if err != nil {
		return nil, err
	}
	var p Probe
	if err := o.int("period", true, &p.Period); err != nil {
		return nil, err
	}
	if err := o.int("threshold", true, &p.Threshold); err != nil {
		return nil, err
	}
	return &p, o.str("scope", key == "liveness", &p.Scope)
}

// syntaxError is malformed JSON, located by line and column.
type syntaxError struct {
	line, col int
	msg       string
}

func (e *syntaxError) Error() string { return fmt.Sprintf("%d:%d: %s", e.line, e.col, e.msg) }

func newSyntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return &syntaxError{line: 1, col: 1, msg: "want a JSON object: " + err.Error()}
	}
	// Offset counts the offending byte, so it is the column of that byte.
	before := data[:min(int(se.Offset), len(data))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := max(len(before)-bytes.LastIndexByte(before, '\n')-1, 1)
	return &syntaxError{line: line, col: col, msg: se.Error()}
}
