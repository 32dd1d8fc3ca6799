package graph

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"

	"github.com/snarkpipe/snarkpipe/types"
)

// Graph is the stacked SDR graph of one sector size and porep_id: 6 DRG parents (indices into
// the current layer) then 8 expander parents (indices into the previous layer) per node.
type Graph struct {
	nodes    uint64
	porepID  [32]byte
	api      types.APIVersion
	drg      bucketGraph
	feistel  feistel
	truncate bool // V1_0_0: expander parents computed as u32(t)/8
}

// New builds the graph of a sector with the given node count, porep_id and api version.
func New(nodes uint64, porepID [32]byte, api types.APIVersion) (*Graph, error) {
	if nodes < 2 || nodes > 1<<32-1 {
		return nil, fmt.Errorf("graph: %d nodes out of range", nodes)
	}
	return &Graph{
		nodes:    nodes,
		porepID:  porepID,
		api:      api,
		drg:      newBucketGraph(porepID, api),
		feistel:  newFeistel(nodes*ExpDegree, FeistelKeys(porepID)),
		truncate: api == types.APIVersion1_0_0,
	}, nil
}

// ForSealProof builds the graph of a registered seal proof (its sector size, porep_id and api
// version).
func ForSealProof(info *types.SealProofInfo) (*Graph, error) {
	return New(info.Nodes(), info.PoRepID, info.APIVersion)
}

// Nodes is the number of nodes of one layer.
func (g *Graph) Nodes() uint64 { return g.nodes }

// BaseParents writes the 6 DRG parents of node into out.
func (g *Graph) BaseParents(node uint32, out *[BaseDegree]uint32) { g.drg.parents(node, out[:]) }

// ExpanderParents writes the 8 expander parents of node into out.
func (g *Graph) ExpanderParents(node uint32, out *[ExpDegree]uint32) {
	for i := range out {
		t := g.feistel.permute(uint64(node)*ExpDegree + uint64(i))
		if g.truncate {
			out[i] = uint32(t) / ExpDegree
		} else {
			out[i] = uint32(t / ExpDegree)
		}
	}
}

// Parents writes all 14 parents of node, base then expander, the order the circuit uses.
func (g *Graph) Parents(node uint32, out *[Degree]uint32) {
	g.drg.parents(node, out[:BaseDegree])
	g.ExpanderParents(node, (*[ExpDegree]uint32)(out[BaseDegree:]))
}

// CacheID is the id of upstream's parent cache file (v28-sdr-parent-<id>.cache, the key of
// parent_cache.json): SHA-256("poseidon_hasher" ‖ graph identifier ‖ Feistel keys LE ‖
// u32_le(nodes)).
func (g *Graph) CacheID() [32]byte {
	h := sha256.New()
	h.Write([]byte("poseidon_hasher"))
	h.Write([]byte(types.GraphIdentifier(g.nodes)))
	var b [8]byte
	for _, k := range g.feistel.keys {
		binary.LittleEndian.PutUint64(b[:], k)
		h.Write(b[:])
	}
	binary.LittleEndian.PutUint32(b[:4], uint32(g.nodes))
	h.Write(b[:4])
	var out [32]byte
	h.Sum(out[:0])
	return out
}

// digestChunk is the number of nodes a worker computes before handing them to the hasher.
const digestChunk = 1 << 14

// TableDigest is the SHA-256 of the full parent table (every node's 14 parents as u32 LE),
// the digest upstream stores in parent_cache.json. It uses up to workers goroutines (0 means
// GOMAXPROCS).
func (g *Graph) TableDigest(workers int) [32]byte {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunks := int((g.nodes + digestChunk - 1) / digestChunk)
	results := make([]chan []byte, chunks)
	for i := range results {
		results[i] = make(chan []byte, 1)
	}
	var wg sync.WaitGroup
	next := make(chan int, chunks)
	for i := 0; i < chunks; i++ {
		next <- i
	}
	close(next)
	// A semaphore bounds how many finished chunks wait for the hasher.
	window := make(chan struct{}, 2*workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				// Take the slot before the chunk: every taken, unhashed chunk then holds a
				// slot, so the lowest one always makes progress.
				window <- struct{}{}
				c, ok := <-next
				if !ok {
					<-window
					return
				}
				results[c] <- g.tableChunk(uint64(c) * digestChunk)
			}
		}()
	}
	h := sha256.New()
	for _, ch := range results {
		h.Write(<-ch)
		<-window
	}
	wg.Wait()
	var out [32]byte
	h.Sum(out[:0])
	return out
}

func (g *Graph) tableChunk(first uint64) []byte {
	last := min(first+digestChunk, g.nodes)
	buf := make([]byte, 0, (last-first)*Degree*4)
	var p [Degree]uint32
	for v := first; v < last; v++ {
		g.Parents(uint32(v), &p)
		for _, x := range p {
			buf = binary.LittleEndian.AppendUint32(buf, x)
		}
	}
	return buf
}

// ForConfig builds the graph of a PoRep configuration.
func ForConfig(cfg types.PoRepConfig) (*Graph, error) {
	return New(cfg.SectorSize/types.NodeSize, cfg.PoRepID, cfg.APIVersion)
}
