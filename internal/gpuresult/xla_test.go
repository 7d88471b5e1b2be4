package gpuresult

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A dump of two programs (the second also dumped again under a later number, and variable
// initialisation beside them) gives one summary per program, its numbers counted by hand.
func TestSummarizeXLADump(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// Parameters: 10·4 + 3·4 = 52 bytes. The fusion reads 40 + 12 and writes 40 (92); the
	// tuple-shaped custom call reads 40 and writes 4·4 + 10·1 = 26 (66); parameter, bitcast,
	// get-tuple-element and tuple touch nothing: 158 bytes.
	write("module_0001.Trainer_0.sm_9.0a_gpu_after_optimizations.txt", `HloModule Trainer_0

%fused_add (p0: f32[10], p1: f32[3]) -> f32[10] {
  %p0 = f32[10]{0} parameter(0)
  ROOT %a = f32[10]{0} add(%p0, %p0)
}

ENTRY %main.1 (Arg_0.1: f32[10], Arg_1.1: s32[3]) -> (f32[10], pred[10]) {
  %Arg_0.1 = f32[10]{0} parameter(0), metadata={op_name="x"}
  %Arg_1.1 = s32[3]{0} parameter(1)
  %loop_add_fusion.2 = f32[10]{0} fusion(%Arg_0.1, %Arg_1.1), kind=kLoop, calls=%fused_add
  %bitcast.3 = f32[2,5]{1,0} bitcast(%loop_add_fusion.2)
  %custom-call.4 = (f32[2,2]{1,0}, pred[10]{0}) custom-call(%loop_add_fusion.2), custom_call_target="x"
  %get-tuple-element.5 = pred[10]{0} get-tuple-element(%custom-call.4), index=1
  ROOT %tuple.6 = (f32[10]{0}, pred[10]{0}) tuple(%loop_add_fusion.2, %get-tuple-element.5)
}
`)
	write("module_0001.Trainer_0.thunk_sequence_after_thunk_passes.txt", `000: kCommandBuffer [source | sink] 
    001: kCustomKernel   [source         | next=002 (1)    ] loop_add_fusion_80 grid: [1, 1, 1] threads: [1, 1, 1]  shared_memory: 0 bytes
    002: kCustomKernel   [prev=001 (1)   | sink            ] loop_add_fusion.7 grid: [1, 1, 1] threads: [1, 1, 1]  shared_memory: 0 bytes
    003: kCublasLtMatmul [prev=002 (1)   | sink            ] kCublasLtMatmul
    004: kCustomKernel   [source         | sink            ] input_scatter_fusion grid: [6, 1, 1] threads: [128, 1, 1]  shared_memory: 0 bytes
`)
	write("module_0002.Inference_0.sm_9.0a_gpu_after_optimizations.txt", "HloModule Inference_0\n\nENTRY %main (a: bf16[4]) -> bf16[4] {\n  ROOT %a = bf16[4]{0} parameter(0)\n}\n")
	write("module_0002.Inference_0.thunk_sequence_after_thunk_passes.txt", "000: kCopy [source | sink] kCopy\n")
	write("module_0007.Trainer_0.sm_9.0a_gpu_after_optimizations.txt", "not read: Trainer_0 was summarised")
	write("module_0003.VariableInitialization.sm_9.0a_gpu_after_optimizations.txt", "not read")
	s, err := SummarizeXLADump(dir)
	if err != nil {
		t.Fatal(err)
	}
	want := XLASummary{Programs: []XLAProgram{
		{Module: "Trainer_0", Parameters: 2, ParameterBytes: 52, BytesTouched: 158,
			Thunks:  map[string]int{"kCommandBuffer": 1, "kCustomKernel": 3, "kCublasLtMatmul": 1},
			Kernels: map[string]int{"loop_add_fusion": 2, "input_scatter_fusion": 1}},
		{Module: "Inference_0", Parameters: 1, ParameterBytes: 8, Thunks: map[string]int{"kCopy": 1}, Kernels: map[string]int{}},
	}}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("summary\n%+v, want\n%+v", s, want)
	}

	// A line of the entry computation that is not an instruction is named, file and line.
	write("module_0002.Inference_0.sm_9.0a_gpu_after_optimizations.txt", "ENTRY %main () -> f32[] {\n  what is this\n}\n")
	if _, err := SummarizeXLADump(dir); err == nil || !strings.Contains(err.Error(), "module_0002.Inference_0.sm_9.0a_gpu_after_optimizations.txt:2: not an HLO instruction") {
		t.Errorf("a bad line: %v", err)
	}
	if _, err := SummarizeXLADump(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no program optimised for a GPU") {
		t.Errorf("an empty dump: %v", err)
	}
}
