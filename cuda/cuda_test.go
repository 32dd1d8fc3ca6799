package cuda

import (
	"errors"
	"path/filepath"
	"testing"
)

func TestLoadMissingLibraryIsErrNoCUDA(t *testing.T) {
	_, err := Load(filepath.Join(t.TempDir(), LibName))
	if !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("Load(missing) = %v, want ErrNoCUDA", err)
	}
}

func TestLoadNotALibraryIsErrNoCUDA(t *testing.T) {
	// A file that exists but is no shared object: dlopen fails, reported as ErrNoCUDA.
	_, err := Load("cuda.go")
	if !errors.Is(err, ErrNoCUDA) {
		t.Fatalf("Load(cuda.go) = %v, want ErrNoCUDA", err)
	}
}

func TestStatusErrorTemporary(t *testing.T) {
	for _, c := range []struct {
		code int32
		temp bool
	}{{CodeNoMemory, true}, {CodeCUDA, true}, {CodeInvalid, false}, {CodeNoDevice, false}} {
		e := &StatusError{Func: "f", Code: c.code, Msg: "m"}
		if e.Temporary() != c.temp {
			t.Errorf("code %d: Temporary() = %v, want %v", c.code, e.Temporary(), c.temp)
		}
	}
}
