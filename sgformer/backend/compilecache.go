package backend

/*
#cgo CFLAGS: -I${SRCDIR}/../../third_party/pjrt
#cgo LDFLAGS: -ldl
#include <stdlib.h>
#include "compilecache.h"
*/
import "C"

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"
	"unsafe"
)

// The compile cache keeps the programs XLA compiles on disk, so that a resumed run, a second
// seed, a notebook cell run again or a test run twice loads them instead of compiling them again
// (a 12-layer training step compiles in 10 to 30 s on two cores; a sampled run meets some twenty
// batch shapes). GoMLX v0.26.0 and go-xla v0.1.4 have no such cache and expose no executable
// serialisation, but the PJRT C API does (PJRT_Executable_Serialize and
// PJRT_Executable_DeserializeAndLoad in third_party/pjrt/pjrt_c_api.h, go-xla v0.1.4's copy byte
// for byte with its Apache 2.0 licence, which TestVendoredPJRTHeader checks),
// and every PJRT client compiles through the plugin's function table. So the cache redirects the
// table's PJRT_Client_Compile to cachedCompile (compilecache.c), below GoMLX and go-xla, which
// are unchanged: a program already on disk is deserialised, any other compiled and stored.
//
// A program is identified by the SHA-256 of everything that decides its machine code: the
// program (StableHLO), the compile options (devices, partitions), the plugin file, the client's
// platform version and device kinds, the host CPU's model and flags, and $XLA_FLAGS. A file is
// written atomically with a checksum of its content; one that fails the checksum or that the
// plugin refuses is removed and the program compiled again, so the cache can make a compilation
// faster but never fail it. Its size is bounded (least recently used files go first).

// CompileCacheVar names the environment variable that sets the compile cache's folder: a path,
// or "off" for none. Unset, the cache is sgformer/xla-cache in the user cache directory
// (~/.cache/sgformer/xla-cache on Linux).
const CompileCacheVar = "SGFORMER_XLA_CACHE"

// compileCacheLimit bounds the cache's size in bytes: a compiled ZINC training step is a few
// megabytes, so this holds some hundreds of programs.
const compileCacheLimit = 2 << 30

// cacheMagic starts every cache file: the format, then the SHA-256 of the serialised executable.
const cacheMagic = "sgformer-pjrt-executable 1\n"

// CompileCacheStats is what the compile cache did in this process.
type CompileCacheStats struct {
	Dir    string // the folder, "" when the cache is off
	Hits   int    // programs loaded instead of compiled
	Misses int    // programs compiled (and stored, unless Err says otherwise)
	Err    error  // the first failure (a file not written or not loaded), nil if none
}

var cache = struct {
	sync.Mutex
	dir        string
	plugins    [C.SG_MAX_PLUGINS]string // each redirected plugin's file, by slot
	identities map[uintptr]string       // each client's platform and devices
	stats      CompileCacheStats
}{identities: map[uintptr]string{}}

// CompileCache returns what the compile cache did so far in this process.
func CompileCache() CompileCacheStats {
	cache.Lock()
	defer cache.Unlock()
	return cache.stats
}

// enableCompileCache points the cache at $SGFORMER_XLA_CACHE's folder (or the default one) and
// redirects the compilation of the PJRT plugins loaded since the last call.
func enableCompileCache() error {
	dir, err := compileCacheDir()
	if err != nil {
		return err
	}
	if err := setCompileCacheDir(dir); err != nil {
		return err
	}
	var paths [C.SG_MAX_PLUGINS]*C.char
	var cerr *C.char
	n := C.sg_patch(&paths[0], &cerr)
	cache.Lock()
	defer cache.Unlock()
	for i, p := range paths {
		if p != nil {
			cache.plugins[i] = C.GoString(p)
			C.free(unsafe.Pointer(p))
		}
	}
	if cerr != nil {
		defer C.free(unsafe.Pointer(cerr))
		err := fmt.Errorf("backend: compile cache: %s", C.GoString(cerr))
		if n < 0 {
			return err
		}
		cache.stats.Err = cmp.Or(cache.stats.Err, err)
	}
	return nil
}

// compileCacheDir is the folder $SGFORMER_XLA_CACHE names, "" for "off", or the default.
func compileCacheDir() (string, error) {
	switch v := os.Getenv(CompileCacheVar); v {
	case "off":
		return "", nil
	case "":
		base, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("backend: no folder for the compile cache (set %s to one, or to off): %w", CompileCacheVar, err)
		}
		return filepath.Join(base, "sgformer", "xla-cache"), nil
	default:
		return v, nil
	}
}

