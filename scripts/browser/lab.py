#!/usr/bin/python3
"""The notebooks as a reader meets them in JupyterLab: scripts/browser-test.sh runs it.

1. Opened as committed (--committed: byte-exact copies, never trusted: the server's notary is
   empty): every output that holds an image/png shows as an image that loaded, no output is
   HTML holding an SVG (JupyterLab sanitises an untrusted notebook's HTML, and the SVG with it),
   the notebook is not marked modified, and saved unmodified it is byte for byte the file it
   was. Screenshots of its first screen and of its first figure (lab-NAME.png,
   lab-NAME-figure.png).
2. Run All (--run-all: copies that point GoNB at this repository): every cell finishes within
   --run-all-timeout with no button pressed, and each explorer closed because the cells below it
   were queued, leaving its figure as an image. A screenshot of the first explorer so closed
   (lab-run-all-NAME.png).

Every wait is bounded; a failure names the notebook and the step, saves a screenshot
(failure-lab-NAME.png) and exits with status 1.
"""
import argparse
import json
import os
import sys
import time

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from chrome import Browser, Failure


def log(msg):
    print(f"[lab] {msg}", flush=True)


def outputs(path):
    """The notebook's cells, and for each output its MIME types and its HTML."""
    nb = json.load(open(path, encoding="utf-8"))
    found = []
    for i, cell in enumerate(nb["cells"]):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            html = data.get("text/html", "")
            found.append((i, set(data), "".join(html) if isinstance(html, list) else html))
    return nb["cells"], found


