package torchpickle

import (
	"archive/zip"
	"bytes"
	"runtime/metrics"
	"strings"
	"testing"

	"github.com/nlpodyssey/gopickle/types"
)

// allocated is the bytes this process has allocated so far.
func allocated() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A length prefix larger than the pickle is an error, not an allocation of that size (the
// unpickler allocates a counted argument before reading it): found by FuzzZINCPyG, whose
// input of 14 kB allocated 1.9 GB.
func TestHugeLengths(t *testing.T) {
	for name, pickle := range map[string]string{
		"BINBYTES 2 GiB":     "\x80\x03B\xff\xff\xff\x7f",
		"BINUNICODE 4 GiB":   "\x80\x04X\xff\xff\xff\xff",
		"BINBYTES8 2^62":     "\x80\x04\x8e\x00\x00\x00\x00\x00\x00\x00\x40",
		"FRAME 2^40":         "\x80\x04\x95\x00\x00\x00\x00\x00\x01\x00\x00",
		"LONG4 negative":     "\x80\x02\x8b\xff\xff\xff\xff",
		"after a valid part": "\x80\x02]q\x00(K\x01K\x02eX\x00\x00\x00\x10",
	} {
		before := allocated()
		_, err := Unpickle(strings.NewReader(pickle))
		if err == nil || !strings.Contains(err.Error(), "truncated pickle") && !strings.Contains(err.Error(), "corrupt pickle") {
			t.Errorf("%s: error %v", name, err)
		}
		if used := allocated() - before; used > 4<<20 {
			t.Errorf("%s: allocated %d bytes", name, used)
		}
	}
	// The same in a torch.save archive's data.pkl, and a record larger than the archive.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.Create("archive/data.pkl")
	w.Write([]byte("\x80\x03B\xff\xff\xff\x7f"))
	zw.Close()
	if _, err := Load(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err == nil || !strings.Contains(err.Error(), "truncated pickle: 2147483647 bytes announced") {
		t.Errorf("archive: %v", err)
	}
	buf.Reset()
	zw = zip.NewWriter(&buf)
	w, _ = zw.Create("archive/data.pkl") // deflated: 1 MiB of zeros in a few kB
	w.Write(make([]byte, 1<<20))
	zw.Close()
	if _, err := Load(bytes.NewReader(buf.Bytes()), int64(buf.Len())); err == nil || !strings.Contains(err.Error(), "bytes in an archive of") {
		t.Errorf("zip bomb: %v", err)
	}
}

// A view's size and strides cannot overflow past the storage check, nor expand a small storage
// into a tensor of huge Len.
func TestViewBounds(t *testing.T) {
	s := &storage{class: storageClasses["LongStorage"], raw: make([]byte, 4*8)}
	tuple := func(xs ...int) *types.Tuple {
		items := make([]any, len(xs))
		for i, x := range xs {
			items[i] = x
		}
		return types.NewTupleFromSlice(items)
	}
	for _, view := range [][2]*types.Tuple{
		{tuple(1<<62+1, 1), tuple(2, 0)}, // (d−1)·stride overflows to a negative last index
		{tuple(1 << 40), tuple(0)},       // expanded: 2^40 elements over 4
		{tuple(1<<32, 1<<32), tuple(0, 0)},
	} {
		if tensor, err := rebuildTensor(s, 0, view[0], view[1]); err == nil {
			t.Errorf("size %v stride %v: a tensor of Len %d", view[0], view[1], tensor.(*Tensor).Len())
		}
	}
	if tensor, err := rebuildTensor(s, 1, tuple(3), tuple(1)); err != nil || tensor.(*Tensor).Len() != 3 {
		t.Errorf("a valid view: %v", err)
	}
}
