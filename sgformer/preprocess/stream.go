package preprocess

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"

	"github.com/sgformer/sgformer/internal/atomicfile"
	"github.com/sgformer/sgformer/internal/memory"
	"github.com/sgformer/sgformer/internal/parallel"
	"github.com/sgformer/sgformer/sgformer/graph"
	"github.com/sgformer/sgformer/sgformer/pe"
)

// Write makes the cache file at path hold graphs preprocessed with opt, as Cached does, but
// returns no items: it computes each graph's node marks and PE, writes them as they are
// computed, and never builds the product graphs, which the cache does not store. So it needs
// the memory of a few graphs at a time, not of every item (for Peptides-func with k = 16, about
// 30 GiB of product graphs): a dataset too large to preprocess whole in one machine's memory
// can be cached there, byte for byte the file Cached writes. workers and progress are as
// Dataset's. fresh is false when path already held these graphs and options (nothing is
// computed then).
func Write(path string, graphs []*graph.Graph, opt Options, workers int, progress func(done int)) (fresh bool, err error) {
	if _, err := open(path, graphs, opt); err == nil {
		return false, nil
	} else if !errors.Is(err, ErrStale) && !errors.Is(err, os.ErrNotExist) {
		return false, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	chunk := 16 * workers
	opt.OnDemand = true
	if err := checkStreamMemory(graphs, opt, workers, chunk); err != nil {
		return false, err
	}
	hd, err := json.Marshal(newHeader(graphs, opt))
	if err != nil {
		return false, err
	}
	f, err := atomicfile.Create(path)
	if err != nil {
		return false, err
	}
	defer f.Abort() // a no-op once committed
	buf := bufio.NewWriterSize(f, 1<<20)
	sum := sha256.New()
	out := io.MultiWriter(buf, sum)
	w := &writer{b: []byte(magic)}
	w.uvarint(uint64(len(hd)))
	w.b = append(w.b, hd...)
	items := make([]Item, chunk)
	errs := make([]error, chunk)
	for lo := 0; lo < len(graphs); lo += chunk {
		part := graphs[lo:min(lo+chunk, len(graphs))]
		parallel.For(len(part), workers, func(i int) { items[i], errs[i] = Graph(part[i], opt) })
		for i := range part {
			if errs[i] != nil {
				return false, fmt.Errorf("preprocess: graph %d: %w", lo+i, errs[i])
			}
			w.item(items[i])
			items[i] = Item{}
		}
		if _, err := out.Write(w.b); err != nil {
			return false, err
		}
		w.b = w.b[:0]
		if progress != nil {
			progress(lo + len(part))
		}
	}
	if _, err := out.Write(w.b); err != nil { // the header of a dataset without graphs
		return false, err
	}
	if _, err := buf.Write(sum.Sum(nil)); err != nil {
		return false, err
	}
	if err := buf.Flush(); err != nil {
		return false, err
	}
	return true, f.Commit()
}

// checkStreamMemory checks that Write's chunks of items without product graphs, and the
// eigendecompositions of workers graphs at a time, fit in the available memory, counting the
// largest graph for each.
func checkStreamMemory(graphs []*graph.Graph, opt Options, workers, chunk int) error {
	largest := -1
	for i, g := range graphs {
		if largest < 0 || g.N() > graphs[largest].N() {
			largest = i
		}
	}
	if largest < 0 {
		return nil
	}
	n := graphs[largest].N()
	item := itemBytes(n, graphs[largest].NumEdges(), opt)
	chunk = min(chunk, len(graphs))
	need := memory.Sum(memory.Bytes(int(item), chunk), memory.Bytes(min(workers, chunk), int(pe.SpectrumBytes(n))))
	return memory.Check(need, "preprocess: %d graphs (%d at a time; largest graph %d (%d nodes)) with PE k = %d", len(graphs), chunk, largest, n, opt.PEK)
}
