package smiles_test

import (
	"strings"
	"testing"

	"github.com/sgformer/sgformer/data/smiles"
)

func TestSymbol(t *testing.T) {
	mol, err := smiles.Parse("[Na+].[Cl-].*C(=O)[U]c1ccccn1")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, a := range mol.Atoms() {
		got = append(got, a.Symbol())
	}
	if strings.Join(got, " ") != "Na Cl * C O U C C C C C N" {
		t.Errorf("symbols %v", got)
	}
	if s := (smiles.Atom{AtomicNum: 200}).Symbol(); s != "?" {
		t.Errorf("atomic number 200: %q", s)
	}
}
