// Command samecompare checks that two compare.json files of `sgformer compare` hold the same
// results: the same models with the same parameters, epochs, best epoch and validation and test
// metrics, to the last bit (the times may differ). scripts/main-job.sh runs it on the main job
// against the committed results/synthetic/compare.json.
//
//	go run ./internal/cmd/samecompare WANT.json GOT.json
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/sgformer/sgformer/sgformer/training"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: samecompare WANT.json GOT.json")
		os.Exit(2)
	}
	if err := same(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "samecompare:", err)
		os.Exit(1)
	}
}

func same(wantPath, gotPath string) error {
	want, err := read(wantPath)
	if err != nil {
		return err
	}
	got, err := read(gotPath)
	if err != nil {
		return err
	}
	if len(got) != len(want) {
		return fmt.Errorf("%s has %d runs, %s %d", gotPath, len(got), wantPath, len(want))
	}
	for i, w := range want {
		g := got[i]
		w.Seconds, g.Seconds = 0, 0 // the time a run took, and the programs its process built
		w.Programs, g.Programs, w.CompileSeconds, g.CompileSeconds = 0, 0, 0, 0
		if g != w {
			return fmt.Errorf("run %d differs from the committed results:\n  committed %+v\n  now       %+v\n(regenerate results/synthetic with the README's main job if the change is intended)", i, w, g)
		}
	}
	fmt.Printf("the main job reproduces %s (%d runs)\n", wantPath, len(want))
	return nil
}

func read(path string) ([]training.Summary, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var runs []training.Summary
	if err := json.Unmarshal(raw, &runs); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return runs, nil
}
