package ingest

import (
	"github.com/rewind-dev/rewind/ingest/record"
	"github.com/rewind-dev/rewind/internal/param"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"
)

// The pipeline's record.Sink: what the file's decoder finds besides
// requests, gathered for the insert (insertEvents, storeMeta).

// collector gathers what a file says besides attempts: experiment and run
// parameters, and side-table events.
type collector struct {
	// warnings are things a decoder noticed that do not stop the ingest
	// (spans skipped, say); the ingest reports them.
	warnings []*param.Error
	// timeStepMs is the resolution of the times the file logs, where the
	// format knows it (0 where not): the times rows get from it may look
	// finer, as an end time less a duration does.
	timeStepMs  float64
	experiments []expMeta
	runs        []runMeta
	events      *array.RecordBuilder
	nEvents     int
}

// Experiment stores parameters of the ingest's experiment (record.Sink).
func (c *collector) Experiment(params string) {
	c.experiments = append(c.experiments, expMeta{params: params})
}

// NamedExperiment stores parameters of an experiment the file names
// (record.Sink).
func (c *collector) NamedExperiment(experiment, params string) {
	c.experiments = append(c.experiments, expMeta{experiment: experiment, params: params})
}

// Run stores a run the file names (record.Sink).
func (c *collector) Run(r record.RunMeta) {
	c.runs = append(c.runs, runMeta{experiment: r.Experiment, run: r.Run, role: r.Role, hasRole: r.HasRole, params: r.Params})
}

// Warn reports what a decoder skipped or assumed (record.Sink).
func (c *collector) Warn(w *param.Error) { c.warnings = append(c.warnings, w) }

// TimeStep is the resolution of the file's times (record.Sink).
func (c *collector) TimeStep(ms float64) { c.timeStepMs = ms }

// eventBatches returns every event gathered, as record batches.
func (c *collector) eventBatches() []arrow.RecordBatch {
	if c.events.Fields()[evLine].Len() > 0 {
		return []arrow.RecordBatch{c.events.NewRecordBatch()}
	}
	return nil
}

func (c *collector) release() { c.events.Release() }

type expMeta struct {
	experiment string // "" means the ingest's experiment
	params     string // JSON object text, "" when none
}

type runMeta struct {
	experiment, run, role string
	hasRole               bool
	params                string
}

var eventSchema = arrow.NewSchema([]arrow.Field{
	{Name: "line", Type: arrow.PrimitiveTypes.Int64},
	{Name: "experiment", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "run", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "type", Type: arrow.BinaryTypes.String},
	{Name: "t_ms", Type: arrow.PrimitiveTypes.Float64, Nullable: true},
	{Name: "subject", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "state", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "attrs", Type: arrow.BinaryTypes.String, Nullable: true},
	{Name: "ts_us", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
	{Name: "ord", Type: arrow.PrimitiveTypes.Int64},
}, nil)

// add appends one event.
// The event columns add writes, by name: a column added or moved in
// eventSchema cannot make it write the wrong one.
var (
	evLine, evExperiment, evRun = eventCol("line"), eventCol("experiment"), eventCol("run")
	evType, evTMs, evSubject    = eventCol("type"), eventCol("t_ms"), eventCol("subject")
	evState, evAttrs, evTsUs    = eventCol("state"), eventCol("attrs"), eventCol("ts_us")
	evOrd                       = eventCol("ord")
)

func (c *collector) Event(ev record.Event) {
	f := c.events.Fields()
	f[evLine].(*array.Int64Builder).Append(ev.Line)
	appendNonEmpty(f[evExperiment], ev.Experiment)
	appendNonEmpty(f[evRun], ev.Run)
	f[evType].(*array.StringBuilder).Append(ev.Type)
	if ev.HasTMs {
		f[evTMs].(*array.Float64Builder).Append(ev.TMs)
	} else {
		f[evTMs].AppendNull()
	}
	appendNonEmpty(f[evSubject], ev.Subject)
	appendNonEmpty(f[evState], ev.State)
	appendNonEmpty(f[evAttrs], ev.Attrs)
	if ev.HasTs {
		f[evTsUs].(*array.Int64Builder).Append(ev.TsUs)
	} else {
		f[evTsUs].AppendNull()
	}
	// Events of one line (a whole journal on one line) keep their order.
	f[evOrd].(*array.Int64Builder).Append(int64(c.nEvents))
	c.nEvents++
}

func appendNonEmpty(b array.Builder, s string) {
	if s == "" {
		b.AppendNull()
	} else {
		b.(*array.StringBuilder).Append(s)
	}
}

func newCollector() *collector {
	return &collector{events: array.NewRecordBuilder(memory.DefaultAllocator, eventSchema)}
}

func releaseAll(rbs []arrow.RecordBatch) {
	for _, rb := range rbs {
		rb.Release()
	}
}

// eventCol is the index of eventSchema's column name, so that a column
// added or moved there cannot make the collector write the wrong one.
func eventCol(name string) int {
	idx := eventSchema.FieldIndices(name)
	if len(idx) != 1 {
		panic("ingest: eventSchema has no column " + name)
	}
	return idx[0]
}
