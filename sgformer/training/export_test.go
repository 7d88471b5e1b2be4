package training

// SyntheticTask is syntheticTask, for the external tests of the package.
var SyntheticTask = syntheticTask
