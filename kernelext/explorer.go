package kernelext

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/janpfeifer/gonb/gonbui"
	"github.com/janpfeifer/gonb/gonbui/comms"
	"github.com/janpfeifer/gonb/gonbui/dom"
	"github.com/janpfeifer/gonb/gonbui/widgets"
)

// IdleTimeout is how long an explorer stays live without a change of its controls before it
// closes by itself, leaving its last figure. An explorer is a running cell: it stays live until
// its Done button is pressed, a cell below it is queued to run (Run All), the kernel is
// interrupted, or this much time passes without a change. A cell may set it before calling an
// explorer.
var IdleTimeout = 5 * time.Minute

// queuedPoll is how often the page checks whether a cell below a live explorer waits to run.
const queuedPoll = 500 * time.Millisecond

// Bounds of the exchanges with the notebook's front end, so that a cell never hangs on one.
var (
	// probeTimeout is how long frontEnd waits in all for the front end's answer; it asks again
	// every probeEvery, as a browser busy rendering (or GoNB reconnecting to it) can drop a
	// question. A browser with the notebook open answers within a second; a front end that
	// runs no JavaScript costs this much once per explorer or training cell.
	probeTimeout = 15 * time.Second
	probeEvery   = 2 * time.Second
	// widgetTimeout is how long creating one widget may wait for the front end.
	widgetTimeout = 10 * time.Second
)

// frontEnd reports whether a notebook front end runs GoNB's JavaScript and answers: a browser
// with the notebook open. It returns false at once outside a GoNB kernel, with
// SGFORMER_WIDGETS=static in the environment, and when the kernel was started by a headless
// executor (headlessExecutor): nbconvert and the like run no JavaScript, and asking would
// leave GoNB's script for the browser in the saved notebook. Otherwise it asks the front end,
// and returns false when no answer comes within probeTimeout.
func frontEnd() bool {
	if !gonbui.IsNotebook || gonbui.Error() != nil || os.Getenv("SGFORMER_WIDGETS") == "static" || headlessExecutor(os.Getppid()) != "" {
		return false
	}
	address := "/sgformer/probe/" + gonbui.UniqueId()
	replies := comms.Listen[int](address)
	defer replies.Close()
	script := fmt.Sprintf(`(() => { const c = globalThis.gonb_comm; if (c) { c.send(%s, 1); } })();`, strconv.Quote(address))
	// TransientJavascript returns once GoNB has handled the subscription above (it waits up
	// to 3 s for the front end's connection, or gives up) and sent the script on.
	return probe(func() { dom.TransientJavascript(script) }, replies.C, probeEvery, probeTimeout)
}

// probe calls ask, and again `every` after each call returns, until an answer arrives on
// replies; it reports whether one arrived within timeout. A call of ask under way when probe
// returns ends in the background.
func probe(ask func(), replies <-chan int, every, timeout time.Duration) bool {
	done := make(chan struct{})
	defer close(done)
	go func() {
		for {
			ask()
			select {
			case <-time.After(every):
			case <-done:
				return
			}
		}
	}()
	select {
	case <-replies:
		return true
	case <-time.After(timeout):
		return false
	}
}

// headlessExecutors are the programs that execute notebooks without a front end, as they
// appear in the command lines of the processes that run them.
var headlessExecutors = []string{"nbconvert", "nbclient", "papermill", "jupyter-execute"}

// headlessExecutor returns the headless executor among pid and its first few ancestors (the
// GoNB kernel and the process that started it, read from Linux's /proc), or "" when there is
// none or they cannot be read.
func headlessExecutor(pid int) string {
	for range 4 {
		if pid <= 1 {
			return ""
		}
		cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
		if err != nil {
			return ""
		}
		args := strings.ReplaceAll(string(cmdline), "\x00", " ")
		for _, name := range headlessExecutors {
			if strings.Contains(args, name) || name == "jupyter-execute" && strings.Contains(args, "jupyter execute") {
				return name
			}
		}
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			return ""
		}
		// "pid (comm) state ppid …": the name may hold spaces and parentheses.
		fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(fields) < 2 {
			return ""
		}
		if pid, err = strconv.Atoi(fields[1]); err != nil {
			return ""
		}
	}
	return ""
}

