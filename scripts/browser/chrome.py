"""What scripts/browser/test.py and lab.py share: headless Chromium driven by Selenium, and
bounded waits that fail with what they waited for."""
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service


class Failure(Exception):
    """A check that failed, with what was expected."""


class Browser:
    """Headless Chromium at a fixed window size; args carries chromium and chromedriver."""

    def __init__(self, args):
        self.args = args
        options = webdriver.ChromeOptions()
        for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1400,1000",
                     "--hide-scrollbars"):
            options.add_argument(flag)
        options.binary_location = args.chromium
        self.driver = webdriver.Chrome(service=Service(args.chromedriver), options=options)
        self.driver.set_script_timeout(60)
        self.driver.set_page_load_timeout(120)
        self.notebook = ""

    def js(self, script, *args):
        return self.driver.execute_script(script, *args)

    def wait(self, what, timeout, probe, interval=0.2):
        """Calls probe until it returns a true value, which it returns; fails after timeout s."""
        deadline = time.monotonic() + timeout
        while True:
            value = probe()
            if value:
                return value
            if time.monotonic() > deadline:
                raise Failure(f"timed out after {timeout} s waiting for {what}")
            time.sleep(interval)
