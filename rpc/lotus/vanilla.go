package lotus

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
)

// maxVanillaBytes bounds one vanilla proof read from storage. A 32 GiB Window PoSt sector
// proof is ~25 KB and a Winning one ~6.6× that; 64 GiB adds a level.
const maxVanillaBytes = 16 << 20

// singleVanillaParams is the body of POST <BaseURL>/vanilla/single (lotus
// storage/paths.SingleVanillaParams).
type singleVanillaParams struct {
	Miner     abi.ActorID
	Sector    storiface.PostSectorChallenge
	ProofType abi.RegisteredPoStProof
}

// vanillaFetcher reads PoSt vanilla proofs from the miner's storage: StorageFindSector,
// then each store's /vanilla/single until one answers, as lotus' paths.Remote does.
type vanillaFetcher struct {
	miner    *MinerClient
	auth     http.Header // the miner token: storage endpoints check it
	client   *http.Client
	parallel int
	timeout  time.Duration
}

// fetchAll reads every sector's vanilla proof with at most parallel reads in flight and a
// timeout per sector. proofs[i] is nil where errs[i] says why it could not be read.
func (f *vanillaFetcher) fetchAll(ctx context.Context, mid abi.ActorID, ppt abi.RegisteredPoStProof, sectors []storiface.PostSectorChallenge) (proofs [][]byte, errs []error) {
	proofs, errs = make([][]byte, len(sectors)), make([]error, len(sectors))
	sem := make(chan struct{}, f.parallel)
	var wg sync.WaitGroup
	for i := range sectors {
		select {
		case sem <- struct{}{}:
		case <-ctx.Done():
			for j := i; j < len(sectors); j++ {
				errs[j] = ctx.Err()
			}
			wg.Wait()
			return proofs, errs
		}
		wg.Add(1)
		go func() {
			defer func() { <-sem; wg.Done() }()
			sctx, cancel := context.WithTimeout(ctx, f.timeout)
			defer cancel()
			proofs[i], errs[i] = f.fetchOne(sctx, mid, ppt, sectors[i])
		}()
	}
	wg.Wait()
	return proofs, errs
}

func (f *vanillaFetcher) fetchOne(ctx context.Context, mid abi.ActorID, ppt abi.RegisteredPoStProof, s storiface.PostSectorChallenge) ([]byte, error) {
	sid := abi.SectorID{Miner: mid, Number: s.SectorNumber}
	ft := storiface.FTSealed | storiface.FTCache
	if s.Update {
		ft = storiface.FTUpdate | storiface.FTUpdateCache
	}
	stores, err := f.miner.StorageFindSector(ctx, sid, ft, 0, false)
	if err != nil {
		return nil, fmt.Errorf("finding sector %d: %w", s.SectorNumber, err)
	}
	body, err := json.Marshal(singleVanillaParams{Miner: mid, Sector: s, ProofType: ppt})
	if err != nil {
		return nil, err
	}
	errs := []error{fmt.Errorf("sector %d: no store has it", s.SectorNumber)}
	for _, st := range stores {
		for _, base := range st.BaseURLs {
			b, found, err := f.post(ctx, strings.TrimSuffix(base, "/")+"/vanilla/single", body)
			if err == nil && found {
				return b, nil
			}
			if err != nil {
				errs = append(errs, err)
			}
			if ctx.Err() != nil {
				return nil, errors.Join(append(errs, ctx.Err())...)
			}
		}
	}
	return nil, errors.Join(errs...)
}

// post asks one store; found is false on 404 (the store does not have the sector).
func (f *vanillaFetcher) post(ctx context.Context, url string, body []byte) ([]byte, bool, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, false, err
	}
	req.Header = f.auth.Clone()
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxVanillaBytes+1))
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return nil, false, nil
	case resp.StatusCode != http.StatusOK:
		return nil, false, fmt.Errorf("%s: HTTP %d: %s", url, resp.StatusCode, strings.TrimSpace(string(truncate(b, 256))))
	case err != nil:
		return nil, false, fmt.Errorf("%s: %w", url, err)
	case len(b) > maxVanillaBytes:
		return nil, false, fmt.Errorf("%s: vanilla proof larger than %d bytes", url, maxVanillaBytes)
	case len(b) == 0:
		return nil, false, fmt.Errorf("%s: empty vanilla proof", url)
	}
	return b, true, nil
}

func truncate(b []byte, n int) []byte {
	if len(b) > n {
		return b[:n]
	}
	return b
}
