#!/usr/bin/env python3
"""The live page end to end, in headless Chromium.

Usage: live_page_test.py FLYSIM_BINARY TEST_DATA_DIR ARTIFACT_DIR [--fill-s=SECONDS]

Starts `flysim serve` on the reference network (tests/data/net2000, its 21 stimulated
neurons Poisson-driven), opens the page in headless Chromium (Debian's chromium,
chromium-driver and python3-selenium), and, through the page only:
  - waits until spikes appear in the raster;
  - swaps the engine (to the CPU pool with another thread count: CI has no GPU) and
    checks that the engine shown changed and that the journal recorded the swap;
  - changes the stimulus rate (shown, and journaled), takes a checkpoint, pauses and
    resumes;
  - keeps a screenshot, ARTIFACT_DIR/live-page.png (--fill-s: first wait until that much
    time is simulated, for a fuller picture);
  - stops the service and checks that it exits with 0.
Every wait is for an event (an attribute, a text, a file line, the process's end), with
a deadline. Exit code 0: passed; 1: failed; 77 (ctest: skipped) with the reason on
stdout where Chromium cannot start.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

SKIP = 77
DEADLINE_S = 60


def skip(reason):
    print("SKIPPED: " + reason)
    sys.exit(SKIP)


try:
    from selenium import webdriver
    from selenium.common.exceptions import TimeoutException, WebDriverException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError as e:
    skip("python3-selenium is not installed for %s (%s); scripts/setup.sh installs it" % (sys.executable, e))


def start_chromium():
    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver")
    if not browser or not driver:
        skip("chromium or chromedriver is not installed; scripts/setup.sh installs them")
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,1500", "--hide-scrollbars"):
        options.add_argument(argument)
    try:
        return webdriver.Chrome(service=Service(executable_path=driver), options=options)
    except WebDriverException as e:
        skip("Chromium cannot start here: " + (e.msg or str(e)).strip().splitlines()[0])


class Service_:
    """flysim serve in the background, on the reference network, in a scratch folder."""

    def __init__(self, binary, data, work):
        self.work = work
        self.journal = os.path.join(work, "journal.jsonl")
        self.out = os.path.join(work, "serve.out")
        self.err = os.path.join(work, "serve.err")
        net = os.path.join(data, "net2000")
        args = [binary, "serve", "--network.neurons=" + os.path.join(net, "neurons.csv"),
                "--network.connectivity=" + os.path.join(net, "connectivity.csv"),
                "--stimulus.ids=" + os.path.join(net, "stimulated.txt"), "--network.cache-dir=" + os.path.join(work, "cache"),
                "--control.port=0", "--engine.threads=2", "--output.spikes=" + os.path.join(work, "live.csv"),
                "--output.journal=" + self.journal, "--checkpoint.dir=" + os.path.join(work, "ck"), "--status.window-s=1"]
        with open(self.out, "w") as out, open(self.err, "w") as err:
            self.process = subprocess.Popen(args, stdout=out, stderr=err)
        self.url = "http://127.0.0.1:%s/" % self.port()

    def port(self):
        marker = "control API on http://"
        deadline = time.time() + DEADLINE_S
        while time.time() < deadline:
            for line in open(self.out):
                if marker in line:
                    return line.strip().rsplit(":", 1)[1]
            if self.process.poll() is not None:
                raise AssertionError("flysim serve ended before its control API was up:\n" + self.log())
            time.sleep(0.05)
        raise AssertionError("no control API line from flysim serve within %d s" % DEADLINE_S)

    def commands(self):
        """The journal's commands (every line after the options line), as dicts."""
        lines = [json.loads(l) for l in open(self.journal) if l.strip()]
        return lines[1:]

    def log(self):
        return open(self.err).read()[-4000:]


def text(driver, element_id):
    return driver.find_element(By.ID, element_id).text


def wait(driver, what, condition):
    try:
        return WebDriverWait(driver, DEADLINE_S, poll_frequency=0.05).until(lambda d: condition(d))
    except TimeoutException:
        raise AssertionError("the page did not show %s within %d s; message: %r, state: %r" %
                             (what, DEADLINE_S, text(driver, "message"), text(driver, "state")))


def click_and_wait_for_reply(driver, button_id, expect_ok=True):
    """Clicks a control and waits for the service's reply shown under the controls."""
    message = driver.find_element(By.ID, "message")
    before = int(message.get_attribute("data-count"))
    driver.find_element(By.ID, button_id).click()
    wait(driver, "the reply to " + button_id, lambda d: int(message.get_attribute("data-count")) > before)
    if expect_ok and "ok" not in message.get_attribute("class").split():
        raise AssertionError("%s was refused: %s" % (button_id, message.text))
    return message.text


