package kernelext

import (
	"fmt"
	"html"
	"math"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/protocol"

	"github.com/sgformer/sgformer/plots"
	"github.com/sgformer/sgformer/sgformer/training"
)

// Renderer draws the training curves of the epochs so far. PolylineCurves is one; plots.Curves
// is another, plugged in with
//
//	live.Render = func(r []training.Record, metric string) (kernelext.SVGer, error) { return plots.Curves(r, metric) }
type Renderer func(records []training.Record, metric string) (SVGer, error)

// Live shows a training run in two outputs of the running cell, redrawn in place: a progress
// line (epoch k/N, seconds per epoch, time left, best epoch so far) with the latest line of the
// training progress bar, and the curves of the epochs so far. Its OnEpoch method is a
// training.Options.OnEpoch, and Live itself a training.Options.Progress writer; Finish, once
// the run has ended, leaves the curves as an image the notebook keeps.
//
// Displaying never interrupts training: errors (from the renderer or the connection to the
// kernel, or ErrNotInKernel outside one) are kept and reported by Err. A Live is safe for
// concurrent use.
type Live struct {
	// Render draws the curves; LiveTraining sets PolylineCurves. Change it before training.
	Render Renderer

	metric string
	epochs int
	id     string

	mu      sync.Mutex
	records []training.Record
	bar     string // the progress bar's latest line
	figure  string // the curves of records, as HTML; displayed once not empty
	err     error
}

// LiveTraining returns a Live for a run of the given number of epochs (0 if unknown: no time
// left is shown) reporting the named metric (e.g. "mae"). Nothing is displayed before the
// first epoch ends or the progress bar first writes.
func LiveTraining(metric string, epochs int) *Live {
	return &Live{Render: PolylineCurves, metric: metric, epochs: epochs, id: "sgformer-live-" + gonbui.UniqueId()}
}

// OnEpoch adds the record of an epoch that ended and redraws the display.
func (l *Live) OnEpoch(r training.Record) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.records = append(l.records, r)
	if fig, err := l.Render(l.records, l.metric); err != nil {
		l.setErr(err)
	} else if l.figure, err = FigureHTML(fig); err != nil {
		l.setErr(err)
	}
	l.display()
	if l.figure != "" {
		l.setErr(updateHTML(l.id+"-figure", l.figure))
	}
}

// Finish replaces the live curves by the figure of the finished run, plots.Curves of the
// records with finite values, as the image a notebook keeps (FigureBundle: the live SVG would
// not render when the saved notebook is opened again). It does nothing before the first epoch.
func (l *Live) Finish() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.figure == "" {
		return
	}
	var finite []training.Record
	for _, r := range l.records {
		if finiteValues(r.TrainLoss, r.Valid, r.Test, r.LR) {
			finite = append(finite, r)
		}
	}
	if len(finite) == 0 {
		l.setErr(display(l.id+"-figure", Bundle{Data: map[protocol.MIMEType]any{protocol.MIMETextPlain: "(no epoch with finite values to draw)"}}))
		return
	}
	fig, err := plots.Curves(finite, l.metric)
	if err != nil {
		l.setErr(err)
		return
	}
	b, err := FigureBundle(fig)
	if err != nil {
		l.setErr(err)
		return
	}
	l.setErr(display(l.id+"-figure", b))
}

// Write receives the training progress bar's output and redraws the display with its latest
// line. It always accepts all of p, so that a display problem cannot stop training.
func (l *Live) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if line := latestLine(string(p)); line != "" {
		l.bar = line
		l.display()
	}
	return len(p), nil
}

// ended redraws the display of a run that ended early: the progress bar's line, only as recent
// as its last redraw, is replaced by note, and the progress line shows no time left.
func (l *Live) ended(note string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.bar = note
	l.epochs = 0
	l.display()
}

// Err returns the first error met while rendering or displaying, nil if none.
func (l *Live) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Records returns a copy of the records received so far.
func (l *Live) Records() []training.Record {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]training.Record(nil), l.records...)
}

// finiteValues reports whether every value is neither NaN nor infinite.
func finiteValues(values ...float64) bool {
	for _, v := range values {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return false
		}
	}
	return true
}

// HTML returns what the two outputs show now, the progress above the curves.
func (l *Live) HTML() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.html() + l.figure
}

// Progress returns the progress line: "epoch k/N · s/epoch · ETA" and the best validation
// epoch so far with its test metric, "" before the first epoch ends.
func (l *Live) Progress() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return progressLine(l.records, l.epochs, l.metric)
}

func (l *Live) html() string {
	var b strings.Builder
	b.WriteString(`<div style="font-family:monospace">`)
	if p := progressLine(l.records, l.epochs, l.metric); p != "" {
		fmt.Fprintf(&b, "<div>%s</div>", html.EscapeString(p))
	}
	if l.bar != "" {
		fmt.Fprintf(&b, `<div style="color:#666;white-space:pre">%s</div>`, html.EscapeString(l.bar))
	}
	b.WriteString("</div>")
	return b.String()
}

// display redraws the progress; l.mu is held.
func (l *Live) display() {
	l.setErr(updateHTML(l.id, l.html()))
}

func (l *Live) setErr(err error) {
	if l.err == nil {
		l.err = err
	}
}

var ansiEscape = regexp.MustCompile("\x1b\\[[0-9;?]*[A-Za-z]")

// latestLine returns the last non-blank line of a terminal progress bar's output, where "\r"
// also ends a line, without terminal escape sequences.
func latestLine(s string) string {
	lines := strings.FieldsFunc(ansiEscape.ReplaceAllString(s, ""), func(r rune) bool { return r == '\r' || r == '\n' })
	for i := len(lines) - 1; i >= 0; i-- {
		if line := strings.TrimSpace(lines[i]); line != "" {
			return line
		}
	}
	return ""
}

// progressLine formats where the run stands after records, of a run of epochs (0: unknown).
func progressLine(records []training.Record, epochs int, metric string) string {
	if len(records) == 0 {
		return ""
	}
	last := records[len(records)-1]
	var total float64
	for _, r := range records {
		total += r.Seconds
	}
	perEpoch := total / float64(len(records))
	var b strings.Builder
	fmt.Fprintf(&b, "epoch %d", last.Epoch)
	if epochs > 0 {
		fmt.Fprintf(&b, "/%d", epochs)
	}
	fmt.Fprintf(&b, " · %.3g s/epoch", perEpoch)
	switch left := epochs - last.Epoch; {
	case epochs > 0 && left > 0:
		fmt.Fprintf(&b, " · ETA %s", seconds(float64(left)*perEpoch))
	case epochs > 0:
		fmt.Fprintf(&b, " · done in %s", seconds(total))
	}
	for i := len(records) - 1; i >= 0; i-- {
		if r := records[i]; r.Epoch == last.BestEpoch {
			fmt.Fprintf(&b, " · best val %s %.4g at epoch %d (test %.4g)", metric, r.Valid, r.Epoch, r.Test)
			break
		}
	}
	return b.String()
}

// seconds formats a duration given in seconds: "7m39s", to the tenth of a second under 10 s.
func seconds(s float64) string {
	precision := time.Second
	if s < 10 {
		precision = time.Second / 10
	}
	return time.Duration(s * float64(time.Second)).Round(precision).String()
}
