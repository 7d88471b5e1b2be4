#!/usr/bin/python3
"""Drives the interactive notebooks in headless Chromium: scripts/browser-test.sh runs it.

For each notebook it opens the notebook in the running Jupyter server, runs its cells up to an
explorer (not Run All: an explorer closes when a cell below it is queued, which
scripts/browser/lab.py checks) and works the cell's widgets as a reader would: it moves a slider or a select of each explorer
and checks that the figure changed (the SVG differs) and that the counts shown are the
library's (scripts/browser/expect computes them from packages product and pe), presses Done;
in 03-training it presses Stop once an epoch has ended and checks that the run stopped with
its checkpoint saved. Then it waits for every cell to finish, saves the notebook (for
internal/cmd/nbcheck to read) and shuts its kernel down. Screenshots go to --out.

Every wait is bounded; a failure names the notebook and the step, saves a screenshot
(failure-NAME.png) and exits with status 1.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import time

from selenium.webdriver.common.by import By

from chrome import Browser, Failure


def log(msg):
    print(f"[browser] {msg}", flush=True)


class Session(Browser):
    def __init__(self, args):
        super().__init__(args)
        self.timings = []

    def screenshot(self, name, selector=None):
        path = os.path.join(self.args.out, name)
        if selector:
            element = self.js(f"const e = document.querySelector({json.dumps(selector)});"
                              "const o = e && e.closest('.output_wrapper'); if (o) o.scrollIntoView(); return o;")
            if element is None:
                raise Failure(f"no {selector} to take a screenshot of")
            time.sleep(0.3)
            element.screenshot(path)
        else:
            self.driver.save_screenshot(path)
        log(f"{self.notebook}: screenshot {path}")

    # --- Jupyter (classic notebook) ---

    def open(self, name):
        self.notebook = name
        self.driver.get(f"{self.args.url}/notebooks/{name}.ipynb?token={self.args.token}")
        self.wait("the notebook's kernel to connect", 120, lambda: self.js(
            "return !!(window.Jupyter && Jupyter.notebook && Jupyter.notebook.kernel && Jupyter.notebook.kernel.is_connected())"))
        self.js("Jupyter.notebook.clear_all_output();")
        self.next = 0  # the first cell not run yet
        self.started = time.monotonic()

    def run_to(self, marker):
        """Runs the cells from the first not run yet to the next whose text holds marker."""
        end = self.js("""
            const cells = Jupyter.notebook.get_cells();
            for (let i = arguments[0]; i < cells.length; i++) {
                if (cells[i].cell_type === 'code' && cells[i].get_text().includes(arguments[1])) return i;
            }
            return -1;""", self.next, marker)
        if end < 0:
            raise Failure(f"no cell with {marker} below cell {self.next}")
        log(f"{self.notebook}: kernel connected; running cells {self.next} to {end} ({marker})")
        self.js("Jupyter.notebook.execute_cell_range(arguments[0], arguments[1]);", self.next, end + 1)
        self.next = end + 1

    def run_rest(self):
        """Runs the cells not run yet."""
        log(f"{self.notebook}: running cells {self.next} to the end")
        self.js("Jupyter.notebook.execute_cell_range(arguments[0], Jupyter.notebook.ncells());", self.next)
        self.next = self.js("return Jupyter.notebook.ncells();")

    def errors_shown(self):
        """Error outputs and panics the page shows so far."""
        return self.js("""
            const out = [];
            document.querySelectorAll('.output_error').forEach(e => out.push(e.innerText.slice(0, 400)));
            document.querySelectorAll('.output_stderr').forEach(e => {
                const t = e.innerText;
                if (/^panic: |^fatal error: |^exit status [1-9]/m.test(t)) out.push(t.slice(0, 400));
            });
            return out;""")

    def wait_cells_done(self, timeout):
        self.run_rest()

        def done():
            if self.errors_shown():
                raise Failure("a cell failed:\n" + "\n".join(self.errors_shown()))
            return self.js("""
                return Jupyter.notebook.get_cells().filter(c => c.cell_type === 'code' && c.get_text().trim() !== '')
                    .every(c => typeof c.input_prompt_number === 'number');""")
        self.wait("every cell to finish", timeout, done, interval=0.5)
        log(f"{self.notebook}: all cells ran in {time.monotonic() - self.started:.1f} s")
        self.js("const site = document.querySelector('#site'); if (site) site.scrollTop = 0; window.scrollTo(0, 0);")
        time.sleep(0.3)
        self.screenshot(f"first-screen-{self.notebook}.png")  # what a reader sees on opening it

    def save_and_close(self):
        self.driver.set_script_timeout(60)
        self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "Jupyter.notebook.save_notebook().then(() => done(true), e => done(String(e)));")
        self.js("Jupyter.notebook.session.delete();")
        time.sleep(1)

    # --- explorers ---

    def explorer(self, name, timeout):
        """Waits for the live controls of explorer name; returns the frame's attributes."""
        selector = f'.sgformer-controls[data-explorer="{name}"] button'
        self.wait(f"the {name} explorer's controls", timeout, lambda: self.js(
            f"return !!document.querySelector({json.dumps(selector)})"), interval=0.5)
        log(f"{self.notebook}: {name} explorer live after {time.monotonic() - self.started:.1f} s")
        return self.frame(name)

    def frame(self, name):
        return self.js(f"""
            const f = document.querySelector('.sgformer-explorer[data-explorer="{name}"]');
            if (!f) return null;
            const a = {{}};
            for (const attr of f.attributes) a[attr.name] = attr.value;
            const svg = f.querySelector('svg');
            a.svg = svg ? svg.outerHTML : '';
            a.text = f.querySelector('.sgformer-counts').innerText;
            return a;""")

    def set_control(self, explorer, knob, value):
        """Moves a slider (or a select) as a user does, with input and change events."""
        found = self.js(f"""
            const e = document.querySelector('.sgformer-controls[data-explorer="{explorer}"] [data-knob="{knob}"] input, '
                + '.sgformer-controls[data-explorer="{explorer}"] [data-knob="{knob}"] select');
            if (!e) return false;
            e.value = arguments[0];
            e.dispatchEvent(new Event('input'));
            e.dispatchEvent(new Event('change'));
            return true;""", str(value))
        if not found:
            raise Failure(f"no control {knob} in the {explorer} explorer")

    def change(self, explorer, knob, value, want_state, before):
        """Sets a control and waits for the frame of want_state; checks the figure changed."""
        began = time.monotonic()
        self.set_control(explorer, knob, value)
        frame = self.wait(f"the {explorer} explorer to draw {want_state}", 30, lambda: (
            lambda f: f if f and want_state in f["data-state"] else None)(self.frame(explorer)), interval=0.05)
        took = time.monotonic() - began
        self.timings.append((f"{self.notebook} {explorer} {knob}={value}", took))
        log(f"{self.notebook}: {explorer}: {knob} → {value}: redrawn in {took:.2f} s: {frame['data-state']}")
        if frame["svg"] == before["svg"]:
            raise Failure(f"the {explorer} explorer's figure did not change when {knob} became {value}")
        return frame

    def expect(self, *question):
        out = subprocess.run([self.args.expect, *question], capture_output=True, text=True, timeout=120)
        if out.returncode != 0:
            raise Failure(f"expect {' '.join(question)}: {out.stderr.strip()}")
        return json.loads(out.stdout)

    def check_counts(self, frame, want, keys):
        for key in keys:
            got, expected = frame.get(f"data-{key}"), want[key]
            if isinstance(expected, list):
                expected = ",".join(str(x) for x in expected)
            if isinstance(expected, float):
                ok = got is not None and abs(float(got) - expected) <= 1e-8 * max(1, abs(expected))
            else:
                ok = got == str(expected)
            if not ok:
                raise Failure(f"{frame['data-explorer']} explorer at {frame['data-state']}: {key} shows {got}, the library says {expected}")
        log(f"{self.notebook}: counts at {frame['data-state']} match the library's ({', '.join(keys)})")

    def done(self, explorer):
        self.js(f"document.querySelector('.sgformer-controls[data-explorer=\"{explorer}\"] button').click()")
        self.wait(f"the {explorer} explorer to close", 30, lambda: self.js(
            f"return !!document.querySelector('.sgformer-closed[data-explorer=\"{explorer}\"]')"))


