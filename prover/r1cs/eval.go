package r1cs

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// Eval computes a = A·z, b = B·z, c = C·z for the full assignment z = inputs ‖ aux, over
// all QAP rows, with up to tasks goroutines (≤ 0: one per CPU). The results equal the
// Witness builder's A, B, C vectors bit for bit. a, b and c must have length ≥ Rows().
func (s *Shape) Eval(z, a, b, c []fr.Element, tasks int) error {
	rows := s.Rows()
	if len(z) != s.NumInputs+s.NumAux {
		return fmt.Errorf("r1cs: assignment has %d values, shape has %d variables", len(z), s.NumInputs+s.NumAux)
	}
	if len(a) < rows || len(b) < rows || len(c) < rows {
		return fmt.Errorf("r1cs: output vectors shorter than %d rows", rows)
	}
	if tasks <= 0 {
		tasks = runtime.NumCPU()
	}
	const minRowsPerTask = 1 << 14
	tasks = max(1, min(tasks, rows/minRowsPerTask))
	var wg sync.WaitGroup
	for t := 0; t < tasks; t++ {
		lo, hi := rows*t/tasks, rows*(t+1)/tasks
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.evalRows(&s.A, z, a, lo, hi)
			s.evalRows(&s.B, z, b, lo, hi)
			s.evalRows(&s.C, z, c, lo, hi)
		}()
	}
	wg.Wait()
	return nil
}

func (s *Shape) evalRows(m *Matrix, z, out []fr.Element, lo, hi int) {
	var t fr.Element
	for j := lo; j < hi; j++ {
		var sum fr.Element
		for k := m.RowPtr[j]; k < m.RowPtr[j+1]; k++ {
			v := &z[m.Col[k]]
			switch m.Coeff[k] {
			case coeffOneIdx:
				sum.Add(&sum, v)
			case coeffMinusOneIdx:
				sum.Sub(&sum, v)
			default:
				t.Mul(&s.Coeffs[m.Coeff[k]], v)
				sum.Add(&sum, &t)
			}
		}
		out[j] = sum
	}
}
