package record

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

const header = `# command: scripts/bench-cpu.sh
# commit: 26726a4
# date: 2026-11-23T19:15Z
# machine: 2 cores, AMD EPYC, 23 GiB
# load: 1.24 1.68 1.73
# setup: go1.26.8
`

var ctx = Context{Command: "scripts/bench-cpu.sh", Commit: "26726a4", Date: "2026-11-23T19:15Z", Machine: "2 cores, AMD EPYC, 23 GiB", Load: "1.24 1.68 1.73", Setup: "go1.26.8"}

// TestParse turns each kind of measurement line a script writes into records, with the part and
// the header's context, and leaves the rest (logs, go test's preamble) out.
func TestParse(t *testing.T) {
	rec := func(part, what string, value float64, unit, note string) Record {
		return Record{Part: part, What: what, Value: value, Unit: unit, Note: note, Context: ctx}
	}
	for _, tc := range []struct {
		name, body string
		want       Set
	}{
		{"go test -bench", "== host batching\ngoos: linux\npkg: github.com/sgformer/sgformer/sgformer/training\ncpu: AMD EPYC\nBenchmarkZINCBatch/sparse-2         \t      20\t   8473992 ns/op\t21985276 B/op\nPASS\n",
			Set{rec("host batching", "BenchmarkZINCBatch/sparse", 8473992, "ns/op", ""), rec("host batching", "BenchmarkZINCBatch/sparse", 21985276, "B/op", "")}},
		{"GNU time", "== model\npeak RSS 15787820 kB, wall 143.64 s, CPU 179%\n",
			Set{rec("model", "peak RSS", 15787820, "kB", ""), rec("model", "wall", 143.64, "s", ""), rec("model", "CPU", 179, "%", "")}},
		{"GNU time without CPU", "== before round 1, load 1.44\npeak RSS 15891860 kB, wall 234.78 s\n",
			Set{rec("before round 1, load 1.44", "peak RSS", 15891860, "kB", ""), rec("before round 1, load 1.44", "wall", 234.78, "s", "")}},
		{"a failure", "== model ZINCTrainStep/dense\nCommand terminated by signal 9\nexit status 137\n== later\nskipped: no GPU\n",
			Set{rec("model ZINCTrainStep/dense", "exit status", 137, "", ""), rec("later", "skipped", 1, "", "no GPU")}},
		{"JSON summary", `== cli
{"graphs":12000,"pe_mode":"exact","recomputed":true,"samples":{"go":3,"plugin":9},"ids":[2,5],"none":null}
`, func() Set {
			l := map[string]string{"pe_mode": "exact"}
			s := Set{rec("cli", "graphs", 12000, "", ""), rec("cli", "ids", 2, "", ""), rec("cli", "ids", 5, "", ""), rec("cli", "recomputed", 1, "", ""),
				rec("cli", "samples.go", 3, "", ""), rec("cli", "samples.plugin", 9, "", "")}
			for i := range s {
				s[i].Labels = l
			}
			return s
		}()},
		{"number lists", "== devices 2\ntrain seconds per epoch: 196.5 72.56 4.3e1\ndevice bytes: \n\tMaximum resident set size (kbytes): 4239080\nepoch 0: train_loss 2.0760 val 1.9435\n2026-11-27 08:54:52 - root - INFO - Initialized logger\n",
			Set{rec("devices 2", "train seconds per epoch", 196.5, "", ""), rec("devices 2", "train seconds per epoch", 72.56, "", ""), rec("devices 2", "train seconds per epoch", 43, "", ""),
				rec("devices 2", "Maximum resident set size (kbytes)", 4239080, "", "")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(strings.NewReader(header + tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}

// TestParseRefuses: output without a header line or without measurements, and malformed
// measurement lines, are errors that say what is wrong.
func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct{ name, input, want string }{
		{"no load", strings.Replace(header, "# load: 1.24 1.68 1.73\n", "", 1) + "== a\nexit status 1\n", `the header: no "load"`},
		{"nothing measured", header + "== a\nsome log\n", "no measurements"},
		{"a value without a unit", header + "== a\nBenchmarkX-2 \t 3\t 100 ns/op\t 7\n", "line 8"},
		{"bad JSON", header + "== a\n{\"graphs\": 1,\n", "line 8"},
		{"JSON without numbers", header + "== a\n{\"parity\": \"pass\"}\n", "line 8: \"{\\\"parity\\\": \\\"pass\\\"}\": no numbers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(strings.NewReader(tc.input))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one with %q", err, tc.want)
			}
		})
	}
}

// TestWriteRead: records written are read back the same; Read names the file and line of a bad one.
func TestWriteRead(t *testing.T) {
	s, err := Parse(strings.NewReader(header + "== a\npeak RSS 1 kB, wall 2 s, CPU 3%\n"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := Write(path, s); err != nil {
		t.Fatal(err)
	}
	got, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, s) {
		t.Errorf("read back %+v, wrote %+v", got, s)
	}
}
