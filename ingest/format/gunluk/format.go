// Package gunluk reads the chaos seed's log, gunluk.json, as the seed
// writes it: its two runs' requests, the experiment's parameters and the
// runs' roles.
package gunluk

import (
	"bytes"

	"github.com/rewind-dev/rewind/ingest/record"
)

// Name names the format ({from}).
const Name = "gunluk"

// Format is gunluk.json as a record.Format.
type Format struct{}

func (Format) Name() string                      { return Name }
func (Format) About() string                     { return "the chaos seed's gunluk.json" }
func (Format) Detect(_ string, head []byte) bool { return detect(head) }
func (Format) Decode(in record.Input, out record.Sink) (record.Produce, error) {
	data, err := in.All()
	if err != nil {
		return nil, err
	}
	return decode(data, out), nil
}

func detect(head []byte) bool {
	t := record.JSONText(head)
	return len(t) > 0 && t[0] == '{' && isGunluk(t)
}

// isGunluk tells the seed's document from a canonical line: its first member
// is one of the document's keys, not a request column.
func isGunluk(text []byte) bool {
	for _, k := range []string{`"N"`, `"PENCERE"`, `"DENEY_BASI"`, `"kontrol"`, `"deney"`} {
		if bytes.HasPrefix(bytes.TrimLeft(text[1:], " \t\r\n"), []byte(k)) {
			return true
		}
	}
	return false
}
