package record

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// scripts/lib/record.sh's record_epochs prints a run's epochs from its metrics.jsonl: their
// seconds, the programs each compiled where the run counts them, and the steady epoch, the
// median of the epochs that compiled none (none where no epoch did, or programs are not counted).
func TestRecordEpochs(t *testing.T) {
	for _, c := range []struct {
		metrics string
		want    string
	}{
		{`{"epoch":1,"seconds":81.7,"programs":12,"compile_seconds":60.5}
{"epoch":2,"seconds":2.5,"programs":0}
{"epoch":3,"seconds":20.9,"programs":3}
{"epoch":4,"seconds":1.9,"programs":0,"train_seconds":1.2}
{"epoch":5,"seconds":2.1,"programs":0}
`, "epoch seconds: 81.7 2.5 20.9 1.9 2.1\nepoch programs: 12 0 3 0 0\nsteady epoch seconds: 2.1\n"},
		{`{"epoch":1,"seconds":81.7,"programs":12}
{"epoch":2,"seconds":2.5,"programs":0}
{"epoch":3,"seconds":1.9,"programs":0}
{"epoch":4,"seconds":20.9,"programs":1}
`, fmt.Sprintf("epoch seconds: 81.7 2.5 1.9 20.9\nepoch programs: 12 0 0 1\nsteady epoch seconds: %.17g\n", (1.9+2.5)/2)},
		{`{"epoch": 1, "seconds": 7.2}
{"epoch": 2, "seconds": 7.0}
`, "epoch seconds: 7.2 7.0\n"}, // scripts/authors-train.py's: no programs
		{`{"epoch":1,"seconds":181.6,"programs":7}
`, "epoch seconds: 181.6\nepoch programs: 7\n"},
	} {
		metrics := filepath.Join(t.TempDir(), "metrics.jsonl")
		if err := os.WriteFile(metrics, []byte(c.metrics), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command("bash", "-c", `source scripts/lib/record.sh && record_epochs "$0"`, metrics)
		cmd.Dir = filepath.Join("..", "..")
		out, err := cmd.CombinedOutput()
		if err != nil || string(out) != c.want {
			t.Errorf("%s: %q, %v; want %q", strings.SplitN(c.metrics, "\n", 2)[0], out, err, c.want)
		}
	}
}

// scripts/lib/record.sh's record_programs prints the one training-step and the one inference
// module of hloflops' output (here a stand-in for go run), and fails, naming the pattern, where
// a part has none or several: the templates take a part for one program.
func TestRecordPrograms(t *testing.T) {
	const (
		train = `{"module":"Trainer_0","dots":1}`
		infer = `{"module":"jit_benchInference_1","dots":2}`
		other = `{"module":"jit_other","dots":3}`
	)
	for _, c := range []struct {
		modules []string
		want    string // the output, or the error (%s the dump)
	}{
		{[]string{other, train, infer}, "== p training step\n" + train + "\n== p inference pass\n" + infer + "\n"},
		{[]string{train, other}, `0 modules of %s/modules.jsonl match ^{"module":"[^"]*benchInference`},
		{[]string{train, train, infer}, `2 modules of %s/modules.jsonl match ^{"module":"Trainer`},
		{[]string{train, infer, infer}, `2 modules of %s/modules.jsonl match ^{"module":"[^"]*benchInference`},
	} {
		dump := t.TempDir()
		cmd := exec.Command("bash", "-c", `set -euo pipefail; source scripts/lib/record.sh; go() { printf '%s\n' "$MODULES"; }; record_programs p "$0"`, dump)
		cmd.Dir = filepath.Join("..", "..")
		cmd.Env = append(os.Environ(), "MODULES="+strings.Join(c.modules, "\n"))
		out, err := cmd.CombinedOutput()
		if strings.HasPrefix(c.want, "== ") {
			if err != nil || string(out) != c.want {
				t.Errorf("%q: %q, %v; want %q", c.modules, out, err, c.want)
			}
		} else if want := fmt.Sprintf(c.want, dump); err == nil || !strings.Contains(string(out), want) {
			t.Errorf("%q: %q, %v; want an error %q", c.modules, out, err, want)
		}
	}
}
