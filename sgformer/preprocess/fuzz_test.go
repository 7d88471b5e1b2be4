package preprocess_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/internal/testgraphs"
	"github.com/sgformer/sgformer/sgformer/preprocess"
)

// fuzzGraphs are the graphs the fuzzed cache files claim to hold.
func fuzzGraphs() []*graph.Graph {
	return []*graph.Graph{testgraphs.Path(3), testgraphs.Cycle(4), testgraphs.Petersen()}
}

// withChecksum is a cache file's content followed by its SHA-256, as Save writes it.
func withChecksum(content []byte) []byte {
	sum := sha256.Sum256(content)
	return append(bytes.Clone(content), sum[:]...)
}

// cacheHeader is the start of a cache file for graphs and opt, up to the first graph's data.
func cacheHeader(graphs []*graph.Graph, opt preprocess.Options) []byte {
	fp := preprocess.Fingerprint(graphs)
	hd, _ := json.Marshal(map[string]any{"version": preprocess.FormatVersion, "graphs": len(graphs), "fingerprint": hex.EncodeToString(fp[:]),
		"options": map[string]any{"pe_k": opt.PEK, "pe_mode": opt.PEMode, "tuple_k": opt.K()}})
	b := binary.AppendUvarint([]byte("SGFORMER-PREPROCESS\n"), uint64(len(hd)))
	return append(b, hd...)
}

// FuzzCacheLoad: a cache file with a valid checksum but any content (the input, to which the
// target appends the checksum) is read or reported as corrupt or stale; no input panics or
// allocates more than its size and the graphs justify — counts in the file are capped by the
// file's size.
func FuzzCacheLoad(f *testing.F) {
	gs := fuzzGraphs()
	dir := f.TempDir()
	for _, opt := range []preprocess.Options{{PEK: 4, PEMode: preprocess.Exact}, {PEK: 4, PEMode: preprocess.AuthorsCode}} {
		path := filepath.Join(dir, string(opt.PEMode))
		if _, _, err := preprocess.Cached(path, gs, opt, 1, nil); err != nil {
			f.Fatal(err)
		}
		raw, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(raw[:len(raw)-sha256.Size])
	}
	f.Add(binary.AppendUvarint([]byte("SGFORMER-PREPROCESS\n"), 1<<20))
	f.Add(binary.AppendUvarint(cacheHeader(gs, preprocess.Options{PEK: 4, PEMode: preprocess.Exact}), 1<<40))
	defer memory.SetLimit(16 << 20)()
	opt := preprocess.Options{PEK: 4, PEMode: preprocess.Exact}
	path := filepath.Join(f.TempDir(), "fuzz.cache") // one per worker process, which runs inputs one at a time
	f.Fuzz(func(t *testing.T, content []byte) {
		if err := os.WriteFile(path, withChecksum(content), 0o644); err != nil {
			t.Fatal(err)
		}
		before := memory.Allocated()
		items, err := preprocess.Load(path, gs, opt)
		if used, budget := memory.Allocated()-before, uint64(16<<20+100*len(content)); used > budget {
			t.Fatalf("%d bytes of cache allocated %d bytes (budget %d)", len(content), used, budget)
		}
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for i, it := range items { // what was read is usable
			it.PE.Float32(opt.PEK)
			if len(it.Marks) != gs[i].N()*gs[i].N() || it.Product.NumNodes() != len(it.Marks) {
				t.Fatalf("graph %d: %d marks, %d product nodes", i, len(it.Marks), it.Product.NumNodes())
			}
		}
	})
}

// A count in a cache file is capped by what the file holds: a PE of 2^40 values announced in a
// 200-byte file is corrupt, not an 8 TB allocation (nor one of 1 MiB for a header length).
func TestCacheHugeCounts(t *testing.T) {
	gs := []*graph.Graph{testgraphs.Path(3)}
	opt := preprocess.Options{PEK: 1 << 40, PEMode: preprocess.Exact}
	body := cacheHeader(gs, opt)
	body = binary.AppendUvarint(body, 9) // marks
	for range 9 {
		body = binary.AppendVarint(body, 1)
	}
	body = binary.AppendUvarint(body, 3)       // PE of 3 nodes
	body = binary.AppendUvarint(body, 2)       // order 2
	body = binary.AppendUvarint(body, 1<<40-1) // values: 2^40 − 1 float64s
	path := filepath.Join(t.TempDir(), "huge.cache")
	for _, content := range [][]byte{body, binary.AppendUvarint([]byte("SGFORMER-PREPROCESS\n"), 1<<20)} {
		os.WriteFile(path, withChecksum(content), 0o644)
		before := memory.Allocated()
		_, err := preprocess.Load(path, gs, opt)
		if err == nil || !strings.Contains(err.Error(), "corrupt") {
			t.Errorf("error %v, want a corrupt cache", err)
		}
		if used := memory.Allocated() - before; used > 1<<20 {
			t.Errorf("a %d-byte cache allocated %d bytes", len(content), used)
		}
	}
}
