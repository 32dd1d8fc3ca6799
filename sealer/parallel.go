package sealer

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// forEachIndex runs fn(0..n-1) on up to GOMAXPROCS goroutines and returns the error of the
// lowest failing index, so that the reported failure does not depend on scheduling. Work
// past a known failure is skipped.
func forEachIndex(n int, fn func(i int) error) error {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			if err := fn(i); err != nil {
				return err
			}
		}
		return nil
	}
	errs := make([]error, n)
	var next atomic.Int64
	var firstBad atomic.Int64
	firstBad.Store(int64(n))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n || int64(i) > firstBad.Load() {
					return
				}
				if err := fn(i); err != nil {
					errs[i] = err
					for {
						cur := firstBad.Load()
						if int64(i) >= cur || firstBad.CompareAndSwap(cur, int64(i)) {
							break
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	if bad := firstBad.Load(); bad < int64(n) {
		return errs[bad]
	}
	return nil
}
