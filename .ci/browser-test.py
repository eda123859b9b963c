#!/usr/bin/env python3
"""The dashboard in a real browser: headless Chromium (Debian's `chromium` and `chromium-driver`)
driven over WebDriver, with nothing but the Python standard library.

A host plays a conversation (a JSON-RPC `call_perplexity_computer` on `#ask-user-question`, on a
manual clock); the test opens the dashboard, advances the clock with its button, sees the thread
wait on the question, answers it with the keyboard (Space picks the choice, Tab reaches the
Answer button, Enter presses it), advances again, and checks with `read_thread` that the
conversation moved on and finished. It then opens the journal as a page, filters it and expands
an exchange. A fault added with `POST /_mock/faults` shows in the faults view, counts the
request it touches, and its Remove button removes it. Then the pages behind Computer's URLs: the interaction-required form (filled in
and submitted with the keyboard; the host's next message finishes the task), real files (the
PDF renders in Chromium's viewer, the JPEG decodes, the CSV is text/csv) and the published
website. Screenshots of each view go to the artifact directory.

Usage: browser-test.py MOCK_BINARY ARTIFACT_DIR
"""

import base64
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

TOKEN = "alice-dev-token"
MCP_PATH = "/rest/computer/mcp"
VERSION = "2026-07-28"
ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
# WebDriver key codes.
KEY_TAB, KEY_ENTER = "\ue004", "\ue007"


class Failure(Exception):
    """A check of the test failed; the message says which."""


def http(method, url, body=None, headers=None, timeout=30):
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method=method)
    for name, value in {"content-type": "application/json", **(headers or {})}.items():
        request.add_header(name, value)
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(what, check, timeout=20.0):
    """Polls `check` until it returns something truthy; fails naming `what` after `timeout`."""
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except (Failure, KeyError, ValueError) as e:
            last = e
        time.sleep(0.1)
    raise Failure(f"timed out after {timeout:.0f}s waiting for {what} (last: {last!r})")


class Mock:
    """A mock-server on a free port, manual clock."""

    def __init__(self, binary, log_dir):
        self.out = open(os.path.join(log_dir, "mock.stdout"), "w+")
        self.err = open(os.path.join(log_dir, "mock.stderr"), "w")
        self.process = subprocess.Popen(
            [binary, "--listen", "127.0.0.1:0", "--manual-clock"], stdout=self.out, stderr=self.err
        )

        def listening():
            self.out.seek(0)
            first = self.out.readline()
            if self.process.poll() is not None:
                raise Failure(f"mock-server exited with {self.process.returncode}")
            prefix = "mock-server listening on "
            return first.startswith(prefix) and first.endswith("\n") and first[len(prefix):].strip()

        self.url = wait_until("the mock to listen", listening)

    def call_tool(self, name, arguments, request_id):
        """One stateless 2026-07-28 tools/call, as a host sends it; the tool's structured result."""
        body = {
            "jsonrpc": "2.0",
            "id": request_id,
            "method": "tools/call",
            "params": {
                "_meta": {
                    "io.modelcontextprotocol/protocolVersion": VERSION,
                    "io.modelcontextprotocol/clientCapabilities": {},
                },
                "name": name,
                "arguments": arguments,
            },
        }
        status, text = http("POST", self.url + MCP_PATH, body, {
            "authorization": f"Bearer {TOKEN}",
            "accept": "application/json, text/event-stream",
            "mcp-protocol-version": VERSION,
            "mcp-method": "tools/call",
            "mcp-name": name,
        }, timeout=120)
        if status != 200:
            raise Failure(f"tools/call {name} answered {status}: {text[:400]}")
        answer = json.loads(text)
        if "result" not in answer:
            raise Failure(f"tools/call {name} failed: {text[:400]}")
        return answer["result"]["structuredContent"]

    def advance(self, ms):
        """Moves the manual clock on (`POST /_mock/clock/advance`)."""
        status, text = http("POST", self.url + "/_mock/clock/advance", {"ms": ms})
        if status != 200:
            raise Failure(f"clock/advance answered {status}: {text[:300]}")

    def call_while_advancing(self, name, arguments, request_id):
        """A tools/call whose answer needs virtual time: the clock advances until it returns."""
        done = {}

        def call():
            try:
                done["result"] = self.call_tool(name, arguments, request_id)
            except Exception as e:  # reported below
                done["error"] = e

        caller = threading.Thread(target=call, daemon=True)
        caller.start()
        deadline = time.monotonic() + 60
        while caller.is_alive() and time.monotonic() < deadline:
            self.advance(60_000)
            caller.join(timeout=0.2)
        if "error" in done:
            raise Failure(f"tools/call {name} failed: {done['error']}")
        if "result" not in done:
            raise Failure(f"tools/call {name} did not return while the clock advanced")
        return done["result"]

    def stop(self):
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()