MOLECULE = "zinc12k:5853"


def product_graph(s):
    s.open("01-product-graph")
    s.run_to("kernelext.ExploreProduct")
    before = s.explorer("product", s.args.cell_timeout)
    after = s.change("product", "root", 3, "root=3 connectivity=internal", before)
    s.check_counts(after, s.expect("product", MOLECULE, "3", "internal"),
                   ["n", "nodes", "edges", "edges-in", "from-inside", "from-outside", "neighbours"])
    external = s.change("product", "connectivity", 1, "root=3 connectivity=external", after)
    s.check_counts(external, s.expect("product", MOLECULE, "3", "external"),
                   ["edges", "edges-in", "from-inside", "from-outside", "neighbours"])
    moved = s.change("product", "root", 4, "root=4 connectivity=external", external)
    s.check_counts(moved, s.expect("product", MOLECULE, "4", "external"), ["edges-in", "from-outside", "neighbours"])
    s.screenshot("explorer-product.png", '.sgformer-explorer[data-explorer="product"]')
    s.done("product")

    s.run_to("kernelext.ExploreSampling")
    before = s.explorer("sampling", s.args.cell_timeout)
    after = s.change("sampling", "ratio", 30, "ratio=0.30 seed=0", before)
    s.check_counts(after, s.expect("sampling", MOLECULE, "0.3", "0"), ["n", "roots", "nodes", "internal", "external", "point"])
    seeded = s.change("sampling", "seed", 7, "ratio=0.30 seed=7", after)
    s.check_counts(seeded, s.expect("sampling", MOLECULE, "0.3", "7"), ["roots", "nodes", "internal", "external", "point"])
    s.screenshot("explorer-sampling.png", '.sgformer-explorer[data-explorer="sampling"]')
    s.done("sampling")
    s.wait_cells_done(s.args.cell_timeout)