class Lab(Browser):
    def screenshot(self, name):
        path = os.path.join(self.args.out, name)
        self.driver.save_screenshot(path)
        log(f"{self.notebook}: screenshot {path}")

    def open(self, path, cells):
        """Opens path (relative to the server's root) and waits for its cells and its kernel."""
        self.notebook = os.path.basename(path)
        self.driver.get(f"{self.args.url}/lab/tree/{path}?token={self.args.token}&reset")
        self.wait(f"{path}'s {cells} cells", 120, lambda: self.js(
            "return document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell').length") == cells)
        # GoNB reports no status on starting, so JupyterLab shows "Go (gonb) | Unknown" until a
        # cell runs: wait for the kernel's name.
        self.wait("the GoNB kernel", 120, lambda: "Go (gonb)" in self.js(
            "const s = document.querySelector('#jp-main-statusbar'); return s ? s.innerText : ''"), interval=0.5)

    def images(self):
        """The images of the notebook's outputs: how many, and how many loaded."""
        return self.js("""
            const imgs = [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output img')];
            return [imgs.length, imgs.filter(i => i.complete && i.naturalWidth > 0).length];""")

    def dirty(self):
        return self.js("return !!document.querySelector('.lm-TabBar-tab.jp-mod-dirty, .jp-mod-dirty')")

    def save(self, path):
        before = os.stat(path).st_mtime_ns
        # The focus in the notebook, for its Ctrl+S: on a cell's prompt, or where no cell is in the
        # page, on the notebook itself.
        prompts = self.driver.find_elements(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Cell .jp-InputPrompt")
        (prompts[0] if prompts else self.driver.find_element(By.CSS_SELECTOR, ".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")).click()
        ActionChains(self.driver).key_down(Keys.CONTROL).send_keys("s").key_up(Keys.CONTROL).perform()
        self.wait(f"{path} to be saved", 30, lambda: os.stat(path).st_mtime_ns != before)
        time.sleep(0.5)  # the write's end

    OUTER = "document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer')"

    def scroll_through(self, look, settle=0.3):
        """Scrolls the notebook from its top to its bottom, most of a screen at a time, calling look()
        at each stop, settle seconds after it: JupyterLab keeps only the cells near the view of a
        long notebook in the page, and draws those it brings in a moment later. Stops early when
        look() returns True."""
        self.js(f"{self.OUTER}.scrollTop = 0")
        for _ in range(500):
            time.sleep(settle)
            if look():
                return
            if self.js(f"const o = {self.OUTER}; const t = o.scrollTop; o.scrollTop = t + 0.8 * o.clientHeight; return o.scrollTop === t"):
                return

    def closed_explorers(self, want):
        """The explorers of the notebook that closed, each seen once: its message, and whether its
        cell shows its figure as an image that loaded. Scrolls through the notebook again, more
        slowly, while fewer than want are seen (a cell drawn after its stop was passed; seen on
        the Binder image's first Run All)."""
        found = {}

        def look():
            for e in self.js("""
                    return [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .sgformer-closed')].map(e => {
                        const cell = e.closest('.jp-Cell');
                        const img = cell && cell.querySelector('.jp-RenderedImage img');
                        return {text: e.textContent, image: !!(img && img.complete && img.naturalWidth > 0)};
                    });"""):
                if e["text"] not in found or e["image"]:
                    found[e["text"]] = e
        for settle in (0.3, 1, 3):
            self.scroll_through(look, settle)
            if len(found) >= want and all(e["image"] for e in found.values()) or settle == 3:
                return list(found.values())
            log(f"{len(found)} of {want} closed explorers seen with their figures at {settle} s a stop; scrolling through again")

    def close_all(self):
        """Shuts every kernel down, through the server's REST API."""
        self.js("""
            const token = arguments[0];
            return fetch('/api/sessions?token=' + token).then(r => r.json()).then(ss => Promise.all(
                ss.map(s => fetch('/api/sessions/' + s.id + '?token=' + token, {method: 'DELETE'}))));""",
                self.args.token)


def committed(lab, name):
    """Opens the byte-exact copy of a committed notebook, untrusted, and checks what shows."""
    path = os.path.join(lab.args.root, lab.args.committed_dir, name + ".ipynb")
    original = open(path, "rb").read()
    cells, outs = outputs(path)
    pngs = sum(1 for _, types, _ in outs if "image/png" in types)
    svg_html = [i for i, types, html in outs if "<svg" in html]
    if svg_html:
        raise Failure(f"outputs of cells {svg_html} are HTML holding an SVG, which JupyterLab removes from an untrusted notebook")
    lab.open(f"{lab.args.committed_dir}/{name}.ipynb", len(cells))
    lab.wait(f"{pngs} images to load", 60, lambda: lab.images() == [pngs, pngs])
    log(f"{name}: {pngs} of {pngs} figures shown untrusted, none as stray text")
    time.sleep(2)
    if lab.dirty():
        raise Failure("the notebook is marked modified right after opening")
    lab.js("document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-WindowedPanel-outer').scrollTop = 0")
    time.sleep(0.3)
    lab.screenshot(f"lab-{name}.png")
    if pngs:  # and the first figure, as a reader scrolling down meets it
        lab.js("document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-RenderedImage').scrollIntoView({block: 'center'})")
        time.sleep(0.5)
        lab.screenshot(f"lab-{name}-figure.png")
    lab.save(path)
    saved = open(path, "rb").read()
    if saved != original:
        lines = [(a, b) for a, b in zip(original.decode().splitlines(), saved.decode().splitlines()) if a != b]
        raise Failure(f"saved unmodified, the file changed ({len(original)} → {len(saved)} bytes); first differing "
                      f"lines: {lines[:3]}")
    log(f"{name}: not modified by opening; saved unmodified, byte for byte the committed file")


def run_all(lab, name):
    """Runs every cell with Run All and checks that it finishes with no button pressed."""
    path = os.path.join(lab.args.root, lab.args.run_dir, name + ".ipynb")
    cells, _ = outputs(path)
    explorers = sum(1 for c in cells if c["cell_type"] == "code" and "kernelext.Explore" in "".join(c["source"]))
    lab.open(f"{lab.args.run_dir}/{name}.ipynb", len(cells))
    lab.driver.find_element(By.XPATH, "//div[contains(@class,'lm-MenuBar-itemLabel') and text()='Run']").click()
    item = lab.wait("Run All Cells in the Run menu", 10, lambda: next(iter(lab.driver.find_elements(
        By.XPATH, "//li[contains(@class,'lm-Menu-item')][.//div[contains(@class,'lm-Menu-itemLabel') and text()='Run All Cells']]")), None))
    item.click()
    began = time.monotonic()

    def finished():
        failed = lab.js("""
            const out = [];
            document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], '
                + '.jp-NotebookPanel:not(.lm-mod-hidden) .jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]').forEach(e => {
                const t = e.textContent;
                if (/^panic: |^fatal error: |^exit status [1-9]|Error/m.test(t)) out.push(t.slice(0, 400));
            });
            return out;""")
        if failed:
            raise Failure("a cell failed:\n" + "\n".join(failed))
        prompts = lab.js("""
            return [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-CodeCell .jp-InputPrompt')]
                .map(p => p.textContent.trim());""")
        return prompts and all(p[1:-2].isdigit() for p in prompts)
    lab.wait("every cell to finish after Run All", lab.args.run_all_timeout, finished, interval=1)
    took = time.monotonic() - began
    # Saved now, for nbcheck: JupyterLab's autosave (every 120 s) may have last written the
    # notebook before its last cells ran, when Run All takes longer than that.
    lab.save(path)
    closed = lab.closed_explorers(explorers)
    if len(closed) < explorers:
        # Seen once, on a busy machine: after Run All the notebook's panel held none of its cells
        # (a blank page above "Click to add a cell") while the kernel had run them all. The
        # saved notebook is opened again, and its explorers looked for in what it shows then.
        log(f"{name}: {len(closed)} of {explorers} closed explorers in the page after Run All; opening it again")
        lab.open(f"{lab.args.run_dir}/{name}.ipynb", len(cells))
        closed = lab.closed_explorers(explorers)
    log(f"{name}: Run All finished in {took:.1f} s with no button pressed; explorers: {closed}")
    if len(closed) != explorers or not all("a cell below was queued" in c["text"] and c["image"] for c in closed):
        raise Failure(f"want {explorers} explorers closed because cells below were queued, each with its figure as an image; got {closed}")
    first = "document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .sgformer-closed')"
    lab.scroll_through(lambda: lab.js(f"return !!{first}"))
    lab.js(f"{first}.scrollIntoView({{block: 'start'}})")
    time.sleep(0.5)
    lab.screenshot(f"lab-run-all-{name}.png")  # the first explorer, closed, its figure left


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--url", required=True)
    p.add_argument("--token", required=True)
    p.add_argument("--root", required=True, help="the server's root folder")
    p.add_argument("--committed-dir", default="committed", help="the folder of --committed's notebooks, in --root")
    p.add_argument("--run-dir", default="run", help="the folder of --run-all's notebooks, in --root")
    p.add_argument("--out", required=True, help="directory of the screenshots")
    p.add_argument("--chromium", default="/usr/bin/chromium")
    p.add_argument("--chromedriver", default="/usr/bin/chromedriver")
    p.add_argument("--run-all-timeout", type=float, default=300)
    p.add_argument("--committed", nargs="*", default=[], help="notebooks to open as committed")
    p.add_argument("--run-all", nargs="*", default=[], help="notebooks to run with Run All")
    args = p.parse_args()
    os.makedirs(args.out, exist_ok=True)
    lab = Lab(args)
    failed = []
    try:
        for kind, names, check in (("committed", args.committed, committed), ("run-all", args.run_all, run_all)):
            for name in names:
                try:
                    check(lab, name)
                except Failure as e:
                    failed.append(f"{kind} {name}")
                    log(f"{name}: FAILED: {e}")
                    lab.driver.save_screenshot(os.path.join(args.out, f"failure-lab-{name}.png"))
                finally:
                    lab.close_all()
    finally:
        lab.driver.quit()
    if failed:
        log(f"FAILED: {', '.join(failed)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
