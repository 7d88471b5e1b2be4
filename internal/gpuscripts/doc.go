// Package gpuscripts holds the tests of the shell scripts that prepare and run the GPU work:
// scripts/gpu-env.sh against fake Python environments, so they pass on machines without CUDA,
// and scripts/gpu-run.sh, the wrapper of internal/cmd/gpurun, with and without Go, and (when
// asked) its whole dry run on the CPU. It has no code.
package gpuscripts