// setCompileCacheDir makes dir the cache's folder ("" turns the cache off) and counts afresh.
func setCompileCacheDir(dir string) error {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("backend: compile cache (%s names it; off turns it off): %w", CompileCacheVar, err)
		}
	}
	cache.Lock()
	defer cache.Unlock()
	if cache.stats.Dir != dir {
		cache.stats = CompileCacheStats{Dir: dir}
	}
	return nil
}

//export sgformerCompile
func sgformerCompile(slot C.int, args *C.PJRT_Client_Compile_Args) *C.PJRT_Error {
	e := cachedCompile(slot, args)
	if e == nil {
		recordProgram(int(slot), args.executable)
	}
	return e
}

// cachedCompile loads the program args compiles from the cache, or compiles and stores it.
func cachedCompile(slot C.int, args *C.PJRT_Client_Compile_Args) *C.PJRT_Error {
	cache.Lock()
	dir := cache.stats.Dir
	cache.Unlock()
	if dir == "" {
		return C.sg_compile(slot, args)
	}
	key, err := programKey(int(slot), args)
	if err == nil {
		if exe := loadProgram(int(slot), args.client, filepath.Join(dir, key+".pjrt")); exe != nil {
			args.executable = exe
			count(func(s *CompileCacheStats) { s.Hits++ })
			return nil
		}
	}
	if e := C.sg_compile(slot, args); e != nil {
		return e
	}
	count(func(s *CompileCacheStats) { s.Misses++ })
	if err == nil {
		err = storeProgram(int(slot), args.executable, dir, key)
	}
	if err != nil {
		count(func(s *CompileCacheStats) { s.Err = cmp.Or(s.Err, err) })
	}
	return nil
}

// count applies f to the statistics.
func count(f func(*CompileCacheStats)) {
	cache.Lock()
	defer cache.Unlock()
	f(&cache.stats)
}

// programKey is the hexadecimal SHA-256 of what decides the machine code of the program args
// compiles (see the comment at the top of the file).
func programKey(slot int, args *C.PJRT_Client_Compile_Args) (string, error) {
	ident, err := clientIdentity(slot, args.client)
	if err != nil {
		return "", err
	}
	cache.Lock()
	plugin := cache.plugins[slot]
	cache.Unlock()
	fi, err := os.Stat(plugin)
	if err != nil {
		return "", fmt.Errorf("backend: compile cache: the plugin: %w", err)
	}
	h := sha256.New()
	part := func(b []byte) {
		_ = binary.Write(h, binary.LittleEndian, uint64(len(b)))
		h.Write(b)
	}
	part([]byte(cacheMagic))
	part(fmt.Appendf(nil, "%s %d %d", plugin, fi.Size(), fi.ModTime().UnixNano()))
	part([]byte(ident))
	part([]byte(hostCPU()))
	part([]byte(os.Getenv("XLA_FLAGS")))
	p := args.program
	part(unsafe.Slice((*byte)(unsafe.Pointer(p.format)), p.format_size))
	part(unsafe.Slice((*byte)(unsafe.Pointer(args.compile_options)), args.compile_options_size))
	part(renameUUIDs(unsafe.Slice((*byte)(unsafe.Pointer(p.code)), p.code_size)))
	return hex.EncodeToString(h.Sum(nil)), nil
}

// uuidPattern matches the random UUIDs GoMLX puts in some variables' names (its trainer's
// moving-average metrics: var__metrics_Moving_Average_Loss_uuid_0d9ef48a_b8a3_...), which
// would make every process's program text differ.
var uuidPattern = regexp.MustCompile(`[0-9a-f]{8}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{4}_[0-9a-f]{12}`)

// renameUUIDs renames the UUIDs in a program's text by their order of first appearance: a
// one-to-one renaming of names, so two programs get the same text exactly when they are the
// same program up to those names.
func renameUUIDs(code []byte) []byte {
	seen := map[string][]byte{}
	return uuidPattern.ReplaceAllFunc(code, func(u []byte) []byte {
		r, ok := seen[string(u)]
		if !ok {
			r = fmt.Appendf(nil, "uuid%d", len(seen))
			seen[string(u)] = r
		}
		return r
	})
}

