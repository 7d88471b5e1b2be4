package main

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"

	"github.com/sgformer/sgformer/internal/gpuresult"
)

// sampler is nvidia-smi sampling the GPU's utilisation and memory every 0.5 s into a CSV file
// of the piece's folder, while a piece's commands run.
type sampler struct {
	cmd  *exec.Cmd // nil without nvidia-smi
	path string
}

// startSMI starts sampling into the piece's file name; without nvidia-smi (a dry run) it
// samples nothing.
func startSMI(ctx context.Context, j *job, name string) *sampler {
	s := &sampler{path: j.path(name)}
	if _, err := exec.LookPath("nvidia-smi"); err != nil {
		return s
	}
	f, err := os.Create(s.path)
	if err != nil {
		return s
	}
	s.cmd = j.command(ctx, "nvidia-smi", "--query-gpu=timestamp,utilization.gpu,memory.used,memory.total",
		"--format=csv,noheader,nounits", "-lms", "500")
	s.cmd.Stdout = f
	if err := s.cmd.Start(); err != nil {
		s.cmd = nil
	}
	f.Close() // the child holds its own copy
	return s
}

// stop ends the sampling and returns what the samples came to.
func (s *sampler) stop() gpuresult.SMI {
	if s.cmd != nil {
		s.cmd.Process.Kill()
		s.cmd.Wait()
		s.cmd = nil
	}
	f, err := os.Open(s.path)
	if err != nil {
		return gpuresult.SMI{}
	}
	defer f.Close()
	return summarizeSMI(f)
}

// summarizeSMI reads nvidia-smi's CSV lines "timestamp, utilization.gpu, memory.used,
// memory.total": the mean and largest of the non-zero utilisations (0 when all are 0) and the
// largest memory used; nulls without samples. Lines that do not parse ("[N/A]") are skipped.
func summarizeSMI(r io.Reader) gpuresult.SMI {
	var n, busy int
	var sum, utilMax, memMax float64
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		f := strings.Split(sc.Text(), ",")
		if len(f) < 3 {
			continue
		}
		util, err1 := strconv.ParseFloat(strings.TrimSpace(f[1]), 64)
		mem, err2 := strconv.ParseFloat(strings.TrimSpace(f[2]), 64)
		if err1 != nil || err2 != nil {
			continue
		}
		n++
		memMax = max(memMax, mem)
		if util > 0 {
			busy++
			sum += util
			utilMax = max(utilMax, util)
		}
	}
	if n == 0 {
		return gpuresult.SMI{}
	}
	mean := 0.0
	if busy > 0 {
		mean = sum / float64(busy)
	}
	return gpuresult.SMI{UtilMean: &mean, UtilMax: &utilMax, MemMax: &memMax}
}
