package types

import (
	_ "embed" // the upstream manifests below
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// parametersJSON is upstream's parameters.json, byte for byte (rust-fil-proofs
// filecoin-proofs/parameters.json, as lotus ships it in build/proof-params): every official
// .params/.vk file name with its IPFS CID, digest (the first 32 hex characters of the
// file's BLAKE2b-512) and sector size.
//
//go:embed parameters.json
var parametersJSON []byte

// srsJSON is upstream's srs-inner-product.json: the SnarkPack SRS that NI-PoRep
// aggregation needs.
//
//go:embed srs-inner-product.json
var srsJSON []byte

// ParamFile is one official file of upstream's manifests.
type ParamFile struct {
	Name       string `json:"-"`
	CID        string `json:"cid"`
	Digest     string `json:"digest"`
	SectorSize uint64 `json:"sector_size"`
	// Size is the file's length in bytes, 0 when unknown. Upstream's manifest has no
	// sizes: they are those of bellperson's layout for the circuit's counts (paramFileSizes).
	Size int64 `json:"-"`
}

// ParametersJSON returns the embedded copy of upstream's parameters.json.
func ParametersJSON() []byte { return append([]byte(nil), parametersJSON...) }

// SRSFileName is the file name of the SnarkPack SRS (srs-inner-product.json's one entry).
const SRSFileName = ParamVersion + "-fil-inner-product-v1.srs"

var (
	manifestOnce sync.Once
	manifest     map[string]ParamFile
	manifestErr  error
)

// ParamFileInfo returns the manifest entry of an official file: a .params or .vk of
// parameters.json, or the SnarkPack .srs.
func ParamFileInfo(name string) (ParamFile, error) {
	manifestOnce.Do(func() { manifest, manifestErr = parseManifests() })
	if manifestErr != nil {
		return ParamFile{}, manifestErr
	}
	f, ok := manifest[name]
	if !ok {
		return ParamFile{}, fmt.Errorf("types: %s is not in upstream's parameters.json", name)
	}
	return f, nil
}

// ParamFileNames lists every file of the embedded manifests, sorted.
func ParamFileNames() []string {
	manifestOnce.Do(func() { manifest, manifestErr = parseManifests() })
	names := make([]string, 0, len(manifest))
	for n := range manifest {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func parseManifests() (map[string]ParamFile, error) {
	out := map[string]ParamFile{}
	for _, src := range []struct {
		name string
		data []byte
	}{{"parameters.json", parametersJSON}, {"srs-inner-product.json", srsJSON}} {
		var m map[string]ParamFile
		if err := json.Unmarshal(src.data, &m); err != nil {
			return nil, fmt.Errorf("types: embedded %s: %w", src.name, err)
		}
		for name, f := range m {
			f.Name, f.Size = name, paramFileSizes[name]
			out[name] = f
		}
	}
	return out, nil
}

// ParamFilesOf lists the official files that proving a circuit needs: its .params and
// .vk (paramsName is the .params file name, as ParamFileName("params") gives it).
func ParamFilesOf(paramsName string) ([]ParamFile, error) {
	base, ok := strings.CutSuffix(paramsName, ".params")
	if !ok {
		return nil, fmt.Errorf("types: %s is not a .params file name", paramsName)
	}
	var out []ParamFile
	for _, name := range []string{paramsName, base + ".vk"} {
		f, err := ParamFileInfo(name)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, nil
}

// paramFileSizes are the byte lengths of the official files of every circuit snarkpipe
// knows (the 20 of the proof tables), which parameters.json does not record. A .params
// file is bellperson's layout for the circuit's counts (groth16.ShapeCounts.ParamsFileSize:
// verifying key, then h, l, a, b_g1, b_g2 with a 4-byte length each, uncompressed points);
// a .vk is 864 + 4 + 96 × inputs bytes. The counts are those pinned by
// sealer/{porep,post,update}/testdata/counts.golden; cmd/snarkpipe's
// TestParamFileSizesFromCounts recomputes every entry from them. (Cross-check: upstream
// users report `du -h` 45G for the 32 GiB PoRep .params, and 47,373,928,632 B is 44.1 GiB.)
// The SnarkPack .srs and the two empty-sector-update-poseidon circuits are not listed:
// their sizes are unknown here (0).
var paramFileSizes = map[string]int64{
	// PoRep (stacked-proof-of-replication): 2k, 8m, 512m, 32g, 64g.
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params": 1114707768,
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk":     4708,
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params": 1429027896,
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.vk":     4708,
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params": 1988841144,
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.vk":     4708,
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params": 47373928632,
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk":     32356,
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params": 47624967288,
	"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk":     32356,
	// Winning PoSt (proof-of-spacetime-fallback, 1 sector × 66 challenges).
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params": 47299128,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.vk":     13636,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.params": 113383224,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.vk":     13636,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.params": 165299640,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.vk":     13636,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params": 192050232,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.vk":     13636,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.params": 200014584,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.vk":     13636,
	// Window PoSt (proof-of-spacetime-fallback, a partition of sectors × 10 challenges).
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params": 11501496,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.vk":     3076,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.params": 30859704,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.vk":     3076,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.params": 45257400,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.vk":     3076,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params": 60780374232,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.vk":     2481508,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.params": 62556733560,
	"v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.vk":     2429764,
	// SnapDeals (empty-sector-update).
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.params": 655789464,
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk":     1348,
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.params": 4268165208,
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.vk":     1348,
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.params": 21741422712,
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.vk":     1348,
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.params": 34453501368,
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk":     1348,
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.params": 35507495352,
	"v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk":     1348,
}