class Browser:
    """Headless Chromium behind chromedriver, spoken to in W3C WebDriver."""

    def __init__(self, log_dir):
        self.port = free_port()
        self.log = open(os.path.join(log_dir, "chromedriver.log"), "w")
        self.driver = subprocess.Popen(
            [shutil.which("chromedriver") or "/usr/bin/chromedriver", f"--port={self.port}"],
            stdout=self.log, stderr=subprocess.STDOUT,
        )
        self.base = f"http://127.0.0.1:{self.port}"
        wait_until("chromedriver to answer", lambda: self._ready())
        self.profile = tempfile.mkdtemp(prefix="dashboard-browser-")
        args = ["--headless=new", "--disable-gpu", "--window-size=1280,1800",
                f"--user-data-dir={self.profile}"]
        # As root, Chromium refuses to start without --no-sandbox.
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--no-sandbox")
        binary = shutil.which("chromium") or "/usr/bin/chromium"
        session = self._raw("POST", "/session", {"capabilities": {"alwaysMatch": {
            "browserName": "chrome",
            "goog:chromeOptions": {"binary": binary, "args": args},
        }}})
        self.session = f"/session/{session['sessionId']}"

    def _ready(self):
        try:
            status, text = http("GET", self.base + "/status", timeout=2)
        except OSError:
            return False
        return status == 200 and json.loads(text)["value"].get("ready")

    def _raw(self, method, path, body=None):
        status, text = http(method, self.base + path, body, timeout=60)
        value = json.loads(text).get("value") if text else None
        if status != 200:
            raise Failure(f"WebDriver {method} {path} answered {status}: {text[:400]}")
        return value

    def cmd(self, method, path, body=None):
        return self._raw(method, self.session + path, body)

    def open(self, url):
        self.cmd("POST", "/url", {"url": url})

    def find(self, css):
        return self.cmd("POST", "/element", {"using": "css selector", "value": css})[ELEMENT]

    def find_all(self, css):
        return [e[ELEMENT] for e in self.cmd("POST", "/elements", {"using": "css selector", "value": css})]

    def text(self, css):
        return self.cmd("GET", f"/element/{self.find(css)}/text")

    def click(self, css):
        self.cmd("POST", f"/element/{self.find(css)}/click", {})

    def type_into(self, css, text):
        self.cmd("POST", f"/element/{self.find(css)}/value", {"text": text})

    def script(self, source, *args):
        return self.cmd("POST", "/execute/sync", {"script": source, "args": list(args)})

    def keys(self, *keys):
        """Presses keys on whatever has the focus, as a person at the keyboard would."""
        actions = []
        for key in keys:
            actions += [{"type": "keyDown", "value": key}, {"type": "keyUp", "value": key}]
        self.cmd("POST", "/actions", {"actions": [{"type": "key", "id": "keyboard", "actions": actions}]})

    def screenshot(self, path):
        with open(path, "wb") as f:
            f.write(base64.b64decode(self.cmd("GET", "/screenshot")))
        print(f"  screenshot {path}")

    def quit(self):
        try:
            self.cmd("DELETE", "")
        except (Failure, OSError):
            pass
        self.driver.terminate()
        try:
            self.driver.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.driver.kill()
        shutil.rmtree(self.profile, ignore_errors=True)


