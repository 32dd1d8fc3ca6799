package lotus

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/filecoin-project/go-jsonrpc/auth"
	"github.com/filecoin-project/lotus/storage/sealer/storiface"
	"github.com/golang-jwt/jwt/v5"
)

// TestSignaturesMatchLotus compares our wire methods with lotus' own interfaces: the worker
// calls with storiface.WorkerCalls, our miner callback with storiface.WorkerReturn. A
// parameter of another type would encode differently on the wire.
func TestSignaturesMatchLotus(t *testing.T) {
	calls := reflect.TypeOf((*storiface.WorkerCalls)(nil)).Elem()
	ours := reflect.TypeOf(&workerAPI{})
	for _, name := range []string{"SealCommit2", "ProveReplicaUpdate2", "GenerateWindowPoSt", "GenerateWinningPoSt"} {
		want, ok := calls.MethodByName(name)
		if !ok {
			t.Fatalf("lotus WorkerCalls has no %s", name)
		}
		got, ok := ours.MethodByName(name)
		if !ok {
			t.Fatalf("workerAPI has no %s", name)
		}
		if !sameFunc(got.Type, want.Type, 1) {
			t.Errorf("%s: ours %v, lotus %v", name, got.Type, want.Type)
		}
	}
	for _, name := range []string{"ReturnSealCommit2", "ReturnProveReplicaUpdate2"} {
		ret, ok := reflect.TypeOf((*storiface.WorkerReturn)(nil)).Elem().MethodByName(name)
		if !ok {
			t.Fatalf("lotus WorkerReturn has no %s", name)
		}
		field, ok := reflect.TypeOf(MinerClient{}).FieldByName(name)
		if !ok || !sameFunc(field.Type, ret.Type, 0) {
			t.Errorf("%s: ours %v, lotus %v", name, field.Type, ret.Type)
		}
	}
}

// sameFunc compares parameter and result types, skipping skip leading parameters of a
// (receiver).
func sameFunc(a, b reflect.Type, skip int) bool {
	if a.NumIn()-skip != b.NumIn() || a.NumOut() != b.NumOut() {
		return false
	}
	for i := 0; i < b.NumIn(); i++ {
		if a.In(i+skip) != b.In(i) {
			return false
		}
	}
	for i := 0; i < b.NumOut(); i++ {
		if a.Out(i) != b.Out(i) {
			return false
		}
	}
	return true
}

// TestSecretVerifier checks lotus-style HS256 tokens locally.
func TestSecretVerifier(t *testing.T) {
	secret := []byte("0123456789abcdef0123456789abcdef")
	sign := func(key []byte, allow []string) string {
		s, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"Allow": allow}).SignedString(key)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	v := SecretVerifier(secret)
	perms, err := v(context.Background(), sign(secret, []string{"read", "write", "sign", "admin"}))
	if err != nil || len(perms) != 4 || perms[3] != auth.Permission("admin") {
		t.Fatalf("perms %v, %v", perms, err)
	}
	if _, err := v(context.Background(), sign([]byte("another secret, 32 bytes long!!!"), []string{"admin"})); err == nil {
		t.Fatal("token signed with another secret accepted")
	}
	none, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"Allow": []string{"admin"}}).SignedString(jwt.UnsafeAllowNoneSignatureType)
	if _, err := v(context.Background(), none); err == nil {
		t.Fatal("unsigned token accepted")
	}
}

// TestMinerVerifierCaches asks the miner once per token within the TTL, and never caches a
// refusal.
func TestMinerVerifierCaches(t *testing.T) {
	asked := map[string]int{}
	m := &MinerClient{AuthVerify: func(_ context.Context, token string) ([]auth.Permission, error) {
		asked[token]++
		if token == "good" {
			return []auth.Permission{"admin"}, nil
		}
		return nil, context.DeadlineExceeded
	}}
	v := MinerVerifier(m, time.Hour)
	for range 3 {
		if _, err := v(context.Background(), "good"); err != nil {
			t.Fatal(err)
		}
		if _, err := v(context.Background(), "bad"); err == nil {
			t.Fatal("bad token accepted")
		}
	}
	if asked["good"] != 1 || asked["bad"] != 3 {
		t.Fatalf("AuthVerify calls %v", asked)
	}
}

// TestReadJWTSecret reads lotus' keystore entry and raw secret files.
func TestReadJWTSecret(t *testing.T) {
	dir := t.TempDir()
	secret := []byte("0123456789abcdef-raw-secret-bytes")
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	keystore := write("MF2XI2BNNJ3XILLQOJUXMYLUMU", `{"Type":"jwt-hmac-secret","PrivateKey":"`+base64.StdEncoding.EncodeToString(secret)+`"}`)
	for _, p := range []string{keystore, write("raw", string(secret))} {
		got, err := ReadJWTSecret(p)
		if err != nil || string(got) != string(secret) {
			t.Fatalf("%s: %q, %v", p, got, err)
		}
	}
	for _, p := range []string{write("short", "abc"), write("wrongtype", `{"Type":"secp256k1","PrivateKey":"`+base64.StdEncoding.EncodeToString(secret)+`"}`), filepath.Join(dir, "missing")} {
		if _, err := ReadJWTSecret(p); err == nil {
			t.Fatalf("%s accepted", p)
		}
	}
}