// clientIdentity is the client's platform version and device kinds, asked once per client.
func clientIdentity(slot int, client *C.PJRT_Client) (string, error) {
	cache.Lock()
	ident, ok := cache.identities[uintptr(unsafe.Pointer(client))]
	cache.Unlock()
	if ok {
		return ident, nil
	}
	var out, cerr *C.char
	if C.sg_identity(C.int(slot), client, &out, &cerr) != 0 {
		defer C.free(unsafe.Pointer(cerr))
		return "", fmt.Errorf("backend: compile cache: the client's platform: %s", C.GoString(cerr))
	}
	ident = C.GoString(out)
	C.free(unsafe.Pointer(out))
	cache.Lock()
	cache.identities[uintptr(unsafe.Pointer(client))] = ident
	cache.Unlock()
	return ident, nil
}

// hostCPU is the host's CPU model and instruction-set flags (Linux's /proc/cpuinfo, first
// processor), for the CPU plugin compiles for the host it runs on.
var hostCPU = sync.OnceValue(func() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return ""
	}
	var keep []string
	for _, line := range strings.Split(string(b), "\n") {
		if line == "" && len(keep) > 0 {
			break
		}
		k, _, _ := strings.Cut(line, ":")
		switch strings.TrimSpace(k) {
		case "vendor_id", "model name", "flags", "Features", "CPU implementer", "CPU part":
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
})

// loadProgram deserialises the executable stored in path, or returns nil when there is none or
// it cannot be used (then the file is removed: the program is compiled and stored again).
func loadProgram(slot int, client *C.PJRT_Client, path string) *C.PJRT_LoadedExecutable {
	b, err := os.ReadFile(path)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			count(func(s *CompileCacheStats) { s.Err = cmp.Or(s.Err, fmt.Errorf("backend: compile cache: %w", err)) })
		}
		return nil
	}
	payload, ok := checkedPayload(b)
	var exe *C.PJRT_LoadedExecutable
	if ok {
		var cerr *C.char
		if C.sg_deserialize(C.int(slot), client, (*C.char)(unsafe.Pointer(&payload[0])), C.size_t(len(payload)), &exe, &cerr) != 0 {
			err := fmt.Errorf("backend: compile cache: %s: %s", path, C.GoString(cerr))
			C.free(unsafe.Pointer(cerr))
			count(func(s *CompileCacheStats) { s.Err = cmp.Or(s.Err, err) })
			exe = nil
		}
	}
	if exe == nil {
		_ = os.Remove(path)
		return nil
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now) // recently used: evicted last
	return exe
}

// checkedPayload returns the serialised executable of a cache file, and whether the file is
// whole (its magic line and the payload's SHA-256 agree).
func checkedPayload(b []byte) ([]byte, bool) {
	rest, ok := bytes.CutPrefix(b, []byte(cacheMagic))
	if !ok || len(rest) <= sha256.Size {
		return nil, false
	}
	sum, payload := rest[:sha256.Size], rest[sha256.Size:]
	got := sha256.Sum256(payload)
	return payload, bytes.Equal(sum, got[:])
}

// storeProgram serialises exe into dir/key.pjrt, atomically, then bounds the folder's size.
func storeProgram(slot int, exe *C.PJRT_LoadedExecutable, dir, key string) error {
	var out, cerr *C.char
	var n C.size_t
	if C.sg_serialize(C.int(slot), exe, &out, &n, &cerr) != 0 {
		defer C.free(unsafe.Pointer(cerr))
		return fmt.Errorf("backend: compile cache: the plugin cannot serialise its programs: %s", C.GoString(cerr))
	}
	payload := C.GoBytes(unsafe.Pointer(out), C.int(n))
	C.free(unsafe.Pointer(out))
	sum := sha256.Sum256(payload)
	f, err := os.CreateTemp(dir, key+".*.tmp")
	if err != nil {
		return fmt.Errorf("backend: compile cache: %w", err)
	}
	_, err = f.Write(slices.Concat([]byte(cacheMagic), sum[:], payload))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, key+".pjrt"))
	}
	if err != nil {
		_ = os.Remove(f.Name())
		return fmt.Errorf("backend: compile cache: %w", err)
	}
	return evict(dir, compileCacheLimit)
}

// evict removes the least recently used programs of dir until they take at most limit bytes.
func evict(dir string, limit int64) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("backend: compile cache: %w", err)
	}
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		if filepath.Ext(e.Name()) != ".pjrt" {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // removed meanwhile
		}
		files = append(files, file{filepath.Join(dir, e.Name()), fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	slices.SortFunc(files, func(a, b file) int { return a.used.Compare(b.used) })
	for _, f := range files {
		if total <= limit {
			break
		}
		if err := os.Remove(f.path); err == nil || errors.Is(err, os.ErrNotExist) {
			total -= f.size
		}
	}
	return nil
}