def card(thread_id):
    return f'article.thread[data-thread="{thread_id}"]'


def run(mock, browser, shots):
    # The host starts a conversation; on the manual clock its call waits for the question.
    started = {}

    def host_call():
        try:
            started["result"] = mock.call_tool(
                "call_perplexity_computer", {"message": "#ask-user-question Build the sales report"}, 1
            )
        except Exception as e:  # reported by the main thread
            started["error"] = e

    host = threading.Thread(target=host_call, daemon=True)
    host.start()

    browser.open(mock.url + "/")
    wait_until("the dashboard to show the mock as live", lambda: browser.text("#live") == "live")
    thread_id = wait_until(
        "the host's thread on the dashboard",
        lambda: browser.script(
            "const t = document.querySelector('article.thread'); return t && t.dataset.thread;"
        ),
    )
    print(f"  thread {thread_id} is on the dashboard")
    wait_until("the thread to be working", lambda: browser.text(card(thread_id) + " .task-status") == "working")
    browser.screenshot(os.path.join(shots, "01-dashboard-thread-working.png"))

    # The clock's button moves virtual time past the 20 s step: the question is asked.
    browser.click('button[data-advance="60000"]')
    host.join(timeout=30)
    if "error" in started:
        raise Failure(f"the host's call failed: {started['error']}")
    result = started.get("result") or {}
    if result.get("event") != "ask_user_question" or result.get("thread_id") != thread_id:
        raise Failure(f"the host's call should end on ask_user_question for {thread_id}: {result}")
    wait_until("the thread to wait on the question",
               lambda: browser.text(card(thread_id) + " .task-status") == "input_required")
    question = browser.text(card(thread_id) + " .wait[data-kind=question] legend")
    if question != "Which format should I use?":
        raise Failure(f"the answer form should ask the scenario's question, not {question!r}")
    browser.screenshot(os.path.join(shots, "02-thread-waits-on-question.png"))

    # Answer with the keyboard: focus the first choice, Space picks it, Tab reaches Answer,
    # Enter presses it.
    browser.script(
        "document.querySelector(arguments[0]).focus();",
        card(thread_id) + ' .answer-form input[value="PDF"]',
    )
    browser.keys(" ", KEY_TAB, KEY_ENTER)
    wait_until("the dashboard to report the answer as sent",
               lambda: "Sent" in browser.text("#notice") and browser.text("#notice"))
    wait_until("the thread to work again after the answer",
               lambda: browser.text(card(thread_id) + " .task-status") == "working")

    browser.click('button[data-advance="60000"]')
    wait_until("the thread to complete",
               lambda: browser.text(card(thread_id) + " .task-status") == "completed")
    browser.screenshot(os.path.join(shots, "03-thread-answered-and-completed.png"))

    # The host sees the conversation moved on: read_thread has the answer and the report.
    transcript = mock.call_tool("read_thread", {"thread_id": thread_id}, 2)
    text = json.dumps(transcript)
    if "Which format should I use?: PDF" not in text:
        raise Failure(f"read_thread should show the answer given on the dashboard: {text[:800]}")
    if "The sales report is ready" not in text:
        raise Failure(f"read_thread should show the finished report: {text[:800]}")
    print("  read_thread shows the dashboard's answer and the finished report")

    # The journal as a page: filtered to the MCP endpoint, one exchange opened.
    browser.open(mock.url + "/_mock/journal?path=" + MCP_PATH)
    wait_until("the journal page to list MCP exchanges",
               lambda: len(browser.find_all("details.exchange")) >= 2)
    paths = browser.script(
        "return [...document.querySelectorAll('details.exchange summary')].map(s => s.textContent);"
    )
    if not all(MCP_PATH in p for p in paths):
        raise Failure(f"the journal filter should keep only {MCP_PATH}: {paths}")
    if browser.script("return document.querySelector('#threads').offsetParent !== null;"):
        raise Failure("the journal page should show only the journal")
    browser.screenshot(os.path.join(shots, "04-journal-page.png"))
    browser.script("document.querySelector('details.exchange summary').focus();")
    browser.keys(KEY_ENTER)
    wait_until("the first exchange to open",
               lambda: browser.script("return document.querySelector('details.exchange').open;"))
    body = browser.text("details.exchange pre")
    if "authorization" not in body.lower():
        raise Failure(f"an opened exchange should show its request headers: {body[:300]}")
    browser.screenshot(os.path.join(shots, "05-journal-exchange-open.png"))

    # A tool still gets JSON lines from the same URL.
    status, lines = http("GET", mock.url + "/_mock/journal?path=" + MCP_PATH, headers={"accept": "*/*"})
    if status != 200 or not all(json.loads(line)["path"] == MCP_PATH for line in lines.splitlines()):
        raise Failure(f"GET /_mock/journal without text/html should stay JSON lines: {lines[:300]}")

    # The accounts view, with its top-up and reset buttons.
    browser.open(mock.url + "/_mock#accounts")
    wait_until("the accounts to show", lambda: len(browser.find_all("#accounts-body tr")) >= 2)
    browser.screenshot(os.path.join(shots, "06-accounts.png"))

    faults_view(mock, browser, shots)
    form_page(mock, browser, shots)
    real_files(mock, browser, shots)


