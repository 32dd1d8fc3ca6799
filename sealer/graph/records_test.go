package graph

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/filecoin-project/go-state-types/abi"
	"github.com/snarkpipe/snarkpipe/types"
)

// sealRecord is one line of rust-fil-proofs' seal_regression_records-v*.json.
type sealRecord struct {
	PoRepConfig struct {
		SectorSize  uint64   `json:"sector_size"`
		Partitions  int      `json:"partitions"`
		PoRepID     [32]byte `json:"porep_id"`
		APIVersion  string   `json:"api_version"`
		APIFeatures []string `json:"api_features"`
	} `json:"porep_config"`
	CommR    [32]byte `json:"comm_r"`
	CommD    [32]byte `json:"comm_d"`
	ProverID [32]byte `json:"prover_id"`
	SectorID uint64   `json:"sector_id"`
	Ticket   [32]byte `json:"ticket"`
	Seed     [32]byte `json:"seed"`
	Proof    []byte   `json:"proof"`
}

// recordInputs is what this package derives for one record: the replica id and, per
// partition, the challenges with their parents (the graph part of the public inputs).
type recordInputs struct {
	cfg        types.PoRepConfig
	replicaID  [32]byte
	partitions [][]ChallengeParents
}

func (r *sealRecord) config() (types.PoRepConfig, error) {
	api, err := types.ParseAPIVersion(r.PoRepConfig.APIVersion)
	if err != nil {
		return types.PoRepConfig{}, err
	}
	mode, err := types.ParseFeatures(r.PoRepConfig.APIFeatures)
	if err != nil {
		return types.PoRepConfig{}, err
	}
	return types.PoRepConfig{SectorSize: r.PoRepConfig.SectorSize, Partitions: r.PoRepConfig.Partitions,
		PoRepID: r.PoRepConfig.PoRepID, APIVersion: api, Mode: mode}, nil
}

func deriveRecord(r *sealRecord) (*recordInputs, error) {
	cfg, err := r.config()
	if err != nil {
		return nil, err
	}
	g, err := ForConfig(cfg)
	if err != nil {
		return nil, err
	}
	in := &recordInputs{cfg: cfg, replicaID: types.ReplicaID(r.ProverID, abi.SectorNumber(r.SectorID), r.Ticket, r.CommD, cfg.PoRepID)}
	for k := 0; k < cfg.Partitions; k++ {
		cs, err := ConfigChallenges(cfg, in.replicaID, r.CommR, r.Seed, k)
		if err != nil {
			return nil, err
		}
		ps, err := g.WithParents(cs)
		if err != nil {
			return nil, err
		}
		in.partitions = append(in.partitions, ps)
	}
	return in, nil
}

// digest feeds everything derived into h: replica id, then every challenge and its 14 parents.
func (in *recordInputs) digest(h interface{ Write([]byte) (int, error) }) {
	h.Write(in.replicaID[:])
	var b []byte
	for _, part := range in.partitions {
		for _, cp := range part {
			b = binary.LittleEndian.AppendUint64(b[:0], cp.Challenge)
			for _, p := range append(cp.Base[:], cp.Exp[:]...) {
				b = binary.LittleEndian.AppendUint32(b, p)
			}
			h.Write(b)
		}
	}
}

