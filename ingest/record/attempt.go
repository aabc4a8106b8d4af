package record

// Attempt is what one line of a log says, as much as a consumer that reads
// a log line by line (rewind watch) needs: a LineDecoder's result. It is
// decoded by the same code as an ingest, so both accept and refuse the
// same lines.
type Attempt struct {
	// Record is the line's kind: request, experiment, run or event.
	Record     string
	Experiment string
	Run        string
	Role       string
	HasRole    bool   // the line gives a role (a run record may give "")
	Outcome    string // lower case; "" when the line gives none
	Tagged     bool   // false when the line gives none, as in the requests table
	HasTagged  bool   // the line gives tagged (true or false)
	TMs        float64
	HasTMs     bool
	LatencyMs  float64
	HasLatency bool
	Status     int64
	HasStatus  bool
	Count      int64 // requests the line stands for: 1 when it gives none
	// EventType and Subject are an event record's (TMs, HasTMs its time).
	EventType, Subject string
}

// LineDecoder is what a Format of one record a line may also implement: it
// decodes one line alone, for a reader that follows a live log line by line
// (replay's follower, under rewind watch) rather than ingesting a file. The
// ingest reaches it through its registry (ingest.DecodeLine).
type LineDecoder interface {
	// DecodeLine decodes line number line (1-based, for errors); it returns
	// true for a request. An error is a *LineError without a file name.
	DecodeLine(b []byte, line int64) (Attempt, bool, error)
}
