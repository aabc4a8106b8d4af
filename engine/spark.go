package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/spark-connect-go/spark/client/channel"
	"github.com/apache/spark-connect-go/spark/sql"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Spark is an Engine on a Spark cluster through Spark Connect
// (github.com/apache/spark-connect-go, experimental upstream).
type Spark struct {
	url     string
	session sql.SparkSession
	keeper  *keeper
	// stopAlive ends keepAlive's calls (keepalive.go)
	stopAlive func()
	stats     Stats
}

// Stats count what a session brought back: reduce steps and the bytes of
// their Arrow buffers (bench/spark.sh reports them), and the operations
// interrupted on the server when a step's context ended (bounded).
type Stats struct {
	Steps       int
	Bytes       int64
	Interrupted int
}

// Stats is what the session brought back so far.
func (s *Spark) Stats() Stats { return s.stats }

// OpenSpark opens a session on the Spark Connect server at url
// (sc://HOST:PORT). The client connects lazily: a server that is not there
// shows at the first statement, which OpenSpark runs.
func OpenSpark(ctx context.Context, url string) (*Spark, error) {
	return openSpark(ctx, url, keepAliveEvery)
}

// openSpark is OpenSpark with the session calling the server every every
// while it is open (keepAlive; tests turn it off with 0).
func openSpark(ctx context.Context, url string, every time.Duration) (*Spark, error) {
	if !strings.HasPrefix(url, "sc://") {
		return nil, fmt.Errorf("spark %q: want a Spark Connect URL, sc://HOST:PORT", url)
	}
	cb, err := channel.NewBuilder(url)
	if err != nil {
		return nil, fmt.Errorf("spark %s: %w", url, err)
	}
	k := &keeper{BaseBuilder: cb}
	s, err := safely(func() (sql.SparkSession, error) { return sql.NewSessionBuilder().WithChannelBuilder(k).Build(ctx) })
	if err != nil {
		return nil, fmt.Errorf("spark %s: %w", url, err)
	}
	sp := &Spark{url: url, session: s, keeper: k, stopAlive: func() {}}
	// Hive partition values stay strings (run=1 is the run "1", not 1),
	// and times are read in UTC, as rewind's DuckDB reads them.
	for _, set := range []string{
		"SET spark.sql.sources.partitionColumnTypeInference.enabled=false",
		"SET spark.sql.session.timeZone=UTC",
	} {
		if err := sp.exec(ctx, set); err != nil {
			if k.conn != nil {
				k.conn.Close() // a server that did not answer holds no session
			}
			return nil, err
		}
	}
	sp.stopAlive = sp.keepAlive(every)
	return sp, nil
}

// Name is "Spark".
func (s *Spark) Name() string { return "Spark" }

// Close ends the session: the client's Stop (which does nothing today),
// then ReleaseSession on the server and the connection closed (keeper).
// A server older than Spark 3.5, without ReleaseSession, keeps the session
// until its idle timeout, as it would have anyway.
func (s *Spark) Close() error {
	s.stopAlive()
	err := s.session.Stop()
	if e := s.keeper.release(); e != nil && err == nil {
		if st, ok := status.FromError(e); !ok || st.Code() != codes.Unimplemented {
			err = fmt.Errorf("spark %s: release session: %w", s.url, e)
		}
	}
	return err
}

// tables are the dataset's folders an analysis reads, as views.
var tables = []string{"requests", "runs", "experiments", "files"}

// Register creates the dataset's tables as temporary views of the session.
func (s *Spark) Register(ctx context.Context, dir string) error {
	dir = strings.TrimRight(dir, "/")
	for _, t := range tables {
		q := "CREATE OR REPLACE TEMPORARY VIEW " + Ident(t) + " USING parquet OPTIONS (path " + String(dir+"/"+t) + ")"
		if err := s.exec(ctx, q); err != nil {
			return fmt.Errorf("dataset %s: table %s: %w", dir, t, err)
		}
	}
	return nil
}

// exec runs a statement for its effect.
func (s *Spark) exec(ctx context.Context, q string) error {
	_, err := bounded(ctx, s, func(ctx context.Context) (sql.DataFrame, error) { return s.session.Sql(ctx, q) })
	return s.explain(err)
}

// Reduce runs q and returns its result. It returns when ctx ends, the
// query interrupted on the server (bounded).
func (s *Spark) Reduce(ctx context.Context, q string) (arrow.Table, error) {
	df, err := bounded(ctx, s, func(ctx context.Context) (sql.DataFrame, error) { return s.session.Sql(ctx, q) })
	if err != nil {
		return nil, s.explain(err)
	}
	t, err := bounded(ctx, s, func(ctx context.Context) (*arrow.Table, error) { return df.ToArrow(ctx) })
	if err != nil {
		return nil, s.explain(err)
	}
	s.stats.Steps++
	if t == nil || *t == nil {
		return nil, nil
	}
	s.stats.Bytes += TableBytes(*t)
	return *t, nil
}

// explain rewrites the client's errors a user acts on.
func (s *Spark) explain(err error) error {
	if err == nil {
		return nil
	}
	if st, ok := grpcStatus(err); ok {
		switch st.Code() {
		case codes.Unavailable:
			return fmt.Errorf("spark %s: no Spark Connect server answers (%s)", s.url, st.Message())
		case codes.ResourceExhausted:
			return &TooLargeError{Step: "result", Err: err}
		}
	}
	return fmt.Errorf("spark %s: %w", s.url, err)
}

// grpcStatus finds a gRPC status in err's chain (the client wraps it).
func grpcStatus(err error) (*status.Status, bool) {
	if strings.Contains(err.Error(), "connection refused") {
		return status.New(codes.Unavailable, "connection refused"), true
	}
	for e := err; e != nil; e = errors.Unwrap(e) {
		if st, ok := status.FromError(e); ok && st.Code() != codes.Unknown {
			return st, true
		}
	}
	if strings.Contains(err.Error(), "received message larger than max") {
		return status.New(codes.ResourceExhausted, err.Error()), true
	}
	return nil, false
}

// safely calls fn and turns a panic of the client into an error: it panics
// on a malformed Arrow batch (types.ReadArrowBatchToRecord retains the
// record before it checks the read's error).
func safely[T any](fn func() (T, error)) (v T, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("the Spark client failed on the server's answer (a malformed Arrow batch?): %v", r)
		}
	}()
	return fn()
}

// TableBytes is the size of t's Arrow buffers.
func TableBytes(t arrow.Table) int64 {
	var n int64
	for i := range int(t.NumCols()) {
		for _, c := range t.Column(i).Data().Chunks() {
			n += dataBytes(c.Data())
		}
	}
	return n
}

func dataBytes(d arrow.ArrayData) int64 {
	var n int64
	for _, b := range d.Buffers() {
		if b != nil {
			n += int64(b.Len())
		}
	}
	for _, c := range d.Children() {
		n += dataBytes(c)
	}
	return n
}
