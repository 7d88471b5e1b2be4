// Package nbcheck finds the cells that failed in an executed Jupyter notebook (nbformat 4), as
// written by `jupyter nbconvert --execute --ExecutePreprocessor.allow_errors=True`.
//
// It exists because running a GoNB notebook headless is not enough to know that it worked: a
// compile error becomes an "error" output, but a runtime panic or a non-zero os.Exit in a cell
// only prints the program's stderr and "exit status N", and nbconvert counts the cell as
// successful. Check reports, per cell:
//
//   - an output of type "error" (GoNB's compile errors, failed special commands), as
//     [CompileError] when it is a failed `go build`, else [ErrorOutput];
//   - the HTML compile-error report GoNB shows instead when it runs without --raw_error
//     ([CompileError]);
//   - a Go panic or runtime fatal error on stderr ([Panic]);
//   - otherwise a line "exit status N", N ≠ 0, on stderr ([ExitStatus]): a cell's program or
//     shell command exited with an error;
//   - a code cell with source that has no execution count ([NotExecuted]): execution stopped
//     before it.
//
// Each kind is reported at most once per cell.
package nbcheck

import (
	"encoding/json"
	"fmt"
	"html"
	"io"
	"os"
	"regexp"
	"strings"
)

// Kind is what went wrong in a cell.
type Kind string

// The kinds of problems Check reports.
const (
	ErrorOutput  Kind = "error output"
	CompileError Kind = "compile error"
	Panic        Kind = "panic"
	ExitStatus   Kind = "non-zero exit status"
	NotExecuted  Kind = "not executed"
)

// Problem is one failure found in a notebook.
type Problem struct {
	// Cell is the index of the cell in the notebook, from 0; Cells the number of cells.
	Cell, Cells int
	// ExecutionCount is the cell's "In [n]" number, 0 when it was not executed.
	ExecutionCount int
	// Source is the first meaningful line of the cell's source, to recognise it by.
	Source string
	Kind   Kind
	// Output is the offending output, shortened to its first lines.
	Output string
}

// String formats the problem for a person: the cell counted from 1, as a notebook user counts,
// its In [n] number and first line, the kind and the offending output indented below.
func (p Problem) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "cell %d of %d", p.Cell+1, p.Cells)
	if p.ExecutionCount > 0 {
		fmt.Fprintf(&b, " (In [%d]", p.ExecutionCount)
	} else {
		b.WriteString(" (not run")
	}
	if p.Source != "" {
		fmt.Fprintf(&b, ", %q", p.Source)
	}
	fmt.Fprintf(&b, "): %s", p.Kind)
	if p.Output != "" {
		b.WriteString(":\n    ")
		b.WriteString(strings.ReplaceAll(strings.TrimRight(p.Output, "\n"), "\n", "\n    "))
	}
	return b.String()
}

// Limits of Problem.Output.
const (
	maxOutputLines = 15
	maxOutputBytes = 2000
)

var (
	panicLine  = regexp.MustCompile(`(?m)^(panic: |fatal error: )`)
	exitLine   = regexp.MustCompile(`(?m)^exit status [1-9][0-9]*\s*$`)
	goBuildErr = regexp.MustCompile(`\.go:\d+:\d+: |failed to run "\S*go build`)
	htmlTag    = regexp.MustCompile(`<[^>]*>`)
	styleBlock = regexp.MustCompile(`(?s)<style>.*?</style>`)
	blankLines = regexp.MustCompile(`\n\s*\n+`)
	ansiEscape = regexp.MustCompile("\x1b\\[[0-9;]*m")
)

// htmlCompileReport marks GoNB's HTML report of a compile error.
const htmlCompileReport = `class="gonb-err-location"`

