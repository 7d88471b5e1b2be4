package gpuresult

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/sgformer/sgformer/internal/record"
)

// The records `gpu-run.sh collect` writes are the conversion of the pieces and folders beside
// them: the committed device calls' (results/zinc12k-gpu) and the readme's test calls
// (testdata/calls, whose records internal/cmd/readme's TestGPUSection renders). There the
// latest speed:sparse stopped before its result.json and is read from its folder, and the
// XLA summary in speed-dense/ belongs to the latest dense piece with timings.
func TestRecords(t *testing.T) {
	for dir, file := range map[string]string{
		"../../results/zinc12k-gpu": "../../results/zinc12k-gpu/" + RecordsFile,
		"testdata/calls":            "../cmd/readme/testdata/gpu/results/zinc12k-gpu/" + RecordsFile,
	} {
		got, err := Records(dir)
		if err != nil {
			t.Fatal(err)
		}
		want, err := record.Read(file)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			for i := range min(len(got), len(want)) {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Errorf("%s: record %d is %+v, %s has %+v", dir, i, got[i], file, want[i])
					break
				}
			}
			t.Errorf("%s: %d records, %s has %d: run scripts/gpu-run.sh collect on an empty folder", dir, len(got), filepath.Base(file), len(want))
		}
	}
}
