package retry

import (
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/rewind-dev/rewind/internal/loopback"
)

// liveDep is the dependency of the real mode, the same model (depModel) as
// dependency on the wall clock: Workers slots each busy for one service
// time, a FIFO queue of Queue, an immediate 503 when both are full, a
// freeze that holds everything, and a thaw that answers all it held with
// 503.
type liveDep struct {
	cfg Config
	clk realClock

	mu sync.Mutex
	depModel[*job]
	closed bool
	phases []*time.Timer // the freeze and the thaw
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
	if d.closed {
		j.status <- http.StatusServiceUnavailable
		return
	}
	switch serve, reject := d.depModel.arrive(j, d.cfg); {
	case serve:
		d.timeService(j)
	case reject:
		j.status <- http.StatusServiceUnavailable
	}
}

// timeService starts the timer of j's service, which has a worker; it runs
// with mu held.
func (d *liveDep) timeService(j *job) {
	epoch := d.epoch
	j.timer = time.AfterFunc(d.clk.wall(d.cfg.serviceTime(d.clk.now())), func() { d.serviceDone(j, epoch) })
}

func (d *liveDep) serviceDone(j *job, epoch int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if epoch != d.epoch || d.closed {
		return
	}
	next, ok := d.done(j)
	j.status <- http.StatusOK
	if ok {
		d.timeService(next)
	}
}

func (d *liveDep) freeze() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return
	}
	for _, j := range d.depModel.freeze() {
		j.timer.Stop()
	}
}

func (d *liveDep) thaw() {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.answerAll(d.depModel.thaw())
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