// within runs f and reports whether it returned within d. When it did not, f goes on in the
// background (a widget waiting for a front end that went away), until the cell's program ends.
func within(d time.Duration, f func()) bool {
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// knob is one control of an explorer: a slider over [min, max], or a select of options
// (its value the index of the option chosen).
type knob struct {
	name, label string
	min, max    int
	options     []string
	value       int
	// format shows a slider's value beside it (nil: the number).
	format func(int) string
}

// show formats value as the control shows it.
func (k knob) show(value int) string {
	switch {
	case k.options != nil && value >= 0 && value < len(k.options):
		return k.options[value]
	case k.format != nil:
		return k.format(value)
	}
	return strconv.Itoa(value)
}

// state formats the values of knobs as Frame.State does.
func state(knobs []knob, values []int) string {
	parts := make([]string, len(knobs))
	for i, k := range knobs {
		parts[i] = k.name + "=" + k.show(values[i])
	}
	return strings.Join(parts, " ")
}

// explorer is an interactive figure: controls whose values draw a Frame.
type explorer struct {
	name, title string
	knobs       []knob
	// draw returns the frame of the values, and the values it drew: a value out of range
	// for the others (a PE column beyond k) is brought into range, and the control moved.
	draw func(values []int) (Frame, []int, error)
}

// run shows the explorer in the running cell. Where a front end listens it stays live until
// Done is pressed, IdleTimeout passes without a change or the kernel is interrupted, then
// leaves its last figure; elsewhere (nbconvert, CI) it displays the frame of the controls'
// initial values, with a note. Outside a GoNB kernel it returns ErrNotInKernel.
func (e *explorer) run() error {
	if !gonbui.IsNotebook {
		return ErrNotInKernel
	}
	values := make([]int, len(e.knobs))
	for i, k := range e.knobs {
		values[i] = k.value
	}
	f, values, err := e.draw(values)
	if err != nil {
		return err
	}
	if !frontEnd() {
		return e.static(f)
	}
	return e.live(f, values)
}

// static displays frame f with a note saying what the live explorer would offer.
func (e *explorer) static(f Frame) error {
	if err := DisplayHTML(staticNote(e.title, e.knobs) + f.countsHTML()); err != nil {
		return err
	}
	return f.keep("")
}

// staticNote says that a figure is the explorer's default state, drawn without a front end.
func staticNote(title string, knobs []knob) string {
	labels := make([]string, len(knobs))
	for i, k := range knobs {
		labels[i] = k.label
	}
	return fmt.Sprintf(`<div class="sgformer-static" style="color:#666">%s: the default state, drawn without a notebook front end (headless run). Open the notebook in Jupyter to move its controls: %s.</div>`,
		html.EscapeString(title), html.EscapeString(strings.Join(labels, ", ")))
}

// control is what run needs of a slider or a select.
type control interface {
	Listen() *comms.AddressChan[int]
	SetValue(int)
}

// change is a new value of control knob.
type change struct{ knob, value int }

// live runs the explorer with its controls, starting from frame f of values.
func (e *explorer) live(f Frame, values []int) error {
	id := gonbui.UniqueId()
	panel, box, figure := "sgformer-controls-"+id, "sgformer-box-"+id, "sgformer-figure-"+id
	if err := updateHTML(panel, fmt.Sprintf(`<div id="%s" class="sgformer-controls" data-explorer="%s" style="display:flex;flex-wrap:wrap;align-items:center;gap:4px 18px"><b>%s</b></div>`,
		box, e.name, html.EscapeString(e.title))); err != nil {
		return err
	}
	if err := e.display(figure, f); err != nil {
		return err
	}

	// The controls, each with its value beside it.
	controls := make([]control, len(e.knobs))
	shown := make([]string, len(e.knobs))
	for i, k := range e.knobs {
		group := fmt.Sprintf("sgformer-knob-%s-%d", id, i)
		shown[i] = group + "-value"
		value := fmt.Sprintf(` <b id="%s">%s</b>`, shown[i], html.EscapeString(k.show(values[i])))
		if k.options != nil {
			value = "" // a select shows its value itself
		}
		dom.Append(box, fmt.Sprintf(`<span id="%s" data-knob="%s" style="white-space:nowrap">%s:%s </span>`,
			group, k.name, html.EscapeString(k.label), value))
		ok := within(widgetTimeout, func() {
			if k.options != nil {
				controls[i] = widgets.Select(k.options).SetDefault(values[i]).AppendTo(group).Done()
			} else {
				controls[i] = widgets.Slider(k.min, k.max, values[i]).AppendTo(group).Done()
			}
		})
		if !ok {
			return e.gaveUp(panel)
		}
	}
	var done *widgets.ButtonBuilder
	if !within(widgetTimeout, func() { done = widgets.Button("Done").AppendTo(box).Done() }) {
		return e.gaveUp(panel)
	}
	dom.Append(box, fmt.Sprintf(`<span style="color:#666">live until Done, a cell below is run (Run All goes on at once) or %s without a change</span>`, duration(IdleTimeout)))
	queuedAt := "/sgformer/queued/" + id
	queued := comms.Listen[int](queuedAt)
	defer queued.Close()
	dom.TransientJavascript(watchQueued(box, queuedAt, IdleTimeout+time.Minute))

	// One channel of changes, fed by a goroutine per control that ends with the explorer.
	changes := make(chan change)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	var listeners []*comms.AddressChan[int]
	for i, c := range controls {
		l := c.Listen().LatestOnly()
		listeners = append(listeners, l)
		wg.Go(func() {
			for v := range l.C {
				select {
				case changes <- change{i, v}:
				case <-quit:
					return
				}
			}
		})
	}
	clicks := done.Listen()
	interrupt := make(chan os.Signal, 1)
	signal.Notify(interrupt, os.Interrupt)
	idle := time.NewTimer(IdleTimeout)

	reason := ""
	for reason == "" {
		select {
		case c := <-changes:
			values[c.knob] = c.value
			for pending := true; pending; { // apply every change waiting, then draw once
				select {
				case c := <-changes:
					values[c.knob] = c.value
				default:
					pending = false
				}
			}
			f, values = e.redraw(figure, values, controls, shown)
			idle.Reset(IdleTimeout)
		case <-clicks.C:
			reason = "Done"
		case <-queued.C:
			reason = "a cell below was queued to run"
		case <-idle.C:
			reason = duration(IdleTimeout) + " without a change"
		case <-interrupt:
			reason = "the kernel was interrupted"
		}
	}
	signal.Stop(interrupt)
	idle.Stop()
	close(quit)
	for _, l := range listeners {
		l.Close()
	}
	clicks.Close()
	wg.Wait()
	dom.TransientJavascript(fmt.Sprintf(`globalThis[%s] = true;`, strconv.Quote(queuedAt)))
	if err := updateHTML(panel, fmt.Sprintf(`<div class="sgformer-closed" data-explorer="%s" style="color:#666">%s closed (%s) at %s. Run the cell again to explore.</div>%s`,
		e.name, html.EscapeString(e.title), html.EscapeString(reason), html.EscapeString(state(e.knobs, values)), f.countsHTML())); err != nil {
		return err
	}
	return f.keep(figure) // the last figure, as an image that stays
}

// watchQueued returns the script that watches, every queuedPoll for at most lifetime, the
// prompts of the notebook that holds the element box, and sends 1 to the address once another
// cell's prompt shows "[*]" (queued or running: the explorer's cell is the one running, so
// another is queued behind it, as after Run All). The selectors are JupyterLab's and Notebook
// 7's (.jp-Cell, .jp-InputPrompt) and the classic notebook's (.cell, .input_prompt). It stops
// when globalThis[address] is set (the explorer closed) and does nothing where it finds no
// cell around box.
func watchQueued(box, address string, lifetime time.Duration) string {
	return fmt.Sprintf(`(() => {
	const el = document.getElementById(%[1]s);
	const cell = el && el.closest(".jp-Cell, .cell");
	const notebook = cell && cell.closest(".jp-Notebook, #notebook-container");
	if (!notebook) { return; }
	const until = Date.now() + %[3]d;
	const timer = setInterval(() => {
		if (globalThis[%[2]s] || Date.now() > until) { clearInterval(timer); return; }
		for (const prompt of notebook.querySelectorAll(".jp-InputPrompt, .input_prompt")) {
			if (!cell.contains(prompt) && prompt.textContent.includes("[*]")) {
				clearInterval(timer);
				globalThis.gonb_comm.send(%[2]s, 1);
				return;
			}
		}
	}, %[4]d);
})();`, strconv.Quote(box), strconv.Quote(address), lifetime.Milliseconds(), queuedPoll.Milliseconds())
}

// redraw draws values into the figure display and returns the frame and the values drawn,
// moving the controls whose values draw brought into range and updating the values shown
// beside them.
func (e *explorer) redraw(figure string, values []int, controls []control, shown []string) (Frame, []int) {
	f, drawn, err := e.draw(values)
	if err != nil {
		f = Frame{Explorer: e.name, State: state(e.knobs, values), Lines: []string{"cannot draw this state: " + err.Error()}}
		drawn = values
	}
	for i := range drawn {
		if drawn[i] != values[i] {
			controls[i].SetValue(drawn[i])
		}
		if e.knobs[i].options == nil {
			dom.SetInnerText(shown[i], e.knobs[i].show(drawn[i]))
		}
	}
	_ = e.display(figure, f) // a broken connection shows in the next exchange; the loop ends on Done or idleness
	return f, drawn
}

// display replaces the output with the display id figure by frame f, live: its HTML.
func (e *explorer) display(figure string, f Frame) error {
	h, err := f.HTML()
	if err != nil {
		return err
	}
	return updateHTML(figure, h)
}

// gaveUp replaces the controls by a note when the front end stopped answering while they were
// made; the figure stays.
func (e *explorer) gaveUp(panel string) error {
	return updateHTML(panel, fmt.Sprintf(`<div class="sgformer-closed" style="color:#666">%s: the notebook front end stopped answering (%s); the figure shows the default state. Run the cell again to explore.</div>`,
		html.EscapeString(e.title), duration(widgetTimeout)))
}

// duration formats d for a reader: "5 minutes", "1 minute", "10 s".
func duration(d time.Duration) string {
	switch {
	case d == time.Minute:
		return "1 minute"
	case d >= time.Minute && d%time.Minute == 0:
		return fmt.Sprintf("%d minutes", d/time.Minute)
	}
	return seconds(d.Seconds())
}