def type_into(driver, element_id, value):
    field = driver.find_element(By.ID, element_id)
    field.clear()
    field.send_keys(value)


def journaled(service, action, **fields):
    """True when the journal holds a command `action` with these field values."""
    for entry in service.commands():
        command = entry.get("command", {})
        if isinstance(command, str):
            command = json.loads(command)
        body = command.get("body", {})
        if command.get("action") == action and all(body.get(k) == v for k, v in fields.items()):
            return True
    return False


def wait_until_simulated(driver, seconds):
    def simulated(d):
        shown = text(d, "simulated")
        return shown.endswith(" s") and float(shown[:-2].replace(",", "")) >= seconds
    wait(driver, "%g s simulated" % seconds, simulated)


def run(binary, data, artifacts, fill_s):
    driver = start_chromium()
    work = tempfile.mkdtemp(prefix="flysim-page-")
    service = None
    try:
        service = Service_(binary, data, work)
        driver.get(service.url)
        raster = driver.find_element(By.ID, "raster")
        wait(driver, "spikes in the raster", lambda d: int(raster.get_attribute("data-spikes")) > 0)
        wait(driver, "the engine", lambda d: text(d, "engine") == "cpu pool, 2 threads")
        # Host cores per role: a table with a row per role and the process, not a paragraph.
        wait(driver, "the host cores per role", lambda d: "process" in text(d, "host-cores-table"))
        roles = text(driver, "host-cores-table")
        if "engine" not in roles or "at_s" in text(driver, "host-cores"):
            raise AssertionError("host cores are not shown per role: %r / %r" % (text(driver, "host-cores"), roles))

        type_into(driver, "threads-input", "1")
        reply = click_and_wait_for_reply(driver, "swap-cpu")
        wait(driver, "the new engine", lambda d: text(d, "engine") == "cpu pool, 1 thread")
        if not journaled(service, "swap", engine="cpu", threads=1):
            raise AssertionError("the journal has no swap to cpu with 1 thread after %r:\n%s" %
                                 (reply, open(service.journal).read()))

        type_into(driver, "rate-input", "300")
        click_and_wait_for_reply(driver, "apply-rate")
        wait(driver, "the new rate", lambda d: "at 300.0 Hz" in text(d, "stimulus"))
        if not journaled(service, "stimulus", rate_hz=300):
            raise AssertionError("the journal has no stimulus at 300 Hz:\n" + open(service.journal).read())

        click_and_wait_for_reply(driver, "checkpoint")
        wait(driver, "the checkpoint file", lambda d: "last checkpoint: " in text(d, "checkpoint-file"))
        click_and_wait_for_reply(driver, "pause")
        wait(driver, "the paused state", lambda d: text(d, "state") == "paused")
        click_and_wait_for_reply(driver, "resume")
        wait(driver, "the running state", lambda d: text(d, "state") == "running")

        if fill_s > 0:
            wait_until_simulated(driver, fill_s)
        wait(driver, "the top responders", lambda d: len(d.find_elements(By.CSS_SELECTOR, "#top tbody tr")) > 0)
        os.makedirs(artifacts, exist_ok=True)
        screenshot = os.path.join(artifacts, "live-page.png")
        # The whole page in one picture: the window as tall as the document.
        driver.set_window_size(1400, driver.execute_script("return document.documentElement.scrollHeight") + 160)
        driver.save_screenshot(screenshot)
        print("the page redraws its raster (%s rows) and rates in %s ms" %
              (raster.get_attribute("data-rows"), raster.get_attribute("data-draw-ms")))

        driver.find_element(By.ID, "stop").click()
        WebDriverWait(driver, DEADLINE_S).until(expected_conditions.alert_is_present()).accept()
        code = service.process.wait(timeout=DEADLINE_S)
        if code != 0:
            raise AssertionError("flysim serve exited with %d after the page stopped it:\n%s" % (code, service.log()))
        if not journaled(service, "stop"):
            raise AssertionError("the journal has no stop:\n" + open(service.journal).read())
        wait(driver, "the service gone", lambda d: text(d, "state") == "unreachable")
        print("passed; screenshot " + screenshot)
        return 0
    except AssertionError as e:
        print("FAILED: %s" % e)
        if service:
            print("flysim serve's log (tail):\n" + service.log())
        return 1
    finally:
        driver.quit()
        if service and service.process.poll() is None:
            service.process.kill()
            service.process.wait()
        shutil.rmtree(work, ignore_errors=True)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--fill-s=")]
    fill = [float(a.split("=", 1)[1]) for a in sys.argv[1:] if a.startswith("--fill-s=")]
    if len(args) != 3:
        print(__doc__)
        return 2
    return run(os.path.abspath(args[0]), args[1], args[2], fill[0] if fill else 0.0)


if __name__ == "__main__":
    sys.exit(main())
