package pipeline

import "sync"

// freer runs releases (munmap of pooled buffers, closing evicted parameters and proving
// keys) on one background goroutine, in submission order, so that no proving path waits
// for a large free (the upstream profile lost seconds per proof to synchronous frees).
// Order matters: a proving key evicted before its parameters is closed before them.
type freer struct {
	mu      sync.Mutex
	jobs    []func()
	wake    chan struct{}
	done    chan struct{}
	closing bool
}

func newFreer() *freer {
	f := &freer{wake: make(chan struct{}, 1), done: make(chan struct{})}
	go f.run()
	return f
}

// submit queues job. After close, each job runs on a goroutine of its own, so nothing
// leaks and a caller holding a lock that the job takes does not deadlock.
func (f *freer) submit(job func()) {
	f.mu.Lock()
	if f.closing {
		f.mu.Unlock()
		go job()
		return
	}
	f.jobs = append(f.jobs, job)
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *freer) run() {
	defer close(f.done)
	for {
		f.mu.Lock()
		jobs := f.jobs
		f.jobs = nil
		closing := f.closing
		f.mu.Unlock()
		for _, j := range jobs {
			j()
		}
		if len(jobs) > 0 {
			continue
		}
		if closing {
			return
		}
		<-f.wake
	}
}

// close runs the queued jobs and stops the goroutine.
func (f *freer) close() {
	f.mu.Lock()
	f.closing = true
	f.mu.Unlock()
	select {
	case f.wake <- struct{}{}:
	default:
	}
	<-f.done
}
