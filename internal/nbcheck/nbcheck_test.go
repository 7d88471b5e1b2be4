package nbcheck

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckFile(t *testing.T) {
	type want struct {
		cell, executionCount int
		kind                 Kind
		output               []string // substrings of Problem.Output
	}
	for _, tc := range []struct {
		file string
		want []want
	}{
		{"clean.ipynb", nil},
		{"error.ipynb", []want{{1, 2, ErrorOutput, []string{"ERROR: failed to find go.work file"}}}},
		{"compile.ipynb", []want{{1, 1, CompileError, []string{"Cell[1]: Line 2", "undefined: undefinedVar"}}}},
		{"compile-html.ipynb", []want{{0, 1, CompileError, []string{"Cell[1]: Line 2", "./main.go:11:13:  undefined: undefinedVar"}}}},
		{"panic.ipynb", []want{{0, 1, Panic, []string{"panic: boom", "[[ Cell [1] Line 3 ]]", "exit status 2"}}}},
		{"exit.ipynb", []want{
			{1, 2, ExitStatus, []string{"training: epoch 3: the run diverged\nexit status 3"}},
			{2, 3, ExitStatus, []string{"hi\nexit status 12"}},
		}},
		{"unexecuted.ipynb", []want{{2, 0, NotExecuted, nil}}},
	} {
		t.Run(tc.file, func(t *testing.T) {
			problems, err := CheckFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if len(problems) != len(tc.want) {
				t.Fatalf("got %d problems %v, want %d", len(problems), problems, len(tc.want))
			}
			for i, w := range tc.want {
				p := problems[i]
				if p.Cell != w.cell || p.ExecutionCount != w.executionCount || p.Kind != w.kind {
					t.Errorf("problem %d: cell %d, In [%d], %s; want cell %d, In [%d], %s",
						i, p.Cell, p.ExecutionCount, p.Kind, w.cell, w.executionCount, w.kind)
				}
				for _, s := range w.output {
					if !strings.Contains(p.Output, s) {
						t.Errorf("problem %d: output %q does not contain %q", i, p.Output, s)
					}
				}
				if strings.Contains(p.Output, "\x1b") || strings.Contains(p.Output, "<span") || strings.Contains(p.Output, "display: none") {
					t.Errorf("problem %d: output %q keeps terminal escapes, tags or style", i, p.Output)
				}
			}
		})
	}
}

func TestCheckFileBadInput(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"malformed.ipynb", "invalid notebook JSON"},
		{"not-notebook.ipynb", "not an nbformat 4 notebook"},
		{"missing.ipynb", "no such file"},
	} {
		path := filepath.Join("testdata", tc.file)
		_, err := CheckFile(path)
		if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming the file and saying %q", tc.file, err, tc.want)
		}
	}
}

func TestProblemString(t *testing.T) {
	for _, tc := range []struct {
		p    Problem
		want string
	}{
		{Problem{Cell: 3, Cells: 9, ExecutionCount: 2, Source: `panic("boom")`, Kind: Panic, Output: "panic: boom\n\ngoroutine 1\n"},
			"cell 4 of 9 (In [2], \"panic(\\\"boom\\\")\"): panic:\n    panic: boom\n    \n    goroutine 1"},
		{Problem{Cell: 0, Cells: 1, Kind: NotExecuted}, "cell 1 of 1 (not run): not executed"},
	} {
		if got := tc.p.String(); got != tc.want {
			t.Errorf("got %q, want %q", got, tc.want)
		}
	}
}

func TestShortenAndFirstLine(t *testing.T) {
	long := strings.Repeat("line\n", 100)
	got := shorten(long)
	if n := strings.Count(got, "\n"); n != maxOutputLines || !strings.HasSuffix(got, "\n[...]") {
		t.Errorf("shorten kept %d newlines, ends %q", n, got[len(got)-10:])
	}
	if got := shorten(strings.Repeat("é", 2*maxOutputBytes)); len(got) > maxOutputBytes+6 || !strings.HasSuffix(got, "é\n[...]") {
		t.Errorf("shorten of a long line: %d bytes, ends %q", len(got), got[len(got)-10:])
	}
	for source, want := range map[string]string{
		"\n%%\n  x := 1\ny := 2":                                  "x := 1",
		"import \"os\"\n\n%%\n// Exit.\nos.Exit(3)":               "os.Exit(3)",
		"import (\n\t\"fmt\"\n\t\"os\"\n)\n\nfunc f() {}":         "func f() {}",
		"import \"github.com/sgformer/sgformer/kernelext\"\n\n\n": `import "github.com/sgformer/sgformer/kernelext"`,
	} {
		if got := firstLine(source); got != want {
			t.Errorf("firstLine(%q) = %q, want %q", source, got, want)
		}
	}
	if got := firstLine(strings.Repeat("ab", 40)); len([]rune(got)) != 60 || !strings.HasSuffix(got, "...") {
		t.Errorf("firstLine of a long line = %q", got)
	}
}
