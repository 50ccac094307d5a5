#!/usr/bin/env python3
"""Opens pages of `bcast run --html` / `bcast matrix --html` in headless Chromium and checks what
they draw: the heat map's cells against the page's own data, the case list, that the filters
narrow it, that the page asks the network for nothing and throws no error; takes screenshots;
and, for a large run (`--large`), that it is ready and filters within generous bounds.

    scripts/check_html_report.py [--run PAGE] [--matrix PAGE] [--large PAGE] [--screenshots DIR]

Only the standard library: Chromium is driven over the DevTools protocol on a pipe
(--remote-debugging-pipe: JSON messages ending in a NUL byte on file descriptors 3 and 4).
Chromium is Debian's `chromium` (or --chromium PATH). Prints what it measured; exits 1 with
the first check that failed.
"""

import argparse
import base64
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

# The bounds of the large page (25,744 cases, ~5,700 failures). On the 2-core machine it was
# written on, shared with other builds (load 8 to 18), the page was ready 0.5 to 1.4 s after
# navigation and a filter took 0.05 to 0.4 s (the checker prints its timings). The bounds are
# 20 and 12 times the slowest of those, so that a loaded CI machine does not fail them; a page
# that draws a node per case is caught by ELEMENT_BOUND, whatever the machine's speed.
READY_BOUND_MS = 30000
FILTER_BOUND_MS = 5000
# No more elements than a page of cases and the heat map need, whatever the run's size.
ELEMENT_BOUND = 20000
# How long any single step may wait for Chromium.
STEP_TIMEOUT_S = 120

FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--disable-default-apps", "--mute-audio", "--hide-scrollbars",
]


class Failed(Exception):
    pass


def check(condition, what):
    if not condition:
        raise Failed(what)


class Browser:
    """Headless Chromium on a DevTools pipe."""

    def __init__(self, binary):
        self.profile = tempfile.mkdtemp(prefix="bcast-chromium-")
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def child_fds():
            a, b = os.dup(to_chrome_r), os.dup(from_chrome_w)
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [binary, *FLAGS, "--remote-debugging-pipe", f"--user-data-dir={self.profile}", "about:blank"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            pass_fds=(3, 4), preexec_fn=child_fds)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer = b""
        self.next_id = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Failed("Chromium did not answer in time")
            ready, _, _ = select.select([self.from_chrome], [], [], left)
            if ready:
                chunk = os.read(self.from_chrome, 1 << 20)
                if not chunk:
                    raise Failed("Chromium closed its DevTools pipe (did it start?)")
                self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, params=None, session=None):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise Failed(f"{method}: {reply['error']}")
                return reply["result"]
            self.events.append(reply)

    def wait_event(self, method, session):
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def close(self):
        try:
            self.call("Browser.close")
            self.proc.wait(timeout=30)
        except (Failed, OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()
        for fd in (self.to_chrome, self.from_chrome):
            try:
                os.close(fd)
            except OSError:
                pass
        shutil.rmtree(self.profile, ignore_errors=True)


class Page:
    """One tab, with the page's errors and network requests collected."""

    def __init__(self, browser, width=1280, height=900):
        self.b = browser
        target = browser.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        for domain in ("Page", "Runtime", "Network", "Log"):
            self.call(f"{domain}.enable")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})

    def call(self, method, params=None):
        return self.b.call(method, params, self.session)

    def open(self, path):
        url = "file://" + os.path.abspath(path)
        self.call("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", self.session)
        deadline = time.monotonic() + STEP_TIMEOUT_S
        while not self.eval("performance.getEntriesByName('bcast-report-ready').length"):
            check(time.monotonic() < deadline, f"{path}: the page never said it was ready")
            time.sleep(0.05)
        self.url = url

    def eval(self, expression):
        reply = self.call("Runtime.evaluate", {"expression": expression, "returnByValue": True, "awaitPromise": True})
        if "exceptionDetails" in reply:
            raise Failed(f"evaluating {expression[:80]!r}: {reply['exceptionDetails']}")
        return reply["result"].get("value")

    def problems(self):
        """Errors the page threw or logged, and every request for something but the page."""
        found = []
        for e in self.b.events:
            if e.get("sessionId") != self.session:
                continue
            method, params = e.get("method"), e.get("params", {})
            if method == "Runtime.exceptionThrown":
                found.append("exception: " + json.dumps(params.get("exceptionDetails"))[:500])
            elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
                found.append("console error: " + params["entry"].get("text", ""))
            elif method == "Runtime.consoleAPICalled" and params.get("type") == "error":
                found.append("console.error: " + json.dumps(params.get("args"))[:500])
            elif method == "Network.requestWillBeSent":
                url = params.get("request", {}).get("url", "")
                if not (url.startswith("file://") and url.split("#")[0] == self.url.split("#")[0]):
                    found.append("network request: " + url[:200])
        return found

    def screenshot(self, path):
        height = self.eval("Math.min(document.documentElement.scrollHeight, 2400)")
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": height, "deviceScaleFactor": 1, "mobile": False})
        png = self.call("Page.captureScreenshot", {"format": "png"})["data"]
        with open(path, "wb") as f:
            f.write(base64.b64decode(png))
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": 1280, "height": 900, "deviceScaleFactor": 1, "mobile": False})


