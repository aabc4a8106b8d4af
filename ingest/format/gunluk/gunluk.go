package gunluk

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/rewind-dev/rewind/ingest/record"
)

// The chaos seed's log, gunluk.json, read as it is:
//
//	{"N":400,"PENCERE":40,"DENEY_BASI":200,
//	 "kontrol":[{"istek":0,"etiketli":false,"sonuc":"tam"},...],
//	 "deney":[...]}
//
// kontrol and deney become the runs control and experiment (role likewise);
// istek → req, etiketli → tagged, sonuc tam → ok and bozulmus → error.
// PENCERE and DENEY_BASI become the experiment's window and start; N is kept
// as n. Other top-level members are kept as experiment parameters, other
// record members in attrs.
var gunlukRuns = map[string]string{"kontrol": "control", "deney": "experiment"}

var gunlukOutcomes = map[string]string{"tam": "ok", "bozulmus": "error"}

var gunlukParams = map[string]string{"N": "n", "PENCERE": "window", "DENEY_BASI": "start"}

func decode(data []byte, out record.Sink) record.Produce {
	return func(ctx context.Context, emit func(arrow.RecordBatch) error) error {
		d := record.NewDoc(data)
		bt := record.NewBuilder()
		defer bt.Release()
		params := map[string]json.RawMessage{}
		if err := d.ExpectDelim('{'); err != nil {
			return err
		}
		for d.Dec.More() {
			line := d.ElementLine()
			t, err := d.Dec.Token()
			if err != nil {
				return d.SyntaxErr(err)
			}
			key := t.(string)
			if run, ok := gunlukRuns[key]; ok {
				if err := gunlukRun(d, key, run, bt); err != nil {
					return err
				}
				continue
			}
			var raw json.RawMessage
			if err := d.Dec.Decode(&raw); err != nil {
				return d.SyntaxErr(err)
			}
			name := key
			if p, ok := gunlukParams[key]; ok {
				name = p
				if _, err := strconv.ParseInt(string(raw), 10, 64); err != nil {
					return record.FieldErr(line, key, "want an integer, got %s", record.JSONVal(raw).Describe())
				}
			}
			params[name] = raw
		}
		if _, err := d.Dec.Token(); err != nil {
			return d.SyntaxErr(err)
		}
		if err := d.Trailing(); err != nil {
			return err
		}
		out.Experiment(record.CompactObject(params))
		for _, run := range []string{"control", "experiment"} {
			out.Run(record.RunMeta{Run: run, Role: run, HasRole: true})
		}
		if rb := bt.Flush(); rb != nil {
			return emit(rb)
		}
		return nil
	}
}

// gunlukRun reads the kontrol or deney array. Rows are emitted at the end
// only: gunluk files are small, and one batch keeps both runs in one place.
func gunlukRun(d *record.Doc, key, run string, bt *record.Builder) error {
	i := 0
	return d.EachElement(func(raw json.RawMessage, line int64) error {
		var rec map[string]json.RawMessage
		if err := json.Unmarshal(raw, &rec); err != nil || rec == nil {
			return record.FieldErr(line, fmt.Sprintf("%s[%d]", key, i), "want an object with istek, etiketli and sonuc")
		}
		var r record.Row
		r.Reset(line)
		r.Run, r.Role = run, run
		r.Set(record.ColRun)
		r.Set(record.ColRole)
		if err := gunlukRecord(&r, rec, fmt.Sprintf("%s[%d].", key, i)); err != nil {
			return err
		}
		bt.Append(&r)
		i++
		return nil
	})
}

func gunlukRecord(r *record.Row, rec map[string]json.RawMessage, path string) error {
	field := func(k string) error {
		raw, ok := rec[k]
		if !ok {
			return record.FieldErr(r.Line, path+k, "missing")
		}
		v := record.JSONVal(raw)
		switch k {
		case "istek":
			n, err := strconv.ParseInt(strings.TrimSpace(v.Text), 10, 64)
			if err != nil || v.Kind != 'n' && v.Kind != 's' {
				return record.FieldErr(r.Line, path+k, "want an integer, got %s", v.Describe())
			}
			r.Req = n
			r.Set(record.ColReq)
		case "etiketli":
			if v.Kind != 'b' {
				return record.FieldErr(r.Line, path+k, "want true or false, got %s", v.Describe())
			}
			r.Tagged = v.Text == "true"
			r.Set(record.ColTagged)
		case "sonuc":
			o, ok := gunlukOutcomes[v.Text]
			if v.Kind != 's' || !ok {
				return record.FieldErr(r.Line, path+k, "want \"tam\" or \"bozulmus\", got %s", v.Describe())
			}
			r.Outcome = o
			r.Set(record.ColOutcome)
		}
		return nil
	}
	for _, k := range []string{"istek", "etiketli", "sonuc"} {
		if err := field(k); err != nil {
			return err
		}
	}
	extra := map[string]json.RawMessage{}
	for k, raw := range rec {
		if k != "istek" && k != "etiketli" && k != "sonuc" {
			extra[k] = raw
		}
	}
	if len(extra) > 0 {
		r.Attrs = record.CompactObject(extra)
		r.Set(record.ColAttrs)
	}
	return nil
}
