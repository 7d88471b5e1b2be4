package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// Every relative link of the documentation (README.md, docs/*.md) leads somewhere: its file
// exists, and its #anchor is a heading of the Markdown file it names.
func TestLinks(t *testing.T) {
	root := "../../.."
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append(docs, filepath.Join(root, "README.md"))
	link := regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)\)`)
	checked := 0
	for _, doc := range docs {
		raw, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range outsideCode(string(raw)) {
			for _, m := range link.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, anchor, _ := strings.Cut(target, "#")
				file := doc
				if path != "" {
					file = filepath.Join(filepath.Dir(doc), path)
				}
				checked++
				if _, err := os.Stat(file); err != nil {
					t.Errorf("%s:%d: %s: no file %s", rel(root, doc), i+1, target, rel(root, file))
					continue
				}
				if anchor != "" && !anchors(t, file)[anchor] {
					t.Errorf("%s:%d: %s: no heading #%s in %s", rel(root, doc), i+1, target, anchor, rel(root, file))
				}
			}
		}
	}
	if checked < 20 {
		t.Errorf("%d links checked: the documents were not found", checked)
	}
}

// outsideCode returns the lines of a Markdown text, those of fenced code blocks blanked.
func outsideCode(text string) []string {
	lines := strings.Split(text, "\n")
	code := false
	for i, l := range lines {
		if strings.HasPrefix(l, "```") {
			code = !code
			lines[i] = ""
		} else if code {
			lines[i] = ""
		}
	}
	return lines
}

// anchors returns the anchors of the headings of the Markdown file, as GitHub makes them:
// lower case, punctuation dropped, spaces as hyphens.
func anchors(t *testing.T, file string) map[string]bool {
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, l := range outsideCode(string(raw)) {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		title := strings.TrimSpace(strings.TrimLeft(l, "#"))
		var b strings.Builder
		for _, r := range strings.ToLower(title) {
			switch {
			case r == ' ':
				b.WriteRune('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		out[b.String()] = true
	}
	return out
}

func rel(root, path string) string {
	r, err := filepath.Rel(root, path)
	if err != nil {
		return path
	}
	return r
}
