"""A real browser for the console's tests: Debian's chromium, driven through Debian's chromium-driver.

chromium-driver is built from the same sources as chromium, so the two always speak the same
protocol version (a Playwright release is built for one chromium version, and Debian's moves on
its own). Nothing here downloads a browser or a driver: without both packages the tests skip and
say how to install them. The browser runs headless, with a profile of its own in a temporary
folder, and without the background networking that would try to reach Google's hosts.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Final, TypeVar

import pytest
from selenium import webdriver
from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import WebDriverWait

CHROMIUM: Final = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER: Final = shutil.which("chromedriver") or "/usr/bin/chromedriver"
WAIT: Final = 15.0
"""Seconds a page may take to show what the host did (the live update is well under one)."""
INSTALL_HINT: Final = (
    "the console's browser tests need Debian's chromium and chromium-driver: "
    "`sudo apt-get install chromium chromium-driver` (CI installs them)"
)
SCREENSHOTS_ENV: Final = "XIVMCP_CONSOLE_SCREENSHOTS"
"""Set to a folder (docs/images) to save each tab's screenshot there while the tests run."""

T = TypeVar("T")


def open_browser(profile: Path) -> WebDriver:
    """A headless chromium with its own profile, or a skip saying how to get one."""
    if not (Path(CHROMIUM).exists() and Path(CHROMEDRIVER).exists()):
        pytest.skip(INSTALL_HINT)
    options = Options()
    options.binary_location = CHROMIUM
    for flag in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root, where chromium's sandbox cannot start
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--window-size=1280,1100",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


def wait_for(driver: WebDriver, check: Callable[[WebDriver], T], what: str, within: float = WAIT) -> T:
    """Wait until `check(driver)` is truthy (WebDriver's own wait), failing with `what`.

    A panel the host changed is swapped for a new one at any moment: an element found in the old
    one is then stale, and the check simply runs again on the new one."""
    wait = WebDriverWait(driver, within, ignored_exceptions=(StaleElementReferenceException, NoSuchElementException))
    try:
        return wait.until(check, message=f"waited {within:.0f} s for {what}")
    except TimeoutException:
        shown = driver.execute_script("const m = document.querySelector('main'); return m && m.innerText")
        raise AssertionError(f"waited {within:.0f} s for {what}; the page shows:\n{str(shown)[:1500]}") from None


def press(driver: WebDriver, find: Callable[[WebDriver], WebElement], what: str) -> None:
    """Click what `find` finds, finding it again if the panel was swapped under it."""

    def clicked(d: WebDriver) -> bool:
        find(d).click()
        return True

    wait_for(driver, clicked, what)


def screenshot(driver: WebDriver, name: str) -> None:
    """Save the page as `console-NAME.png` in $XIVMCP_CONSOLE_SCREENSHOTS, when it is set."""
    folder = os.environ.get(SCREENSHOTS_ENV)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        driver.save_screenshot(str(Path(folder) / f"console-{name}.png"))
