package traces

import (
	"encoding/binary"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/rewind-dev/rewind/ingest/record"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
)

// The OTLP protobuf encoding: one TracesData message, or a stream of
// length-prefixed ones.

// protoFile reads binary OTLP: one message, or the messages of a stream
// (the collector's file exporter prefixes each with its length as 4 bytes
// big-endian, the OTLP file-exporter spec with a varint). A span's line is
// its 1-based index among all the spans of the file.
func (o *otlpRows) protoFile(data []byte) error {
	msgs, err := otlpMessages(data)
	if err != nil {
		return err
	}
	for i, m := range msgs {
		var td tracepb.TracesData
		if err := proto.Unmarshal(m, &td); err != nil {
			return record.LineErr(o.spans+1, "bad OTLP protobuf (message %d of %d): %v", i+1, len(msgs), err)
		}
		if err := o.protoTraces(&td); err != nil {
			return err
		}
	}
	return nil
}

func (o *otlpRows) protoTraces(td *tracepb.TracesData) error {
	for _, rs := range td.GetResourceSpans() {
		res := newOtlpResource(rs.GetResource())
		legacy, err := legacyScopeSpans(rs)
		if err != nil {
			return record.LineErr(o.spans+1, "bad OTLP protobuf: %v", err)
		}
		for _, ss := range append(rs.GetScopeSpans(), legacy...) {
			for _, sp := range ss.GetSpans() {
				if err := o.span(sp, res, ss.GetScope(), o.spans+1); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// legacyScopeSpans reads instrumentation_library_spans (field 1000 before
// OTLP 1.0), which the current schema no longer names: its messages have
// the wire format of ScopeSpans.
func legacyScopeSpans(rs *tracepb.ResourceSpans) ([]*tracepb.ScopeSpans, error) {
	var out []*tracepb.ScopeSpans
	b := rs.ProtoReflect().GetUnknown()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, protowire.ParseError(n)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil, protowire.ParseError(m)
		}
		if num == 1000 && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n:])
			var ss tracepb.ScopeSpans
			if err := proto.Unmarshal(v, &ss); err != nil {
				return nil, err
			}
			out = append(out, &ss)
		}
		b = b[n+m:]
	}
	return out, nil
}

// otlpMessages splits a binary file into its messages. A bare message
// starts with the tag of field 1 (0x0a); a stream starts with a length.
func otlpMessages(data []byte) ([][]byte, error) {
	if len(data) > 0 && data[0] == 0x0a {
		return [][]byte{data}, nil
	}
	if msgs, ok := splitFramed(data, func(b []byte) (uint64, int) {
		if len(b) < 4 {
			return 0, -1
		}
		return uint64(binary.BigEndian.Uint32(b)), 4
	}); ok {
		return msgs, nil
	}
	if msgs, ok := splitFramed(data, protowire.ConsumeVarint); ok {
		return msgs, nil
	}
	return nil, record.LineErr(0, "not OTLP protobuf: neither a TracesData message nor a stream of length-prefixed messages")
}

func splitFramed(data []byte, length func([]byte) (uint64, int)) ([][]byte, bool) {
	var out [][]byte
	for len(data) > 0 {
		size, n := length(data)
		if n <= 0 || size > uint64(len(data)-n) {
			return nil, false
		}
		out = append(out, data[n:n+int(size)])
		data = data[n+int(size):]
	}
	return out, len(out) > 0
}
