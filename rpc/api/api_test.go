package api

import (
	"errors"
	"reflect"
	"slices"
	"testing"
)

// TestEveryMethodHasAPermission: each SnarkPipe method has a func field with a known perm
// tag (the server refuses to start otherwise, but this says which one).
func TestEveryMethodHasAPermission(t *testing.T) {
	iface := reflect.TypeFor[SnarkPipe]()
	internal := reflect.TypeFor[SnarkPipeStruct]().Field(0).Type
	if iface.NumMethod() != internal.NumField() {
		t.Fatalf("%d methods, %d Internal fields", iface.NumMethod(), internal.NumField())
	}
	for i := 0; i < iface.NumMethod(); i++ {
		m := iface.Method(i)
		f, ok := internal.FieldByName(m.Name)
		if !ok {
			t.Errorf("%s: no Internal field", m.Name)
			continue
		}
		if !slices.Contains(AllPermissions, f.Tag.Get("perm")) {
			t.Errorf("%s: perm tag %q", m.Name, f.Tag.Get("perm"))
		}
	}
	for name, want := range map[string]string{"SealCommit2": PermWrite, "Status": PermRead, "Preload": PermAdmin, "Evict": PermAdmin, "Cancel": PermWrite} {
		f, _ := internal.FieldByName(name)
		if got := f.Tag.Get("perm"); got != want {
			t.Errorf("%s needs %q, want %q", name, got, want)
		}
	}
}

func TestErrorCodecRoundTrip(t *testing.T) {
	in := &Error{Code: CodeUnavailable, Message: "shutting down", Data: ErrorData{ProofType: "StackedDrg2KiBV1_1"}}
	j, err := in.ToJSONRPCError()
	if err != nil || int(j.Code) != 5 || j.Message != "shutting down" {
		t.Fatalf("%+v %v", j, err)
	}
	var out Error
	if err := out.FromJSONRPCError(j); err != nil {
		t.Fatal(err)
	}
	if out.Code != CodeUnavailable || out.Data.ProofType != "StackedDrg2KiBV1_1" || !out.Data.Temporary {
		t.Fatalf("round trip %+v", out)
	}
	if !errors.Is(&out, &Error{Code: CodeUnavailable}) || errors.Is(&out, &Error{Code: CodeCancelled}) {
		t.Fatal("errors.Is by code")
	}
	if CodeOf(errors.New("x")) != CodeInternal || CodeOf(&out) != CodeUnavailable {
		t.Fatal("CodeOf")
	}
}
