package brec

// A Comparison is a test's Count in a category (or in total) beside the exact oracles' answers
// on the same pairs: how many of them SSWL distinguishes, how many the test distinguishes that
// SSWL does not and that 2-FWL does not (which bound K = 2 models, so none unless a number fooled
// the test), and how many failed the reliability check; the CPU seconds are the sum over the
// CPUPairs records that have them (Record.CPUSeconds).
type Comparison struct {
	Test string
	Count
	SSWL, BeyondSSWL, BeyondFWL, Unreliable int
	CPUSeconds                              float64
	CPUPairs                                int
	// BeyondFWLPairs are the records distinguished that 2-FWL does not, in their order.
	BeyondFWLPairs []Record
}

// SecondsPerPair is the mean seconds a pair took.
func (c Comparison) SecondsPerPair() float64 { return c.Seconds / float64(c.Pairs) }

// CPUPerPair is the mean CPU seconds of the pairs that have them.
func (c Comparison) CPUPerPair() float64 { return c.CPUSeconds / float64(c.CPUPairs) }

// Compare compares each test of records, in the order the tests first appear, with the oracles'
// records of the same pairs ("sswl" and "2-fwl", as sgformer brec writes them): a Comparison
// per category the test ran on, in the order of Counts, then its total.
func Compare(records, oracles []Record) []Comparison {
	sswl, fwl := map[int]bool{}, map[int]bool{}
	for _, r := range oracles {
		switch r.Test {
		case "sswl":
			sswl[r.Pair] = r.Distinguished
		case "2-fwl":
			fwl[r.Pair] = r.Distinguished
		}
	}
	var out []Comparison
	for _, s := range Summarize(records) {
		at := map[string]int{}
		for _, c := range s.Counts {
			at[c.Category] = len(out)
			out = append(out, Comparison{Test: s.Test, Count: c})
		}
		for _, r := range records {
			if r.Test != s.Test {
				continue
			}
			for _, c := range []*Comparison{&out[at[r.Category]], &out[at["total"]]} {
				c.add(r, sswl[r.Pair], fwl[r.Pair])
			}
		}
	}
	return out
}

// add counts record r, of a pair SSWL distinguishes or not and 2-FWL distinguishes or not.
func (c *Comparison) add(r Record, sswl, fwl bool) {
	count := func(yes bool) int {
		if yes {
			return 1
		}
		return 0
	}
	c.SSWL += count(sswl)
	c.BeyondSSWL += count(r.Distinguished && !sswl)
	c.BeyondFWL += count(r.Distinguished && !fwl)
	c.Unreliable += count(!r.Reliable)
	if r.Distinguished && !fwl {
		c.BeyondFWLPairs = append(c.BeyondFWLPairs, r)
	}
	if r.CPUSeconds > 0 {
		c.CPUSeconds += r.CPUSeconds
		c.CPUPairs++
	}
}
