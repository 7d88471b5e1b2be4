package nbcheck

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNotebooksSaved checks the committed notebooks (notebooks/*.ipynb): each holds the outputs
// of a checked run of its present cells.
func TestNotebooksSaved(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("..", "..", "notebooks", "*.ipynb"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no notebooks (%v)", err)
	}
	for _, path := range paths {
		if err := CheckSaved(path); err != nil {
			t.Error(err)
		}
	}
}

// TestStamp stamps an executed notebook, and CheckSaved accepts it until a cell changes.
func TestStamp(t *testing.T) {
	nb := `{"cells": [{"cell_type": "code", "execution_count": 1, "metadata": {}, "outputs": [{"output_type": "stream", "name": "stdout", "text": ["<b>4</b>\n"]}], "source": ["fmt.Println(2+2)"]}],
 "metadata": {"kernelspec": {"name": "gonb"}}, "nbformat": 4, "nbformat_minor": 5}`
	dir := t.TempDir()
	path := filepath.Join(dir, "nb.ipynb")
	os.WriteFile(path, []byte(nb), 0o644)
	if err := CheckSaved(path); err == nil || !strings.Contains(err.Error(), "--save") {
		t.Errorf("unstamped notebook: %v", err)
	}
	stamped, err := Stamp([]byte(nb))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(stamped), `"<b>4</b>\n"`) {
		t.Errorf("outputs changed by the stamp:\n%s", stamped)
	}
	os.WriteFile(path, stamped, 0o644)
	if err := CheckSaved(path); err != nil {
		t.Errorf("stamped notebook: %v", err)
	}
	os.WriteFile(path, []byte(strings.Replace(string(stamped), "2+2", "2+3", 1)), 0o644)
	if err := CheckSaved(path); err == nil || !strings.Contains(err.Error(), "cells changed") {
		t.Errorf("notebook edited after its run: %v", err)
	}
}

// portable refuses what a reader of the saved notebook would not see as saved: a figure as HTML
// with an SVG, and text naming the folders of the machine that ran it.
func TestPortable(t *testing.T) {
	nb := func(output string) []byte {
		return []byte(`{"cells": [{"cell_type": "code", "outputs": [` + output + `]}]}`)
	}
	for _, tc := range []struct {
		output, want string
	}{
		{`{"output_type": "display_data", "data": {"image/png": "iVBOR", "text/plain": "[a figure]"}}`, ""},
		{`{"output_type": "display_data", "data": {"application/json": {"a": 1}}}`, ""},
		{`{"output_type": "display_data", "data": {"text/html": ["<div><svg width=\"1\">", "</svg></div>"]}}`, "HTML holding an SVG"},
		{`{"output_type": "stream", "name": "stdout", "text": ["run in /src/sgformer/results\n"]}`, "names the folder /src/sgformer"},
		{`{"output_type": "stream", "name": "stdout", "text": "plugin /home/me/.cache/x.so"}`, "names the folder /home/me"},
		{`{"output_type": "display_data", "data": {"text/plain": "imported into /tmp/gonb_2dfc4dc3/run"}}`, "names the folder /tmp/gonb_2dfc4dc3"},
		{`{"output_type": "stream", "name": "stdout", "text": "../../shared/data/zinc12k"}`, ""},
	} {
		err := portable(nb(tc.output), "/src/sgformer", "/home/me")
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: %v, want %q", tc.output, err, tc.want)
		}
	}
}
