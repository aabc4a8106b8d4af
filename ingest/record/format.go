package record

import (
	"io"

	"github.com/rewind-dev/rewind/internal/param"
)

// Format is one kind of input file: how to recognise it from its first
// bytes and its name, and how to decode it into canonical batches. A format
// lives in its own package under ingest/format and imports this package
// only; the ingest reaches it through its registry (ingest/registry.go),
// whose order is the detection order.
type Format interface {
	// Name is the value that names the format ({from}).
	Name() string
	// About says what files it reads, for the help and the README; it may
	// name a parameter as {name} (param.Textf).
	About() string
	// Detect tells from the first bytes of the decompressed content (up to
	// 64 KiB) and the file's name (without a compression extension).
	Detect(name string, head []byte) bool
	// Decode returns the producer of the input's canonical batches (Rows
	// builds one from a row at a time). A bad value is an error made by
	// FieldErr or LineErr: the ingest adds the file name, and nothing of the
	// file is loaded. Events, the experiment's parameters and warnings go to
	// out.
	Decode(in Input, out Sink) (Produce, error)
}

// Streamed is what a Format may also say of its rows, so the ingest
// derives columns as the rows stream in rather than by an UPDATE after the
// insert. A format that does not implement it gets the UPDATEs.
type Streamed interface {
	// InLineOrder says rows come out in the file's line order, at most one
	// per line, so a row's run position is final as it streams in.
	InLineOrder() bool
	// TimesFromTs says rows give ts and never t_ms or an experiment of
	// their own.
	TimesFromTs() bool
}

// Layouted is what a Format of text lines may also implement: it reads
// lines by a layout the user gives ({log-format}, in the language of
// {server}). The ingest takes the first format of the registry that does
// for a given layout.
type Layouted interface {
	// WithLayout is the format that reads by the server's format line
	// text (server "" when the line tells), or the line's error, which
	// names {log-format}.
	WithLayout(server, text string) (Format, error)
}

// Refuser is what a Format may also implement: it refuses a file near its
// own that it will not guess at (a line two servers write with different
// meanings), saying what to do instead. The ingest asks every format
// before detecting one, and not when {from} names the format.
type Refuser interface {
	// Refuses is the refusal of the file whose first bytes are head, nil
	// when it has none.
	Refuses(head []byte) *param.Error
}

// Input is one file to decode, decompressed, under the ingest's caps. A
// decoder reads it in exactly one way: Reader, All or ReaderAt.
type Input interface {
	// Head is the first bytes of the content, as Detect saw them.
	Head() []byte
	// DetectName is the name detection used (RunName makes a run of it).
	DetectName() string
	// Reader streams the content; the record cap applies to each line.
	Reader() io.Reader
	// All is the whole content; the document cap applies.
	All() ([]byte, error)
	// ReaderAt gives random access (the content is spooled when it must be).
	ReaderAt() (io.ReaderAt, int64, error)
	// Unlined is called before reading a binary stream whose records are not
	// lines, so the line cap does not cut it.
	Unlined()
	// MaxRecord is the record cap in bytes, for a decoder that cuts
	// records itself.
	MaxRecord() int64
	// TextErr is the error of the first line of a text input that holds
	// invalid UTF-8 (or a lone surrogate escape in JSON), once the input has
	// been read; nil for a binary one. A decoder whose parser would mend such
	// text (encoding/json makes it U+FFFD, and then misses a key) asks
	// before parsing what All returned.
	TextErr() error
	// MapRaw are the canonical columns a mapping sets, whose source fields a
	// decoder keeps undecoded in attrs.
	MapRaw() *FieldSet
}

// Sink takes what a decoder finds besides requests.
type Sink interface {
	// Event adds a row of the events table.
	Event(Event)
	// Experiment stores parameters (a JSON object's text) of the ingest's
	// experiment.
	Experiment(params string)
	// NamedExperiment stores parameters (a JSON object's text, "" for none)
	// of an experiment the file names, "" for the ingest's: a record of
	// the canonical formats may name its own.
	NamedExperiment(experiment, params string)
	// Run stores a run the file names: its role and parameters, merged
	// into those already stored.
	Run(RunMeta)
	// Warn reports what the decoder skipped or assumed; the ingest goes on.
	Warn(*param.Error)
	// TimeStep is the resolution of the times the file logs, in ms, where
	// the format knows it: times rows get from it may look finer.
	TimeStep(ms float64)
}

// RunMeta is what a file says of one run besides its requests: a row of
// the runs table.
type RunMeta struct {
	Experiment string // "" for the ingest's experiment
	Run        string
	Role       string
	HasRole    bool   // Role is given, and replaces the stored one
	Params     string // a JSON object's text, "" for none
}

// Event is one side-table row: a replica state, a restart, a chaos action,
// a custom metric point. Empty strings are stored as NULL (type is
// required). t_ms is relative like the requests'; a wall-clock ts gets its
// t_ms from the experiment's origin after the ingest.
type Event struct {
	Line                                  int64
	Experiment, Run, Type, Subject, State string
	TMs                                   float64
	HasTMs                                bool
	TsUs                                  int64
	HasTs                                 bool
	Attrs                                 string // a JSON object, or ""
}
