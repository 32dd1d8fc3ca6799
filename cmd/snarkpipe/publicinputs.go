package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/consensys/gnark-crypto/ecc/bls12-381/fr"
)

// publicInputsDoc documents --inputs-out for the commands' help.
const publicInputsDoc = `--inputs-out FILE writes the public inputs as JSON, for checking the proof with another
Groth16 verifier (BLS12-381, bellperson's verifying key):
  {"circuit": "<circuit id>", "partitions": [["<input 1>", "<input 2>", ...], ...]}
one list per partition, in the order of the proof's 192-byte partition proofs; each input is
a BLS12-381 scalar as a decimal string, in circuit order, without the leading constant 1
(the verifier multiplies vk.IC[0] by it). Partition k's proof verifies when
e(A,B) = e(alpha,beta) * e(IC[0] + sum_i input_i * IC[i], gamma) * e(C,delta).`

// publicInputsFile is the JSON of --inputs-out.
type publicInputsFile struct {
	Circuit    string     `json:"circuit"`
	Partitions [][]string `json:"partitions"`
}

// writePublicInputs writes the statement's public inputs (every partition) to path.
func writePublicInputs(path string, st *statement) error {
	f := publicInputsFile{Circuit: string(st.blank.ID()), Partitions: make([][]string, len(st.inputs))}
	for k, in := range st.inputs {
		f.Partitions[k] = make([]string, len(in))
		for i := range in {
			f.Partitions[k][i] = in[i].String()
		}
	}
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// readPublicInputs reads an --inputs-out file back into field elements.
func readPublicInputs(path string) (string, [][]fr.Element, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", nil, err
	}
	var f publicInputsFile
	if err := json.Unmarshal(b, &f); err != nil {
		return "", nil, fmt.Errorf("%s: %w", path, err)
	}
	out := make([][]fr.Element, len(f.Partitions))
	for k, in := range f.Partitions {
		out[k] = make([]fr.Element, len(in))
		for i, s := range in {
			if _, err := out[k][i].SetString(s); err != nil {
				return "", nil, fmt.Errorf("%s: partition %d input %d: %w", path, k, i+1, err)
			}
		}
	}
	return f.Circuit, out, nil
}
