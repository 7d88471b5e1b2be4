package main

import (
	"bytes"
	"os"
	"testing"
)

// The README's generated sections are what the code and results/ give today.
func TestREADMEIsCurrent(t *testing.T) {
	old, err := os.ReadFile("../../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	updated, err := render("../../..", old)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, updated) {
		t.Error("README.md is out of date: run go run ./internal/cmd/readme")
	}
}
