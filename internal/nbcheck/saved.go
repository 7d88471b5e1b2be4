package nbcheck

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Notebooks are committed with the outputs of their last checked run (scripts/notebooks.sh
// --save), so that a reader on a code host sees the figures without running anything. The run
// stamps the notebook's metadata with the digest of its cells' sources ("sgformer":
// {"sources": …}); a notebook whose cells changed since carries outputs of other code, which
// CheckSaved reports.

// stampKey is the notebook metadata key of the stamp.
const stampKey = "sgformer"

// Sources is the SHA-256 of a notebook's cells: their types and sources, in order.
func Sources(nb []byte) (string, error) {
	var n notebook
	if err := json.Unmarshal(nb, &n); err != nil {
		return "", fmt.Errorf("invalid notebook JSON: %w", err)
	}
	h := sha256.New()
	for _, c := range n.Cells {
		fmt.Fprintf(h, "%s\x00%d\x00%s", c.CellType, len(c.Source), c.Source)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Stamp returns the executed notebook nb with the digest of its sources in its metadata, in
// nbformat's layout (one-space indent, as Jupyter writes it).
func Stamp(nb []byte) ([]byte, error) {
	digest, err := Sources(nb)
	if err != nil {
		return nil, err
	}
	var doc map[string]any
	d := json.NewDecoder(bytes.NewReader(nb))
	d.UseNumber()
	if err := d.Decode(&doc); err != nil {
		return nil, err
	}
	meta, _ := doc["metadata"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
		doc["metadata"] = meta
	}
	meta[stampKey] = map[string]any{"sources": digest}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", " ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// ErrNotSaved reports a committed notebook without the outputs of a checked run.
var ErrNotSaved = errors.New("no outputs saved by scripts/notebooks.sh --save")

// CheckSaved checks a committed notebook: it holds the outputs of a checked run of its present
// cells (its stamp matches them) and they show no failed cell. The error says what to run.
func CheckSaved(path string) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var n struct {
		Metadata map[string]json.RawMessage `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &n); err != nil {
		return fmt.Errorf("%s: invalid notebook JSON: %w", path, err)
	}
	var stamp struct {
		Sources string `json:"sources"`
	}
	if s, ok := n.Metadata[stampKey]; !ok || json.Unmarshal(s, &stamp) != nil || stamp.Sources == "" {
		return fmt.Errorf("%s: %w: run scripts/notebooks.sh --save %s", path, ErrNotSaved, path)
	}
	digest, err := Sources(raw)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if digest != stamp.Sources {
		return fmt.Errorf("%s: its cells changed since their outputs were saved: run scripts/notebooks.sh --save %s", path, path)
	}
	problems, err := Check(bytes.NewReader(raw))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s: its saved outputs show a failed cell: %s", path, problems[0])
	}
	repo, err := filepath.Abs(filepath.Join(filepath.Dir(path), ".."))
	if err != nil {
		return err
	}
	home, _ := os.UserHomeDir()
	if err := portable(raw, repo, home); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// gonbBuild matches the folder where GoNB builds a session's programs.
var gonbBuild = regexp.MustCompile(`/tmp/gonb_[0-9a-f]+`)

// portable returns an error naming the first output of notebook nb that its readers would not
// see as it was saved: HTML holding an SVG (JupyterLab and Notebook 7 sanitise the HTML of a
// notebook they did not run, which removes it: figures are saved as PNG), or text naming a
// folder of the machine that ran it (the repository's absolute path repo, the home folder home,
// GoNB's build folder).
func portable(nb []byte, repo, home string) error {
	var n struct {
		Cells []struct {
			Outputs []struct {
				Text multiline                  `json:"text"`
				Data map[string]json.RawMessage `json:"data"`
			} `json:"outputs"`
		} `json:"cells"`
	}
	if err := json.Unmarshal(nb, &n); err != nil {
		return err
	}
	for i, c := range n.Cells {
		for j, o := range c.Outputs {
			texts := []string{string(o.Text)}
			for kind, raw := range o.Data {
				var v multiline
				if !strings.HasPrefix(kind, "text/") || json.Unmarshal(raw, &v) != nil {
					continue
				}
				if kind == "text/html" && strings.Contains(string(v), "<svg") {
					return fmt.Errorf("cell %d, output %d: HTML holding an SVG, which a notebook opened untrusted does not show (save figures as image/png)", i+1, j+1)
				}
				texts = append(texts, string(v))
			}
			for _, text := range texts {
				for _, dir := range []string{repo, home, gonbBuild.FindString(text)} {
					if dir != "" && dir != "/" && strings.Contains(text, dir) {
						return fmt.Errorf("cell %d, output %d names the folder %s of the machine that ran it (kernelext.Path shows paths without it)", i+1, j+1, dir)
					}
				}
			}
		}
	}
	return nil
}
