// Package gpuscripts holds the tests of the shell scripts that prepare and run the GPU work
// (scripts/gpu-env.sh, scripts/gpu-run.sh). It has no code: the tests run the scripts against
// fake Python environments, so they pass on machines without CUDA.
package gpuscripts
