package backend

/*
#include <stdlib.h>
#include "compilecache.h"
*/
import "C"

import (
	"sync"
	"unsafe"
)

// ProgramMemory is what XLA's buffer assignment gives one compiled program on its device, in
// bytes (the PJRT C API's PJRT_Executable_GetCompiledMemoryStats). The program of a run on
// several devices is one partitioned program that every device runs on its shard of the batch,
// so these are per device.
type ProgramMemory struct {
	Name string
	// Code is the generated code; Arguments, Outputs and Temporary the buffers of the program's
	// inputs (parameters and optimiser state among them), results and intermediates; Aliased
	// the outputs that reuse an argument's buffer (donated variables); Peak the plugin's own
	// peak estimate, 0 where it gives none.
	Code, Arguments, Outputs, Aliased, Temporary, Peak int64
}

// Bytes is the device memory the program holds while it runs: its arguments, its outputs but
// those that reuse an argument's buffer, and its temporaries (go-xla's Requirements, less the
// code).
func (m ProgramMemory) Bytes() int64 { return m.Arguments + m.Outputs - m.Aliased + m.Temporary }

var programs struct {
	sync.Mutex
	list []ProgramMemory
}

// Programs returns the memory of the programs that XLA's plugins compiled or loaded from the
// compile cache in this process, in that order, from the from-th on (Programs(0) for all; a
// caller keeps len(Programs(0)) to see the programs compiled after that). The pure-Go backend
// compiles none.
func Programs(from int) []ProgramMemory {
	programs.Lock()
	defer programs.Unlock()
	if from >= len(programs.list) {
		return nil
	}
	return append([]ProgramMemory(nil), programs.list[max(from, 0):]...)
}

// recordProgram appends the memory of the program compiled into exe to Programs, if the plugin
// reports it.
func recordProgram(slot int, exe *C.PJRT_LoadedExecutable) {
	var stats [6]C.int64_t
	var name, cerr *C.char
	if C.sg_memory(C.int(slot), exe, &stats[0], &name, &cerr) != 0 {
		C.free(unsafe.Pointer(cerr))
		return
	}
	defer C.free(unsafe.Pointer(name))
	m := ProgramMemory{Name: C.GoString(name), Code: int64(stats[0]), Arguments: int64(stats[1]), Outputs: int64(stats[2]),
		Aliased: int64(stats[3]), Temporary: int64(stats[4]), Peak: int64(stats[5])}
	programs.Lock()
	programs.list = append(programs.list, m)
	programs.Unlock()
}
