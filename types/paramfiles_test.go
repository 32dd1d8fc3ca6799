package types

import (
	"bytes"
	"strings"
	"testing"
)

// TestEmbeddedManifestsEqualUpstream: the embedded parameters.json and
// srs-inner-product.json are byte-identical to the upstream fixtures.
func TestEmbeddedManifestsEqualUpstream(t *testing.T) {
	if !bytes.Equal(parametersJSON, readUpstream(t, "parameters.json")) {
		t.Error("types/parameters.json differs from upstream's parameters.json")
	}
	if !bytes.Equal(srsJSON, readUpstream(t, "srs-inner-product.json")) {
		t.Error("types/srs-inner-product.json differs from upstream's srs-inner-product.json")
	}
}

// TestParamFilesOfEveryCircuit: each circuit of the tables has its .params and .vk in the
// manifest, with the circuit's sector size and a known size; the size table names only
// manifest files.
func TestParamFilesOfEveryCircuit(t *testing.T) {
	names := map[string]uint64{}
	for _, p := range SealProofs() {
		names[p.ParamFileName("params")] = p.SectorSize
	}
	for _, p := range PoStProofs() {
		names[p.ParamFileName("params")] = p.SectorSize
	}
	for _, p := range UpdateProofs() {
		names[p.ParamFileName("params")] = p.SectorSize
	}
	if len(names) != 20 {
		t.Fatalf("%d circuits, want 20", len(names))
	}
	for name, sector := range names {
		files, err := ParamFilesOf(name)
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 2 || files[0].Name != name || !strings.HasSuffix(files[1].Name, ".vk") {
			t.Fatalf("%s: %+v", name, files)
		}
		for _, f := range files {
			if f.SectorSize != sector || f.Size <= 0 || len(f.Digest) != 32 || !strings.HasPrefix(f.CID, "Qm") {
				t.Errorf("%s: %+v (sector size want %d)", f.Name, f, sector)
			}
		}
	}
	if len(paramFileSizes) != 40 {
		t.Errorf("%d sizes, want 40", len(paramFileSizes))
	}
	for name := range paramFileSizes {
		if _, err := ParamFileInfo(name); err != nil {
			t.Error(err)
		}
	}
	srs, err := ParamFileInfo(SRSFileName)
	if err != nil || srs.Digest != "ae20310138f5ba81451d723f858e3797" || srs.Size != 0 {
		t.Errorf("srs: %+v %v", srs, err)
	}
	if len(ParamFileNames()) != 45 {
		t.Errorf("%d manifest files, want 45 (44 + the .srs)", len(ParamFileNames()))
	}
	if _, err := ParamFilesOf("x.vk"); err == nil {
		t.Error("a .vk accepted as a .params name")
	}
}