// Check reads an executed notebook and returns its problems, in cell order. The error is
// about the input (not JSON, not an nbformat 4 notebook), never about the cells.
func Check(r io.Reader) ([]Problem, error) {
	var nb notebook
	if err := json.NewDecoder(r).Decode(&nb); err != nil {
		return nil, fmt.Errorf("invalid notebook JSON: %w", err)
	}
	if nb.NBFormat != 4 {
		return nil, fmt.Errorf("not an nbformat 4 notebook (nbformat %d)", nb.NBFormat)
	}
	var problems []Problem
	for i, c := range nb.Cells {
		if c.CellType != "code" {
			continue
		}
		source := string(c.Source)
		if strings.TrimSpace(source) == "" {
			continue // Jupyter does not run empty cells
		}
		base := Problem{Cell: i, Cells: len(nb.Cells), Source: firstLine(source)}
		if c.ExecutionCount != nil {
			base.ExecutionCount = *c.ExecutionCount
		}
		seen := map[Kind]bool{}
		add := func(kind Kind, output string) {
			if seen[kind] {
				return
			}
			seen[kind] = true
			p := base
			p.Kind, p.Output = kind, shorten(output)
			problems = append(problems, p)
		}
		if c.ExecutionCount == nil {
			add(NotExecuted, "")
		}
		var stderr strings.Builder
		for _, o := range c.Outputs {
			switch o.OutputType {
			case "error":
				text := string(o.Evalue)
				if len(o.Traceback) > 0 {
					text = strings.Join(o.Traceback, "\n")
				}
				text = ansiEscape.ReplaceAllString(text, "")
				if goBuildErr.MatchString(text) || goBuildErr.MatchString(string(o.Evalue)) {
					add(CompileError, text)
				} else {
					add(ErrorOutput, strings.TrimSpace(string(o.Ename)+": "+text))
				}
			case "stream":
				if o.Name == "stderr" {
					stderr.WriteString(string(o.Text))
				}
			case "display_data", "execute_result":
				if page := string(o.Data["text/html"]); strings.Contains(page, htmlCompileReport) {
					add(CompileError, htmlText(page))
				}
			}
		}
		text := ansiEscape.ReplaceAllString(stderr.String(), "")
		if loc := panicLine.FindStringIndex(text); loc != nil {
			add(Panic, text[loc[0]:])
		} else if loc := exitLine.FindStringIndex(text); loc != nil {
			add(ExitStatus, lastLines(text[:loc[1]], maxOutputLines))
		}
	}
	return problems, nil
}

// CheckFile is Check on the notebook in the file path; its errors name the file.
func CheckFile(path string) ([]Problem, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	problems, err := Check(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return problems, nil
}

// notebook is the part of nbformat 4 that Check reads.
type notebook struct {
	NBFormat int    `json:"nbformat"`
	Cells    []cell `json:"cells"`
}

type cell struct {
	CellType       string    `json:"cell_type"`
	Source         multiline `json:"source"`
	ExecutionCount *int      `json:"execution_count"`
	Outputs        []output  `json:"outputs"`
}

type output struct {
	OutputType string               `json:"output_type"`
	Name       string               `json:"name"` // stream: stdout or stderr
	Text       multiline            `json:"text"` // stream
	Data       map[string]multiline `json:"data"` // display_data, execute_result
	Ename      multiline            `json:"ename"`
	Evalue     multiline            `json:"evalue"`
	Traceback  []string             `json:"traceback"`
}

// multiline is nbformat's multi-line string: one string or a list of strings to concatenate.
// Any other JSON value (a MIME bundle's JSON data) reads as "".
type multiline string

func (m *multiline) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		*m = multiline(s)
		return nil
	}
	var parts []string
	if json.Unmarshal(b, &parts) == nil {
		*m = multiline(strings.Join(parts, ""))
		return nil
	}
	*m = ""
	return nil
}

// firstLine returns the first line of a cell's source that says what the cell does: not
// blank, not GoNB's "%%" (the start of main), not a comment or an import; the first non-blank
// line if there is none. It is shortened to 60 characters.
func firstLine(source string) string {
	var first string
	inImports := false
	for line := range strings.SplitSeq(source, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if first == "" {
			first = line
		}
		switch {
		case inImports:
			inImports = line != ")"
			continue
		case line == "import (":
			inImports = true
			continue
		case line == "%%" || strings.HasPrefix(line, "//") || strings.HasPrefix(line, "import "):
			continue
		}
		return clip(line)
	}
	return clip(first)
}

// clip shortens line to 60 characters.
func clip(line string) string {
	if r := []rune(line); len(r) > 60 {
		return string(r[:57]) + "..."
	}
	return line
}

// shorten keeps the first maxOutputLines lines and maxOutputBytes bytes of s.
func shorten(s string) string {
	s = strings.TrimSpace(s)
	cut := false
	if lines := strings.SplitAfter(s, "\n"); len(lines) > maxOutputLines {
		s, cut = strings.Join(lines[:maxOutputLines], ""), true
	}
	if len(s) > maxOutputBytes {
		s, cut = strings.ToValidUTF8(s[:maxOutputBytes], ""), true
	}
	if cut {
		s = strings.TrimRight(s, "\n") + "\n[...]"
	}
	return s
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// htmlText returns the text of GoNB's HTML error report, without style, tags or blank lines.
func htmlText(page string) string {
	text := html.UnescapeString(htmlTag.ReplaceAllString(styleBlock.ReplaceAllString(page, ""), ""))
	return strings.TrimSpace(blankLines.ReplaceAllString(text, "\n"))
}