def page_data(path):
    """The data the page embeds (its `report-data` element)."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', text, re.S)
    check(m, f"{path}: no report-data element")
    return json.loads(m.group(1))


def expected_cells(backend, levels):
    """The texts of the op heat map's cells, row by row, as the data says: all ops, then each op."""
    def text(cell):
        if cell is None:
            return "—"
        return "n/a" if cell[1] == 0 else cell[2]
    rows = [backend] + backend["ops"]
    return [[text(r["all"])] + [text(c) for c in r["cells"]] for r in rows]


DRAWN_CELLS = """(() => Array.from(document.querySelectorAll('table.heat[data-backend] tbody tr'))
  .map(tr => Array.from(tr.querySelectorAll('.rate')).map(c => c.textContent)))()"""

LIST = """(() => ({
  matched: +document.getElementById('cases').dataset.matched,
  shown: Array.from(document.querySelectorAll('#cases .case')).map(a => a.dataset.case),
  diffs: Array.from(document.querySelectorAll('#cases .case')).map(a => a.querySelectorAll('table.diffs tbody tr').length),
}))()"""


def set_filter(page, element, value, event):
    """Sets a filter as a user would (value, then its event), and measures in the page the time
    until the list is drawn and laid out."""
    return page.eval(f"""(() => {{
  const e = document.getElementById({json.dumps(element)});
  const t0 = performance.now();
  e.value = {json.dumps(value)};
  e.dispatchEvent(new Event({json.dumps(event)}, {{bubbles: true}}));
  document.body.getBoundingClientRect();
  const ms = performance.now() - t0;
  return Object.assign({LIST}, {{ms}});
}})()""")


def failing(data, i, bit):
    """Whether case i is kept with level `bit` chosen and status `failures`."""
    run = data["run"]
    return (run["applies"][i] & bit) and (run["failed"][i] & bit)


