package remotec2

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzDecodeParams: arbitrary bodies never panic, and what decodes re-encodes (as lotus
// encodes it) to a body that decodes to the same values. Seeds: testdata/fuzz and below.
func FuzzDecodeParams(f *testing.F) {
	f.Add([]byte(`{"Sector":{"Miner":1000,"Number":42},"ProofType":8,"Commit1Out":"e30="}`))
	f.Add([]byte(`{"Sector":{"Miner":1,"Number":2},"ProofType":8,"Commit1Out":"e30=","Extra":[1]}`))
	f.Add([]byte(`{"Sector":null,"ProofType":8,"Commit1Out":""}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, err := DecodeParams(body)
		if err != nil {
			if p != nil {
				t.Fatal("params returned with an error")
			}
			return
		}
		if len(p.Commit1Out) == 0 {
			t.Fatal("empty Commit1Out accepted")
		}
		b, err := json.Marshal(&lotusParams{Sector: p.Sector, ProofType: p.ProofType, Commit1Out: p.Commit1Out})
		if err != nil {
			t.Fatal(err)
		}
		q, err := DecodeParams(b)
		if err != nil || q.Sector != p.Sector || q.ProofType != p.ProofType || !bytes.Equal(q.Commit1Out, p.Commit1Out) {
			t.Fatalf("re-encoded %s decodes to %+v, %v", b, q, err)
		}
	})
}