def faults_view(mock, browser, shots):
    """A fault added over the control API is listed on the page; its Remove button removes it."""
    status, text = http("POST", mock.url + "/_mock/faults",
                        {"spec": "status=503,retry-after=2s,times=3,path=/search"})
    if status != 201:
        raise Failure(f"POST /_mock/faults answered {status}: {text[:300]}")
    fault_id = json.loads(text)["faults"][0]["id"]
    row = f'#faults-body tr[data-fault="{fault_id}"]'
    browser.open(mock.url + "/_mock#faults")
    wait_until(f"{fault_id} to be listed", lambda: len(browser.find_all(row)) == 1)
    spec = browser.text(row + " .fault-spec")
    if spec != "status=503,retry-after=2s,times=3,path=/search":
        raise Failure(f"the faults view should show the spec as added, not {spec!r}")
    if browser.text(row + " .fault-remaining") != "3" or browser.text(row + " .fault-hits") != "0":
        raise Failure("the faults view should show 0 hits and 3 remaining for a fresh fault")
    # A request it touches shows as a hit within a poll.
    status, _ = http("POST", mock.url + "/search", {"query": "solar"},
                     {"authorization": f"Bearer {TOKEN}"})
    if status != 503:
        raise Failure(f"the fault should answer /search with 503, not {status}")
    wait_until("the hit to show", lambda: browser.text(row + " .fault-hits") == "1")
    browser.screenshot(os.path.join(shots, "06b-faults-in-force.png"))
    browser.click(row + " button.remove-fault")
    wait_until("the fault to be removed",
               lambda: not browser.find_all(row) and "Removed 1 fault" in browser.text("#notice"))
    status, text = http("GET", mock.url + "/_mock/faults")
    if json.loads(text)["faults"]:
        raise Failure(f"Remove should have removed {fault_id}: {text[:300]}")
    print(f"  {fault_id} was listed on the dashboard, counted its hit and was removed")


def form_page(mock, browser, shots):
    """The form only Perplexity shows: built from the scenario, submitted with the keyboard."""
    result = mock.call_while_advancing(
        "call_perplexity_computer", {"message": "#interaction-required Book the hotel in Rome"}, 10
    )
    if result.get("event") != "interaction_required":
        raise Failure(f"#interaction-required should end on interaction_required: {result}")
    thread_id, url = result["thread_id"], result["interactive"]["url"]
    if not url.startswith(mock.url + "/"):
        raise Failure(f"the form's URL should point back at the mock: {url}")
    browser.open(url)
    if browser.text("h1") != "Enter payment details":
        raise Failure(f"the form page should carry the scenario's title, not {browser.text('h1')!r}")
    label = browser.script("return document.querySelector('label[for=details]').textContent;")
    if label != "Enter payment details":
        raise Failure(f"the form's field should be labelled, not {label!r}")
    browser.script("document.querySelector('#details').focus();")
    browser.keys(*"4242 4242 4242 4242")
    browser.screenshot(os.path.join(shots, "07-form-page.png"))
    browser.keys(KEY_TAB, KEY_ENTER)
    wait_until("the form to say it was submitted", lambda: "submitted" in browser.text("h1"))
    browser.screenshot(os.path.join(shots, "08-form-submitted.png"))
    continued = mock.call_while_advancing(
        "call_perplexity_computer",
        {"message": "I entered the card details", "thread_id": thread_id}, 11,
    )
    if continued.get("task_status") != "completed":
        raise Failure(f"after the form, the host's next message should finish the task: {continued}")
    print("  the form page was submitted with the keyboard and the task finished")