def check_run(page, path, shots):
    data = page_data(path)
    run, backend = data["run"], data["backends"][0]
    page.open(path)
    timings = {"ready_ms": page.eval("performance.getEntriesByName('bcast-report-ready')[0].startTime")}

    # The heat map: one row for all ops and one per op, each cell as the data says.
    drawn = page.eval(DRAWN_CELLS)
    want = expected_cells(backend, data["levels"])
    check(len(drawn) == len(backend["ops"]) + 1, f"heat map rows: {len(drawn)}, ops {len(backend['ops'])}")
    check(drawn == want, f"heat map cells differ from the data: {drawn[:3]} vs {want[:3]}")
    title = page.eval("document.querySelector('h1').textContent")
    check(backend["name"] in title, f"heading {title!r} does not name the backend")
    summary = page.eval("document.querySelector('.summary-line').textContent")
    check(run["summary_line"] in summary and run["level_line"] in summary, f"summary: {summary!r}")

    # The list opens on the failures, a page of them, each with its differences.
    failures = run["failures"]
    listed = page.eval(LIST)
    check(listed["matched"] == len(failures), f"{listed['matched']} cases listed, {len(failures)} failures")
    first = [run["id"][f["case"]] for f in failures[:50]]
    check(listed["shown"] == first, f"the first page of failures: {listed['shown'][:3]} vs {first[:3]}")
    check(listed["diffs"] == [len(f["mismatches"]) for f in failures[:50]], "difference rows differ from the data")
    if failures:
        repro = page.eval("""(() => { const d = document.querySelector('#cases details.repro');
            d.open = true; return new Promise(r => setTimeout(() => r(d.querySelector('pre').textContent), 0)); })()""")
        check(repro == failures[0]["repro"], "the first failure's repro is not the data's")

    # Filters narrow the list: by op, by level, by id, and a heat-map cell sets op and level.
    op_failures = {}
    for f in failures:
        op_failures[run["op"][f["case"]]] = op_failures.get(run["op"][f["case"]], 0) + 1
    if len(op_failures) > 1:
        op = min(op_failures, key=lambda k: (op_failures[k], k))
        got = set_filter(page, "filter-op", run["ops"][op], "change")
        check(got["matched"] == op_failures[op] < len(failures),
              f"op {run['ops'][op]}: {got['matched']} listed, {op_failures[op]} expected")
        timings["op_filter_ms"] = got["ms"]
        set_filter(page, "filter-op", "", "change")
    for k, level in enumerate(data["levels"]):
        n = sum(1 for f in failures if failing(data, f["case"], 1 << k))
        got = set_filter(page, "filter-level", str(k), "change")
        check(got["matched"] == n, f"level {level}: {got['matched']} listed, {n} expected")
        timings.setdefault("level_filter_ms", got["ms"])
    set_filter(page, "filter-level", "-1", "change")
    if failures:
        target = run["id"][failures[-1]["case"]]
        got = set_filter(page, "filter-id", target, "input")
        n = sum(1 for f in failures if target.lower() in run["id"][f["case"]].lower())
        check(got["matched"] == n and target in got["shown"], f"search {target!r}: {got['matched']} listed")
        timings["search_ms"] = got["ms"]
        set_filter(page, "filter-id", "", "input")
        # Typed through the keyboard path too.
        page.eval("document.getElementById('filter-id').focus()")
        page.call("Input.insertText", {"text": target})
        typed = page.eval(LIST)
        check(typed["matched"] == n, f"typing {target!r}: {typed['matched']} listed")
        set_filter(page, "filter-id", "", "input")
    got = set_filter(page, "filter-status", "all", "change")
    check(got["matched"] == len(run["id"]), f"status all: {got['matched']} of {len(run['id'])}")
    got = set_filter(page, "filter-status", "pass", "change")
    check(got["matched"] == run["counts"]["pass"], f"status pass: {got['matched']}")
    bf = sum(1 for f in failures if f["backend_failure"])
    got = set_filter(page, "filter-status", "backend", "change")
    check(got["matched"] == bf, f"status backend failure: {got['matched']} of {bf}")
    set_filter(page, "filter-status", "failures", "change")
    cells = page.eval("""(() => Array.from(document.querySelectorAll('table.heat tbody tr.op button.rate'))
        .map((b, i) => [i, b.title]))()""")
    if cells and failures:
        pick = page.eval("""(() => { const rows = document.querySelectorAll('table.heat tbody tr.op');
          for (const tr of rows) { const bs = tr.querySelectorAll('td.cell'); for (let k = 1; k < bs.length; k++) {
            const b = bs[k].querySelector('button.rate');
            if (b && +b.dataset.passed < +b.dataset.applicable) { b.click();
              return {op: tr.querySelector('td.name').textContent, level: k - 1}; } } } return null; })()""")
        if pick:
            got = page.eval(LIST)
            op = run["ops"].index(pick["op"])
            n = sum(1 for f in failures if run["op"][f["case"]] == op and failing(data, f["case"], 1 << pick["level"]))
            check(got["matched"] == n and n > 0, f"the heat-map cell {pick}: {got['matched']} listed, {n} expected")
            state = page.eval("[document.getElementById('filter-op').value, location.hash]")
            check(state[0] == pick["op"] and "level=" in state[1], f"the cell did not set the filters: {state}")
            page.eval("document.querySelector('.filters button').click()")
    check(page.eval("document.querySelectorAll('img, iframe, object, embed').length") == 0, "markup from the data")
    check(page.eval("typeof window.bcastPwned") == "undefined", "a script from the data ran")
    timings["elements"] = page.eval("document.getElementsByTagName('*').length")
    check(timings["elements"] < ELEMENT_BOUND, f"{timings['elements']} elements in the page")
    if shots:
        page.eval("window.scrollTo(0, 0)")
        page.screenshot(os.path.join(shots, os.path.basename(path).rsplit(".", 1)[0] + ".png"))
    problems = page.problems()
    check(not problems, f"{path}: " + "; ".join(problems[:5]))
    return timings


