package retry

import (
	"container/heap"
	"math/rand/v2"
	"time"
)

// Attempt is one sent request.
type Attempt struct {
	Client  int
	Op      int64 // logical operation id
	N       int   // 0-based attempt number
	Sent    time.Duration
	Latency time.Duration // to the answer, or to the timeout
	Status  int           // 0 when there was no answer
	Outcome string
	Retried bool
	Drop    string
	done    bool
}

// Op is one logical operation: a first attempt and its retries.
type Op struct {
	ID       int64
	Client   int
	Start    time.Duration
	Deadline time.Duration
	End      time.Duration // when the last attempt ended
	OK       bool
	Attempts int
}

// Result is one strategy's run.
type Result struct {
	Strategy Strategy
	Attempts []Attempt // in send order
	Ops      []Op
	MaxQueue int // most requests ever waiting in the dependency's queue
}

type sim struct {
	cfg      Config
	clk      clock
	dep      dependency
	attempts []Attempt
	ops      []Op
	clients  []*rand.Rand
	pol      *policy
}

// Simulate runs one strategy to completion: clients stop starting operations
// at cfg.Duration and the run ends when the last operation has ended.
func Simulate(cfg Config, st Strategy) Result {
	s := newSim(cfg, st)
	for {
		e, ok := s.clk.next()
		if !ok {
			break
		}
		s.handle(e)
	}
	return Result{Strategy: st, Attempts: s.attempts, Ops: s.ops, MaxQueue: s.dep.maxQueue}
}

// Run simulates each strategy with the same seed.
func Run(cfg Config, strategies []Strategy) []Result {
	out := make([]Result, 0, len(strategies))
	for _, st := range strategies {
		out = append(out, Simulate(cfg, st))
	}
	return out
}

// newSim seeds one stream per client (think times) and one for jitter (in
// the policy), all from cfg.Seed, and staggers the clients' first operations over one think
// time so the run starts in steady state.
func newSim(cfg Config, st Strategy) *sim {
	s := &sim{cfg: cfg, pol: newPolicy(cfg, st)}
	for c := range cfg.Clients {
		r := clientRand(cfg, c)
		s.clients = append(s.clients, r)
		s.clk.at(cfg.stagger(r), evStartOp, c, 0)
	}
	if cfg.FreezeTo > cfg.FreezeFrom {
		s.clk.at(cfg.FreezeFrom, evFreeze, 0, 0)
		s.clk.at(cfg.FreezeTo, evThaw, 0, 0)
	}
	return s
}

// clientRand is client c's own stream of think times.
func clientRand(cfg Config, c int) *rand.Rand { return rand.New(rand.NewPCG(cfg.Seed, uint64(c))) }

func (s *sim) handle(e event) {
	switch e.kind {
	case evStartOp:
		s.startOp(e.id)
	case evSend:
		s.send(e.id, e.arg)
	case evServiceDone:
		s.serviceDone(e.id, e.arg)
	case evAnswer:
		s.onAnswer(e.id, e.arg)
	case evTimeout:
		s.onTimeout(e.id)
	case evFreeze:
		s.dep.freeze()
	case evThaw:
		s.thaw()
	}
}

// kind is what an event does when its time comes.
type kind uint8

const (
	evStartOp     kind = iota // a client starts an operation (id = client)
	evSend                    // an operation sends attempt arg (id = operation)
	evServiceDone             // a worker finishes attempt id (arg = dependency epoch)
	evAnswer                  // attempt id's answer reaches its client (arg = status)
	evTimeout                 // attempt id's timeout fires
	evFreeze                  // the dependency stops answering
	evThaw                    // the dependency answers all pending with 503
)

type event struct {
	at   time.Duration
	seq  uint64 // ties run in scheduling order, which keeps runs deterministic
	kind kind
	id   int
	arg  int
}

// eventQueue is a min-heap on (at, seq).
type eventQueue []event

func (q eventQueue) Len() int { return len(q) }
func (q eventQueue) Less(i, j int) bool {
	if q[i].at != q[j].at {
		return q[i].at < q[j].at
	}
	return q[i].seq < q[j].seq
}
func (q eventQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *eventQueue) Push(x any)   { *q = append(*q, x.(event)) }
func (q *eventQueue) Pop() any {
	old := *q
	e := old[len(old)-1]
	*q = old[:len(old)-1]
	return e
}

// clock is the virtual clock and its pending events.
type clock struct {
	now time.Duration
	seq uint64
	q   eventQueue
}

func (c *clock) at(t time.Duration, k kind, id, arg int) {
	c.seq++
	heap.Push(&c.q, event{at: t, seq: c.seq, kind: k, id: id, arg: arg})
}

func (c *clock) after(d time.Duration, k kind, id, arg int) { c.at(c.now+d, k, id, arg) }

// next advances the clock to the earliest event; ok is false when none is left.
func (c *clock) next() (event, bool) {
	if len(c.q) == 0 {
		return event{}, false
	}
	e := heap.Pop(&c.q).(event)
	c.now = e.at
	return e, true
}