func readRecords(t *testing.T, name string) []sealRecord {
	t.Helper()
	var out []sealRecord
	sc := bufio.NewScanner(bytes.NewReader(readUpstream(t, name)))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var r sealRecord
		// Arrays of numbers decode into [32]byte; proof bytes are a JSON array too.
		var raw map[string]json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil {
			t.Fatal(err)
		}
		var proof []int
		if err := json.Unmarshal(raw["proof"], &proof); err != nil {
			t.Fatal(err)
		}
		delete(raw, "proof")
		rest, _ := json.Marshal(raw)
		if err := json.Unmarshal(rest, &r); err != nil {
			t.Fatal(err)
		}
		for _, v := range proof {
			r.Proof = append(r.Proof, byte(v))
		}
		out = append(out, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// recordPins pins, per record file, the SHA-256 over all records' derived values, plus the
// values of the first record of every configuration. The values were computed by this code
// (replica_id per generate_replica_id; challenges and parents as tested above against
// upstream vectors). They become verified facts once the circuits package checks the record
// proofs against official verifying keys with these inputs; until then they catch changes.
var recordPins = map[string]struct {
	records int
	digest  string
}{
	"seal_regression_records-v16.json": {448, "75f3dbf9df526a92975e5cbe42d2f4510816e846c53c2fda29bb3413b253f6c4"},
	"seal_regression_records-v18.json": {113, "d335094944dc2926b9302b14e8e9bf8999a49e5a37d1e22308a785fd393e70c9"},
}

// firstRecordPins: file:config key → replica id hex and partition-0 challenges of the first record
// with that configuration.
var firstRecordPins = map[string]string{
	"seal_regression_records-v16.json:2048/1/0/V1_0_0/Interactive":                  "eedafd70f8a0dfaa33964fc981f841c1e5f87df7f6a898d5ca77a28934c7f718[11 22]",
	"seal_regression_records-v16.json:2048/1/5/V1_1_0/Interactive":                  "da838d3efe2e28665cd17ebfa274f67af8c3b51dfb01e8c6bf8892e712d62006[57 58]",
	"seal_regression_records-v16.json:2048/1/5/V1_2_0/Interactive":                  "a1734bed6c384089a9ae0744bc264f3a112c89391b77d508975296db15c6960b[30 39]",
	"seal_regression_records-v16.json:2048/1/5/V1_2_0/SyntheticPoRep":               "e673403e6126c0cfd6510caeff3c00a070a3c968a7d659f71a94b60b44286210[4 14]",
	"seal_regression_records-v16.json:34359738368/10/8/V1_1_0/Interactive":          "3ca7c8110b2ccdcc89d8d7dabeed81b7a5b87a4f73ed43d0b2eb2220de963129[980979701 721418575 824730872 1022388640 313254808 1063608501 153621234 591422190 848122467 46043795 635931656 334761064 1037829961 105884237 1066709247 77891472 578988757 321801013]",
	"seal_regression_records-v16.json:536870912/1/2/V1_0_0/Interactive":             "d56dccfafc35abb873f0200b9c6a3fdbc341c38ceada2bac3579f009054e980e[4913907 186331]",
	"seal_regression_records-v16.json:536870912/1/7/V1_1_0/Interactive":             "abd623530588ba2e8d52f45fbb449711909c64a817ff0d1e90b5eb0d271bb020[1363835 4541487]",
	"seal_regression_records-v16.json:68719476736/10/9/V1_1_0/Interactive":          "5e6a507b3affcf637473fe44fa9bf351fe3a2fb56267ce6b128663008bf96224[535135410 1860294434 1837634219 1028054300 1943250348 1828966430 2043981934 929294754 1565201445 1603174225 345110945 343254013 2000150726 622456542 1257786735 1411048045 75233858 515628091]",
	"seal_regression_records-v16.json:8388608/1/127/V1_0_0/Interactive":             "a23178fc9954c20bc4f73c6d3e64592804c1276e65d12999f6b0b8099c551b27[85739 116607]",
	"seal_regression_records-v16.json:8388608/1/128/V1_1_0/Interactive":             "b43a42f765daa11c52a9148ecd1518285de622564104252da9726abdaf9ee131[59858 102917]",
	"seal_regression_records-v16.json:8388608/1/129/V1_2_0/Interactive":             "41b65e9dbccec7ae21638122d4f758458815ff51a80e36faf601f289602b8c30[105537 71713]",
	"seal_regression_records-v16.json:8388608/1/129/V1_2_0/SyntheticPoRep":          "d5fee73d92a12ba40d909a2439e4984ae1a8cf81384384e0e727fbb3740bd935[220804 9445]",
	"seal_regression_records-v18.json:34359738368/10/8/V1_2_0/SyntheticPoRep":       "20a8f43d79e1dc6dd4c1857169020e0f3de40079f98bb0afab27deb944eebe2d[395605013 777476931 267381313 512381588 222675103 375070327 747541205 780995505 613166618 434522812 29766439 610723930 345022406 1026317154 895055979 631318894 218667208 174893606]",
	"seal_regression_records-v18.json:34359738368/126/8/V1_2_0/NonInteractivePoRep": "b12429eefc8ac0a050cade3e22d03321204d3acc2bb5db4f9a08ba7ee03ec429[656413550 698352302 764572372 547478150 1028032031 428836542 699536240 964897915 58422864 928064738 749743499 830561771 1073387526 225625012 1062244038 47616728 276349496 128153600]",
	"seal_regression_records-v18.json:536870912/1/127/V1_0_0/Interactive":           "ece5c7b510f4278aa5e197c2f39c2b286354846c87a0363cdb1434bb1ee5ab1d[1285565 4765688]",
	"seal_regression_records-v18.json:536870912/1/128/V1_1_0/Interactive":           "f30b8f0d91417fd61091bad2db38aaafa4ee1ecd23dc7fb05fa0928fba2e0706[497790 223432]",
	"seal_regression_records-v18.json:536870912/1/129/V1_2_0/Interactive":           "0e2e8f4ed2967f1e9b81e0f7e629d302fa607ecf1d32beb0c49785d789ee750e[12562882 4061325]",
	"seal_regression_records-v18.json:536870912/1/129/V1_2_0/SyntheticPoRep":        "92bc4b691931128b915f32394fd8e2c332efbe15571e00c1031d7dc1afa9a12c[12931662 15027182]",
	"seal_regression_records-v18.json:536870912/13/129/V1_2_0/NonInteractivePoRep":  "408fcac25b207fe2b89daa2f6983f74ece72b073bb8b1c26ee98b88d8620ee19[2648773 3692795]",
	"seal_regression_records-v18.json:8388608/1/127/V1_0_0/Interactive":             "301a035637401a91943263cc6fa1e40edb031c5da2a58ceb651d218081c7373e[123777 136609]",
	"seal_regression_records-v18.json:8388608/1/128/V1_1_0/Interactive":             "3c20f14c3575973ac4abdc6efe6b6113a46aec26f13f9a3f1fda48371990a72b[207332 231267]",
	"seal_regression_records-v18.json:8388608/1/129/V1_2_0/Interactive":             "3797cf5e330860aba9b7ac5be067bddfdb18c1f69ad2192356f5cbf2fa1cfb17[168322 156646]",
	"seal_regression_records-v18.json:8388608/1/129/V1_2_0/SyntheticPoRep":          "6110f91aa7333c81281472508512596c2884e8a493b37cec3e893378e744301d[254658 11632]",
	"seal_regression_records-v18.json:8388608/13/129/V1_2_0/NonInteractivePoRep":    "53854123c8ada70bf843a6e9429fd44b9185525513170f4a73f8346c9e9c871a[119877 31264]",
}

func configKey(cfg types.PoRepConfig) string {
	return fmt.Sprintf("%d/%d/%d/%s/%s", cfg.SectorSize, cfg.Partitions, cfg.PoRepID[0], cfg.APIVersion, cfg.Mode)
}

// TestSealRecordPublicInputs derives replica_id, challenges and parents for every record of
// both regression files and compares them with the pins. It also checks structural facts:
// the proof length is 192 bytes per partition (SnarkPack aggregate sizes for NI), challenges
// are in [1, nodes) and every parent precedes its node (DRG) or lies in the sector.
func TestSealRecordPublicInputs(t *testing.T) {
	for name, pin := range recordPins {
		records := readRecords(t, name)
		if len(records) != pin.records {
			t.Fatalf("%s: %d records, want %d", name, len(records), pin.records)
		}
		h := sha256.New()
		seen := map[string]bool{}
		for i := range records {
			r := &records[i]
			in, err := deriveRecord(r)
			if err != nil {
				t.Fatalf("%s record %d: %v", name, i, err)
			}
			checkRecordStructure(t, name, i, r, in)
			in.digest(h)
			key := name + ":" + configKey(in.cfg)
			if !seen[key] {
				seen[key] = true
				got := hex.EncodeToString(in.replicaID[:]) + fmt.Sprint(challengesOf(in.partitions[0]))
				if want, ok := firstRecordPins[key]; !ok || want != got {
					t.Errorf("%s first record of %s:\n got %q", name, key, got)
				}
			}
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != pin.digest {
			t.Errorf("%s: digest of derived inputs %s, want %s", name, got, pin.digest)
		}
	}
}

func challengesOf(ps []ChallengeParents) []uint64 {
	out := make([]uint64, len(ps))
	for i, p := range ps {
		out[i] = p.Challenge
	}
	return out
}

func checkRecordStructure(t *testing.T, name string, i int, r *sealRecord, in *recordInputs) {
	t.Helper()
	nodes := in.cfg.SectorSize / types.NodeSize
	wantLen := 192 * in.cfg.Partitions
	if in.cfg.Mode == types.ChallengeNonInteractive {
		wantLen = map[int]int{13: 14164, 126: 23092}[in.cfg.Partitions]
	}
	if len(r.Proof) != wantLen {
		t.Errorf("%s record %d: proof of %d bytes, want %d", name, i, len(r.Proof), wantLen)
	}
	if in.replicaID[31]&0xc0 != 0 {
		t.Errorf("%s record %d: replica id not masked", name, i)
	}
	for _, part := range in.partitions {
		for _, cp := range part {
			if cp.Challenge == 0 || cp.Challenge >= nodes {
				t.Fatalf("%s record %d: challenge %d", name, i, cp.Challenge)
			}
			for _, p := range cp.Base {
				if uint64(p) >= cp.Challenge {
					t.Fatalf("%s record %d: DRG parent %d of node %d", name, i, p, cp.Challenge)
				}
			}
			for _, p := range cp.Exp {
				if uint64(p) >= nodes {
					t.Fatalf("%s record %d: expander parent %d", name, i, p)
				}
			}
		}
	}
}