def check_matrix(page, path, shots):
    data = page_data(path)
    page.open(path)
    rows = page.eval("""(() => Array.from(document.querySelectorAll('table.matrix tbody tr'))
        .map(tr => Array.from(tr.querySelectorAll('.rate')).map(c => c.textContent)))()""")
    check(len(rows) == len(data["backends"]), f"matrix rows {len(rows)}")
    for b, drawn in zip(data["backends"], rows):
        check(drawn == expected_cells(b, data["levels"])[0], f"{b['name']}: {drawn}")
    for k, b in enumerate(data["backends"]):
        page.eval(f"document.querySelectorAll('.tabs button')[{k}].click()")
        check(page.eval(DRAWN_CELLS) == expected_cells(b, data["levels"]), f"{b['name']}: op heat map")
    if shots:
        page.screenshot(os.path.join(shots, os.path.basename(path).rsplit(".", 1)[0] + ".png"))
    problems = page.problems()
    check(not problems, f"{path}: " + "; ".join(problems[:5]))
    return {}


def check_large(page, path, shots):
    data = page_data(path)
    n, failures = len(data["run"]["id"]), len(data["run"]["failures"])
    check(n >= 25000 and failures >= 5000, f"{path}: {n} cases, {failures} failures: not a large run")
    timings = check_run(page, path, shots)
    # hostile.py echo-wrong's messages carry markup: on the page it is text.
    shown = page.eval("document.getElementById('cases').textContent")
    check("<img src=x" in shown, "the large run's first failures show no markup as text")
    check(timings["ready_ms"] < READY_BOUND_MS, f"ready after {timings['ready_ms']:.0f} ms")
    for k in ("op_filter_ms", "level_filter_ms", "search_ms"):
        check(timings.get(k, 0) < FILTER_BOUND_MS, f"{k}: {timings.get(k):.0f} ms")
    # Every case reachable: the last page of `all`.
    got = set_filter(page, "filter-status", "all", "change")
    pages = (got["matched"] + 49) // 50
    page.eval(f"""new Promise(r => {{ addEventListener('hashchange', () => r(0), {{once: true}});
        location.hash = 'status=all&page={pages}'; }})""")
    last = page.eval(LIST)
    check(last["shown"] and last["shown"][-1] == data["run"]["id"][-1], "the last case is not on the last page")
    return timings


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", action="append", default=[], help="a page of `bcast run --html`")
    ap.add_argument("--matrix", action="append", default=[], help="a page of `bcast matrix --html`")
    ap.add_argument("--large", action="append", default=[],
                    help="a page of a run of at least 25,000 cases and 5,000 failures: also timed")
    ap.add_argument("--screenshots", help="a directory for a screenshot of each page")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    args = ap.parse_args()
    if args.screenshots:
        os.makedirs(args.screenshots, exist_ok=True)
    browser = Browser(args.chromium)
    try:
        for kind, paths, checker in (("run", args.run, check_run), ("matrix", args.matrix, check_matrix),
                                     ("large", args.large, check_large)):
            for path in paths:
                page = Page(browser)
                timings = checker(page, path, args.screenshots)
                size = os.path.getsize(path)
                shown = ", ".join(f"{k} {v:.0f}" if isinstance(v, float) else f"{k} {v}" for k, v in timings.items())
                print(f"ok {kind} {path}: {size / 1e6:.2f} MB" + (f"; {shown}" if shown else ""))
    except Failed as e:
        print(f"FAIL: {e}", file=sys.stderr)
        return 1
    finally:
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
