package analyze

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// tinyProbesLog is written by hand to pin the counting rules the seed's
// scenario does not exercise: planned restarts count nowhere, replicas sort
// as numbers (10 after 2) within a round, settings keep log order rather
// than name order, and a setting with no events still gets a row.
const tinyProbesLog = `{"record":"experiment","experiment":"tiny","params":{"rounds":4,"requests_per_round":1,"replicas":11,"round_ms":1000}}
{"record":"run","experiment":"tiny","run":"z first"}
{"record":"run","experiment":"tiny","run":"a second"}
{"experiment":"tiny","run":"z first","req":0,"t_ms":0,"outcome":"error","attrs":{"replica":2,"replica_state":"starting","round":0}}
{"experiment":"tiny","run":"z first","req":1,"t_ms":1000,"outcome":"ok","attrs":{"replica":2,"replica_state":"healthy","round":1}}
{"experiment":"tiny","run":"z first","req":2,"t_ms":2000,"outcome":"error","attrs":{"replica":null,"replica_state":null,"round":2}}
{"record":"event","experiment":"tiny","run":"z first","type":"state","t_ms":0,"subject":"2","state":"healthy","attrs":{"round":0}}
{"record":"event","experiment":"tiny","run":"z first","type":"state","t_ms":1000,"subject":"2","state":"healthy","attrs":{"round":1}}
{"record":"event","experiment":"tiny","run":"z first","type":"state","t_ms":2000,"subject":"2","state":"stuck","attrs":{"round":2}}
{"record":"event","experiment":"tiny","run":"z first","type":"state","t_ms":3000,"subject":"2","state":"healthy","attrs":{"round":3}}
{"record":"event","experiment":"tiny","run":"z first","type":"restart","t_ms":1000,"subject":"3","state":"starting","attrs":{"reason":"planned","round":1}}
{"record":"event","experiment":"tiny","run":"z first","type":"restart","t_ms":1000,"subject":"3","state":"stuck","attrs":{"reason":"liveness","round":1,"stuck_since_round":0}}
{"record":"event","experiment":"tiny","run":"z first","type":"restart","t_ms":1000,"subject":"2","state":"starting","attrs":{"reason":"startup","round":1}}
{"record":"event","experiment":"tiny","run":"z first","type":"restart","t_ms":2000,"subject":"2","state":"healthy","attrs":{"reason":"liveness","round":2}}
{"record":"event","experiment":"tiny","run":"z first","type":"restart","t_ms":2000,"subject":"3","state":"healthy","attrs":{"reason":"liveness","round":2}}
{"record":"event","experiment":"tiny","run":"z first","type":"restart","t_ms":3000,"subject":"10","state":"stuck","attrs":{"reason":"liveness","round":3,"stuck_since_round":0}}
{"record":"event","experiment":"tiny","run":"z first","type":"restart","t_ms":3000,"subject":"2","state":"stuck","attrs":{"reason":"liveness","round":3,"stuck_since_round":1}}
{"experiment":"tiny","run":"a second","req":0,"t_ms":0,"outcome":"ok","attrs":{"replica":0,"replica_state":"healthy","round":0}}
`

// otherLog is an experiment that is not a probes log.
const otherLog = `{"experiment":"other","run":"r","req":0,"t_ms":0,"outcome":"ok"}
`

func TestProbesCountingRules(t *testing.T) {
	db := logsDB(t, tinyProbesLog, otherLog)
	res, err := Probes(db, ProbesOptions{Experiment: "tiny"})
	if err != nil {
		t.Fatal(err)
	}
	want := []probesRow{
		// restarts: all but the planned one; unnecessary: the 3 not stuck;
		// loop: replica 2 (3 probe restarts), not 3 (2 + 1 planned);
		// detection: round 1 replica 3, then round 3 replicas 2 and 10.
		{"z first", 6, 3, 1, 1, 1, 2, "0.75", []int64{1, 2, 3}},
		{"a second", 0, 0, 0, 0, 0, 0, "0.00", []int64{}},
	}
	if diff := cmp.Diff(want, probesRows(t, res)); diff != "" {
		t.Errorf("probes (-want +got):\n%s", diff)
	}
	if got := res.Rows[0][7]; got != 0.75 {
		t.Errorf("in_service: got %v, want exactly 0.75 (3 healthy replica-rounds / 4 rounds)", got)
	}
}

func TestProbesNotAProbesLog(t *testing.T) {
	db := logsDB(t, tinyProbesLog, otherLog)
	_, err := Probes(db, ProbesOptions{Experiment: "other"})
	if err == nil || !strings.Contains(err.Error(), "not a probes log") {
		t.Errorf("got error %v, want one saying it is not a probes log", err)
	}
}