def positional_encodings(s):
    s.open("02-positional-encodings")
    s.run_to("kernelext.ExplorePE")
    before = s.explorer("pe", s.args.cell_timeout)
    after = s.change("pe", "column", 3, "mode=exact k=8 column=3", before)
    s.check_counts(after, s.expect("pe", MOLECULE, "exact", "8", "3"), ["n", "columns", "tuple", "eigenvalue"])
    clamped = s.change("pe", "k", 2, "mode=exact k=2 column=1", after)  # column 3 of 2: the last one
    s.check_counts(clamped, s.expect("pe", MOLECULE, "exact", "2", "3"), ["columns", "column", "tuple", "eigenvalue"])
    concat = s.change("pe", "mode", 2, "mode=concat k=2 column=1", clamped)
    s.check_counts(concat, s.expect("pe", MOLECULE, "concat", "2", "1"), ["columns", "tuple", "eigenvalue"])
    wide = s.change("pe", "k", 8, "mode=concat k=8 column=1", concat)
    wide = s.change("pe", "column", 5, "mode=concat k=8 column=5", wide)
    s.check_counts(wide, s.expect("pe", MOLECULE, "concat", "8", "5"), ["columns", "tuple", "eigenvalue"])
    s.screenshot("explorer-pe.png", '.sgformer-explorer[data-explorer="pe"]')
    s.done("pe")
    s.wait_cells_done(s.args.cell_timeout)


def training(s):
    s.open("03-training")
    s.run_rest()
    s.wait("the Stop button", s.args.cell_timeout, lambda: s.js(
        "return !!document.querySelector('.sgformer-train-controls button')"), interval=0.5)
    log(f"03-training: Stop button shown after {time.monotonic() - s.started:.1f} s; waiting for the first epoch")
    s.wait("the first epoch's record in the live view", s.args.cell_timeout, lambda: s.js(
        r"return /epoch [0-9]+\/[0-9]+ · /.test(document.body.innerText)"), interval=0.5)
    s.screenshot("training-live.png", ".sgformer-train-controls")
    s.js("document.querySelector('.sgformer-train-controls button').click()")
    clicked = time.monotonic()
    outcome = s.wait("the run to stop", 120, lambda: s.js("""
        const o = document.querySelector('.sgformer-train-outcome');
        if (!o) return null;
        return {outcome: o.dataset.outcome, checkpoint: o.dataset.checkpoint, exists: o.dataset.checkpointExists,
                run: o.dataset.run, text: o.innerText};"""))
    log(f"03-training: {outcome['outcome']} {time.monotonic() - clicked:.1f} s after Stop: {outcome['text'][:160]}")
    if outcome["outcome"] != "stopped" or "interrupted during epoch" not in outcome["text"]:
        raise Failure(f"after Stop the run did not stop: {outcome}")
    if outcome["exists"] != "true" or not os.path.isdir(outcome["checkpoint"]) or not os.listdir(outcome["checkpoint"]):
        raise Failure(f"after Stop there is no checkpoint in {outcome['checkpoint']}")
    records = open(os.path.join(outcome["run"], "metrics.jsonl")).read().splitlines()
    summary = json.load(open(os.path.join(outcome["run"], "summary.json")))
    if not 1 <= len(records) < 20 or summary.get("epochs", 0) >= 20:
        raise Failure(f"the run has {len(records)} epochs recorded, summary {summary.get('epochs')}: it did not stop early")
    log(f"03-training: stopped after {len(records)} epochs; checkpoint {outcome['checkpoint']} present")
    s.screenshot("training-stopped.png", ".sgformer-train-outcome")
    s.wait_cells_done(s.args.cell_timeout)


NOTEBOOKS = {"01-product-graph": product_graph, "02-positional-encodings": positional_encodings, "03-training": training}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--out", required=True, help="directory of the screenshots")
    p.add_argument("--expect", required=True, help="the expect helper's binary")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    p.add_argument("--cell-timeout", type=float, default=240, help="seconds to wait for one step (cells compile first)")
    p.add_argument("notebooks", nargs="*", default=list(NOTEBOOKS))
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    s = Session(args)
    failed = []
    try:
        for name in args.notebooks:
            began = time.monotonic()
            try:
                NOTEBOOKS[name](s)
                s.save_and_close()
                log(f"{name}: passed in {time.monotonic() - began:.1f} s")
            except Failure as e:
                failed.append(name)
                log(f"{name}: FAILED: {e}")
                try:
                    s.driver.save_screenshot(os.path.join(args.out, f"failure-{name}.png"))
                    log(f"{name}: page at the failure: {os.path.join(args.out, f'failure-{name}.png')}")
                    s.js("Jupyter.notebook.kernel.interrupt(); Jupyter.notebook.session.delete();")
                    time.sleep(2)
                except Exception as e2:  # the page may be gone
                    log(f"{name}: could not save the failure's screenshot: {e2}")
    finally:
        s.driver.quit()
    for what, took in s.timings:
        log(f"redraw {what}: {took:.2f} s")
    if failed:
        log(f"FAILED: {' '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