def real_files(mock, browser, shots):
    """Files of their type: the PDF renders, the JPEG decodes, the published site opens."""
    result = mock.call_while_advancing(
        "call_perplexity_computer", {"message": "#files Summarize the survey"}, 20
    )
    files = {f["filename"]: f for f in result.get("files", [])}
    if not {"survey-report.pdf", "responses.csv", "site.html"} <= files.keys():
        raise Failure(f"#files should hand out the report, the CSV and the site: {result}")
    status, csv = http("GET", files["responses.csv"]["url"], headers={"accept": "*/*"})
    if status != 200 or not csv.startswith("respondent,score"):
        raise Failure(f"the CSV should download as written: {status} {csv[:200]}")

    browser.open(files["survey-report.pdf"]["url"])
    # Chromium's viewer draws the page out of the document's reach; the screenshot shows it.
    kind = wait_until("Chromium to open the PDF", lambda: browser.script(
        "return document.contentType === 'application/pdf' ? document.contentType : null;"))
    print(f"  the report opens in Chromium as {kind}")
    browser.screenshot(os.path.join(shots, "09-pdf-report.png"))

    # The published website: its published_url is on the mock and opens as a page.
    thread_id = result["thread_id"]
    assets = mock.call_tool("list_thread_assets", {"thread_id": thread_id}, 21)["assets"]
    site = next(a for a in assets if a["filename"] == "site.html")
    published = site["published_url"]
    if not published.startswith(mock.url + "/_mock/sites/"):
        raise Failure(f"published_url should point back at the mock: {published}")
    if published not in result.get("text", ""):
        raise Failure(f"the answer should name the site at its address on the mock: {result['text']}")
    browser.open(published)
    if browser.text("h1") != "Survey results":
        raise Failure(f"the published site should show its page, not {browser.text('h1')!r}")
    browser.screenshot(os.path.join(shots, "10-published-site.png"))

    photos = mock.call_while_advancing(
        "call_perplexity_computer", {"message": "#thread-assets Collect the photos"}, 22
    )
    photo = photos["files"][0]
    browser.open(photo["url"])
    width = wait_until("Chromium to decode the JPEG", lambda: browser.script(
        "const i = document.images[0]; return i && i.complete && i.naturalWidth;"))
    if photo.get("media_type") != "image/jpeg" or width != 8:
        raise Failure(f"the photo should be an 8-pixel JPEG: {photo}, width {width}")
    print(f"  {photo['filename']} decodes in Chromium ({width} px wide)")


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    binary, artifacts = sys.argv[1], sys.argv[2]
    os.makedirs(artifacts, exist_ok=True)
    mock = Mock(binary, artifacts)
    browser = None
    try:
        browser = Browser(artifacts)
        run(mock, browser, artifacts)
    except Failure as e:
        if browser is not None:
            try:
                browser.screenshot(os.path.join(artifacts, "failure.png"))
                with open(os.path.join(artifacts, "failure.html"), "w") as f:
                    f.write(browser.script("return document.documentElement.outerHTML;"))
            except (Failure, OSError):
                pass
        print(f"browser test FAILED: {e} (screenshots and logs in {artifacts})", file=sys.stderr)
        return 1
    finally:
        if browser is not None:
            browser.quit()
        mock.stop()
    print(f"browser test passed (screenshots in {artifacts})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
