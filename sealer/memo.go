package sealer

import (
	"sync"

	"github.com/snarkpipe/snarkpipe/types/vanilla"
)

// nodeMemo remembers arity-8 Poseidon node hashes by their children. The 2,700 tree C
// paths of a 32 GiB C1 output share their upper levels (a few thousand distinct nodes
// above level 6 instead of 2,700 per level), so about a third of the hashes repeat. The memo
// is keyed by content, so a hit is correct whatever proof it came from.
type nodeMemo struct {
	shards [memoShards]struct {
		sync.Mutex
		m map[[8]vanilla.Domain]vanilla.Domain
	}
}

const memoShards = 64

func newNodeMemo() *nodeMemo {
	m := &nodeMemo{}
	for i := range m.shards {
		m.shards[i].m = make(map[[8]vanilla.Domain]vanilla.Domain)
	}
	return m
}

func (m *nodeMemo) hash8(children *[8]vanilla.Domain, where string, height int) (vanilla.Domain, *failure) {
	s := &m.shards[(children[0][0]^children[3][1]^children[7][2])%memoShards]
	s.Lock()
	h, ok := s.m[*children]
	s.Unlock()
	if ok {
		return h, nil
	}
	h, f := poseidonNode(children[:], where, height)
	if f != nil {
		return h, f
	}
	s.Lock()
	s.m[*children] = h
	s.Unlock()
	return h, nil
}
