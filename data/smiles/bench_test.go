package smiles_test

import (
	"path/filepath"
	"testing"

	"github.com/sgformer/sgformer/data/smiles"
	"github.com/sgformer/sgformer/internal/shareddata"
)

// benchmarkDataset featurises every SMILES of a dataset per iteration and reports the time
// per molecule.
func benchmarkDataset(b *testing.B, dir, file string) {
	sms := readSMILES(b, filepath.Join(shareddata.Dir(b, dir), file))
	b.ResetTimer()
	for range b.N {
		for _, s := range sms {
			if _, err := smiles.OGBGraph(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(sms)), "ns/molecule")
}

// BenchmarkOGBGraphMolHIV featurises the 41,127 SMILES of ogbg-molhiv.
func BenchmarkOGBGraphMolHIV(b *testing.B) {
	benchmarkDataset(b, "ogbg_molhiv", "mapping/mol.csv.gz")
}

// BenchmarkOGBGraphPeptides featurises the 15,535 SMILES of Peptides-func (151 atoms on
// average, all with stereocentres).
func BenchmarkOGBGraphPeptides(b *testing.B) {
	benchmarkDataset(b, "peptides_func", "peptide_multi_class_dataset.csv.gz")
}

// BenchmarkScaffoldKeyMolHIV computes the scaffold keys of the parsed ogbg-molhiv molecules.
func BenchmarkScaffoldKeyMolHIV(b *testing.B) {
	sms := readSMILES(b, filepath.Join(shareddata.Dir(b, "ogbg_molhiv"), "mapping/mol.csv.gz"))
	mols := make([]*smiles.Molecule, len(sms))
	for i, s := range sms {
		m, err := smiles.Parse(s)
		if err != nil {
			b.Fatal(err)
		}
		mols[i] = m
	}
	b.ResetTimer()
	for range b.N {
		for _, m := range mols {
			if _, err := m.ScaffoldKey(); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(mols)), "ns/molecule")
}
