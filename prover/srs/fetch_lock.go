package srs

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// lockPoll is how often a busy lock is tried again.
var lockPoll = 200 * time.Millisecond

// lockFetch takes an exclusive flock(2) on path, creating it, and waits (calling onWait
// once) while another process or goroutine holds it. flock dies with its holder, so a
// crashed fetch leaves no stale lock. The returned unlock removes the file while still
// holding the lock; a waiter that then gets the lock of the removed file sees that path
// names another file (or none) and tries again, so that two holders never coexist.
func lockFetch(ctx context.Context, path string, onWait func()) (unlock func(), waited bool, err error) {
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
		if err != nil {
			return nil, waited, err
		}
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			held, err1 := f.Stat()
			now, err2 := os.Stat(path)
			if err1 == nil && err2 == nil && os.SameFile(held, now) {
				return func() {
					os.Remove(path)
					syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
					f.Close()
				}, waited, nil
			}
			f.Close() // the previous holder removed it: lock the new one
			continue
		}
		f.Close()
		if !errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, waited, err
		}
		if !waited {
			waited = true
			onWait()
		}
		select {
		case <-ctx.Done():
			return nil, waited, ctx.Err()
		case <-time.After(lockPoll):
		}
	}
}
