package retry

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/internal/loopback"
)

// liveDep is the dependency of the real mode, the same model as dependency
// on the wall clock: Workers slots each busy for one service time, a FIFO
// queue of Queue, an immediate 503 when both are full, a freeze that holds
// everything, and a thaw that answers all it held with 503.
type liveDep struct {
	cfg Config
	clk realClock

	mu        sync.Mutex
	busy      int
	inService []*job
	queue     []*job
	held      []*job
	frozen    bool
	closed    bool
	epoch     int // as in dependency: service ends from before a freeze are stale
	maxQueue  int
	phases    []*time.Timer // the freeze and the thaw
}

// job is one request inside the dependency. Its status channel has room for
// the one answer, so a job whose client gave up is still served (the
// dependency cannot know) without blocking anyone.
type job struct {
	status chan int
	timer  *time.Timer // the service in progress
}

func newLiveDep(cfg Config, clk realClock) *liveDep {
	d := &liveDep{cfg: cfg, clk: clk}
	if cfg.FreezeTo > cfg.FreezeFrom {
		d.phases = []*time.Timer{
			time.AfterFunc(clk.until(cfg.FreezeFrom), d.freeze),
			time.AfterFunc(clk.until(cfg.FreezeTo), d.thaw),
		}
	}
	return d
}

// ServeHTTP answers with the status the model gives the request, and stops
// waiting once the client has gone.
func (d *liveDep) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	j := &job{status: make(chan int, 1)}
	d.arrive(j)
	select {
	case st := <-j.status:
		w.WriteHeader(st)
	case <-r.Context().Done():
	}
}

func (d *liveDep) arrive(j *job) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.closed:
		j.status <- http.StatusServiceUnavailable
	case d.frozen:
		d.held = append(d.held, j)
	case d.busy < d.cfg.Workers:
		d.startService(j)
	case len(d.queue) < d.cfg.Queue:
		d.queue = append(d.queue, j)
		d.maxQueue = max(d.maxQueue, len(d.queue))
	default:
		j.status <- http.StatusServiceUnavailable
	}
}

// startService runs with mu held.
func (d *liveDep) startService(j *job) {
	d.busy++
	d.inService = append(d.inService, j)
	epoch := d.epoch
	j.timer = time.AfterFunc(d.clk.wall(d.serviceTime()), func() { d.serviceDone(j, epoch) })
}

// serviceTime is the virtual model's: slower workers in the degraded phase.
func (d *liveDep) serviceTime() time.Duration {
	now := d.clk.now()
	if now >= d.cfg.FreezeTo && now < d.cfg.DegradedTo {
		return time.Duration(float64(d.cfg.Workers) / d.cfg.DegradedRPS * float64(time.Second))
	}
	return d.cfg.Service
}

func (d *liveDep) serviceDone(j *job, epoch int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if epoch != d.epoch || d.closed {
		return
	}
	d.busy--
	d.inService = slices.DeleteFunc(d.inService, func(x *job) bool { return x == j })
	j.status <- http.StatusOK
	if len(d.queue) > 0 {
		next := d.queue[0]
		d.queue = d.queue[1:]
		d.startService(next)
	}
}

func (d *liveDep) freeze() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	d.frozen = true
	d.epoch++
	for _, j := range d.inService {
		j.timer.Stop()
	}
	d.held = append(append(d.held, d.inService...), d.queue...)
	d.inService, d.queue, d.busy = nil, nil, 0
}

func (d *liveDep) thaw() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.frozen = false
	d.answerAll(d.held)
	d.held = nil
}

// close stops every timer and answers whatever is still inside with 503, so
// no handler and no timer outlives the run.
func (d *liveDep) close() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.closed = true
	for _, t := range d.phases {
		t.Stop()
	}
	for _, j := range d.inService {
		j.timer.Stop()
	}
	d.answerAll(d.inService)
	d.answerAll(d.queue)
	d.answerAll(d.held)
	d.inService, d.queue, d.held = nil, nil, nil
	return d.maxQueue
}

func (d *liveDep) answerAll(jobs []*job) {
	for _, j := range jobs {
		j.status <- http.StatusServiceUnavailable
	}
}

// liveServer is a liveDep served over HTTP on a loopback port.
type liveServer struct {
	dep *liveDep
	*loopback.Server
	url string
}

func startLiveServer(dep *liveDep) (*liveServer, error) {
	srv, err := loopback.Start(dep)
	if err != nil {
		return nil, err
	}
	return &liveServer{dep: dep, Server: srv, url: srv.URL + "/"}, nil
}

// stop closes the dependency, then the server, and returns the longest queue.
func (s *liveServer) stop() (int, error) {
	maxQueue := s.dep.close()
	if err := s.Stop(); err != nil {
		return maxQueue, fmt.Errorf("stop dependency: %w", err)
	}
	return maxQueue, nil
}
