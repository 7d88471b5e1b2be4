package backend

/*
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#if defined(__GLIBC__)
#include <pthread.h>
#include <malloc.h>
extern char **environ;

static int sgformer_arenas = 0; // set by sgformer_tune_malloc; 0 where it set nothing

// sgformer_for_gpu reports whether the process is to run XLA on a GPU: GOMLX_BACKEND or one of
// its arguments (/proc/self/cmdline; a constructor may not be given them) names xla:cuda.
static int sgformer_for_gpu(void) {
	const char *be = getenv("GOMLX_BACKEND");
	if (be != NULL && strstr(be, "cuda") != NULL) return 1;
	static char cmdline[1 << 16];
	FILE *f = fopen("/proc/self/cmdline", "r");
	if (f == NULL) return 0;
	size_t n = fread(cmdline, 1, sizeof cmdline - 1, f);
	fclose(f);
	cmdline[n] = 0;
	for (size_t i = 0; i < n; i += strlen(cmdline + i) + 1) { // NUL-separated arguments
		if (strstr(cmdline + i, "xla:cuda") != NULL) return 1;
	}
	return 0;
}

// sgformer_tune_malloc runs when the process starts, before any thread: glibc fixes the number
// of arenas when a second thread first allocates, so mallopt later would come too late. It keeps
// large blocks in one reused heap: no mmap for large blocks, no trimming (-1 disables it,
// mallopt(3)), and one arena. A second arena's heap holds at most 64 MiB, and glibc serves a
// larger block for a thread bound to it with mmap whatever M_MMAP_MAX says, unmapping it when
// freed: a ZINC-12k step whose temporaries came from there faulted them in again every
// execution. One arena costs XLA's compiler threads some waiting on its lock, so a process that
// runs XLA on a GPU, whose temporaries are on the device, gets two, and SGFORMER_MALLOC_ARENAS
// (1 to 64) sets the count. Unless the user set glibc's allocator through MALLOC_* or
// GLIBC_TUNABLES.
__attribute__((constructor)) static void sgformer_tune_malloc(void) {
	const char *choice = getenv("SGFORMER_MALLOC");
	if (choice != NULL && strcmp(choice, "system") == 0) return;
	for (char **e = environ; e != NULL && *e != NULL; e++) {
		if (strncmp(*e, "MALLOC_", 7) == 0 || strncmp(*e, "GLIBC_TUNABLES=", 15) == 0) return;
	}
	int arenas = sgformer_for_gpu() ? 2 : 1;
	const char *set = getenv("SGFORMER_MALLOC_ARENAS");
	int n = set != NULL ? atoi(set) : 0;
	if (n >= 1 && n <= 64) arenas = n;
	int ok = mallopt(M_ARENA_MAX, arenas);
	ok &= mallopt(M_MMAP_MAX, 0);
	ok &= mallopt(M_TRIM_THRESHOLD, -1);
	sgformer_arenas = ok ? arenas : 0;
}

static int sgformer_malloc_arenas(void) { return sgformer_arenas; }

// sgformer_heap_block reports whether a block of n bytes from malloc comes from the heap (1)
// or from mmap (0): glibc marks a block it mmapped with bit 2 of the size word before it.
static int sgformer_heap_block(size_t n) {
	void *p = malloc(n);
	if (p == NULL) return -1;
	int heap = (((size_t *)p)[-1] & 2) == 0;
	free(p);
	return heap;
}

static void *sgformer_heap_block_thread(void *n) {
	*(int *)n = sgformer_heap_block(100 << 20);
	return NULL;
}

// sgformer_thread_heap_block is sgformer_heap_block for a 100 MiB block, on a new thread.
static int sgformer_thread_heap_block(void) {
	pthread_t t;
	int heap = -1;
	if (pthread_create(&t, NULL, sgformer_heap_block_thread, &heap) != 0) return -1;
	pthread_join(t, NULL);
	return heap;
}
#else
static int sgformer_malloc_arenas(void) { return 0; }
static int sgformer_heap_block(size_t n) { return -1; }
static int sgformer_thread_heap_block(void) { return -1; }
#endif
*/
import "C"

// MallocArenas reports whether glibc's allocator was set, when the process started, to keep
// large blocks in one reused heap, and with how many arenas: 1 (2 in a process that runs XLA on
// a GPU; $SGFORMER_MALLOC_ARENAS where set), no mmap for large blocks, no trimming; 0 where it
// was not. XLA allocates each
// execution's temporaries (gigabytes for a ZINC-12k training step) with malloc; by default glibc
// maps each large block afresh and unmaps it when freed, so every execution faults its pages in
// again, and unmaps them from every thread. A user's own MALLOC_* or GLIBC_TUNABLES settings win:
// nothing is set then (and on a C library other than glibc).
func MallocArenas() int { return int(C.sgformer_malloc_arenas()) }

// heapBlock reports whether malloc serves a block of n bytes from its heap (1), from mmap (0),
// or cannot say (-1: not glibc, or no memory).
func heapBlock(n int) int { return int(C.sgformer_heap_block(C.size_t(n))) }

// threadHeapBlock is heapBlock for a 100 MiB block allocated on a new thread, which glibc binds
// to one of its arenas.
func threadHeapBlock() int { return int(C.sgformer_thread_heap_block()) }
