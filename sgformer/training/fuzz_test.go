package training

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gomlx/gomlx/pkg/ml/context"

	"github.com/sgformer/sgformer/sgformer/backend"
	"github.com/sgformer/sgformer/sgformer/model"
)

// validCheckpoint writes a small model's checkpoint into dir and returns the paths of its
// state file and of its largest variables file.
func validCheckpoint(f *testing.F, dir string) (statePath, varsPath string) {
	be, err := backend.New("go")
	if err != nil {
		f.Fatal(err)
	}
	ctx, _, err := BuildModel(be, model.Spec{NodeVocab: []int{2}, EdgeVocab: []int{2}, Tasks: 1},
		map[string]any{model.ParamLayers: 1, model.ParamHidden: 6, model.ParamHeads: 1, model.ParamPEK: 1, model.ParamAggregations: "internal,external,point"})
	if err != nil {
		f.Fatal(err)
	}
	if err := save(ctx, dir, &state{Epoch: 1}, allVariables); err != nil {
		f.Fatal(err)
	}
	vars, _ := filepath.Glob(filepath.Join(dir, checkpointVars, "*"))
	var size int64
	for _, v := range vars {
		if fi, err := os.Stat(v); err == nil && fi.Size() > size {
			varsPath, size = v, fi.Size()
		}
	}
	return filepath.Join(dir, stateFile), varsPath
}

// No state file and no variables file makes the checkpoint loader panic, or accept changed
// variables under a checksum; without a checksum (runs from before checksums), GoMLX's reader
// must fail cleanly.
func FuzzCheckpoint(f *testing.F) {
	dir := filepath.Join(f.TempDir(), "checkpoint")
	statePath, varsPath := validCheckpoint(f, dir)
	pristine, _ := os.ReadFile(statePath)
	vars, _ := os.ReadFile(varsPath)
	f.Add(pristine, vars)
	f.Add([]byte(`{"epoch": 3}`), vars)
	f.Add([]byte(`{"epoch": 3}`), vars[:len(vars)/2])
	f.Add(pristine, vars[:len(vars)/2])
	f.Add([]byte("{"), []byte{})
	f.Fuzz(func(t *testing.T, stateBytes, varsBytes []byte) {
		work := filepath.Join(t.TempDir(), "checkpoint")
		if err := os.CopyFS(work, os.DirFS(dir)); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, stateFile), stateBytes, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(work, checkpointVars, filepath.Base(varsPath)), varsBytes, 0o644); err != nil {
			t.Fatal(err)
		}
		var st state
		var err error
		done := make(chan struct{})
		go func() { err = load(context.New(), work, &st); close(done) }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			t.Fatalf("load hangs")
		}
		if err == nil && st.Checksum != "" && string(varsBytes) != string(vars) {
			t.Fatalf("changed variables accepted under a checksum")
		}
	})
}
