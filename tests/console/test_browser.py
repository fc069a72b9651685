"""The console in a real browser (Debian's chromium): what a player does in the game's window.

Each scenario of issue 22 in order, on one system and one browser: log in through the link; a
plugin registers and its card appears without a reload; Enable; an approval pops up, is approved,
and the call completes; the map shows the flag after set_map_flag; a grown registration shows
what is new and is consented to from the keyboard alone; a suspension shows its reason and Lift
works; a job is paused and resumed. The page is never reloaded between them: what the host does
reaches it by the live updates. No inline script runs and nothing breaks the page's CSP.
"""

from __future__ import annotations

import io
import json
import re
import subprocess
from collections.abc import Iterator

import pytest
from PIL import Image
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement

from gates.host.tools._screen_picture import pixel_of
from gates.testing import Process

from ._browser import open_browser, press, screenshot, wait_for
from .conftest import ROOT, ConsoleSystem

FLAG_COLOUR = (220, 40, 40)
"""The map flag's red in the simulated game window (gates/host/tools/_screen_picture.py)."""


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[WebDriver]:
    driver = open_browser(tmp_path_factory.mktemp("chromium-profile"))
    try:
        yield driver
    finally:
        driver.quit()  # chromedriver ends the browser, then itself


@pytest.fixture(scope="module")
def plugins(system: ConsoleSystem) -> Iterator[dict[str, Process]]:
    started: dict[str, Process] = {}
    yield started
    for process in started.values():
        process.stop()


def card(driver: WebDriver, plugin: str) -> WebElement:
    return driver.find_element(By.CSS_SELECTOR, f'article[data-plugin="{plugin}"]')


def card_state(driver: WebDriver, plugin: str) -> str | None:
    cards = driver.find_elements(By.CSS_SELECTOR, f'article[data-plugin="{plugin}"] code.state')
    return cards[0].text if cards else None


def button(scope: WebDriver | WebElement, label: str) -> WebElement:
    return scope.find_element(By.XPATH, f'.//button[normalize-space()="{label}"]')


def show_tab(driver: WebDriver, name: str) -> None:
    press(driver, lambda d: d.find_element(By.ID, f"tab-{name}"), f"the {name} tab")
    wait_for(driver, lambda d: d.find_elements(By.CSS_SELECTOR, f"section.panel-{name}"), f"the {name} tab")


def test_login_through_the_one_time_link(system: ConsoleSystem, browser: WebDriver) -> None:
    # SPEC: C2
    link = system.console_link()
    browser.get(link)
    wait_for(browser, lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live", "the live feed")
    # A clean address, the ticket gone from it: /console/ and the key of this host's pages.
    assert re.fullmatch(rf"{re.escape(system.base)}/console/[\w-]{{20,}}/", browser.current_url), browser.current_url
    cookie = next(c for c in browser.get_cookies() if c["name"].startswith("xivmcp_console_"))
    assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
    pages = browser.current_url
    browser.get(link)  # each link works once
    assert "used already" in browser.find_element(By.TAG_NAME, "body").text
    browser.get(pages)  # the session stays

def test_a_plugin_registers_and_its_card_appears(
    system: ConsoleSystem, browser: WebDriver, plugins: dict[str, Process]
) -> None:
    # SPEC: C1
    browser.get(browser.current_url.split("?")[0] + "?tab=plugins")
    wait_for(browser, lambda d: d.find_element(By.ID, "live").get_attribute("data-state") == "live", "the live feed")
    assert not browser.find_elements(By.CSS_SELECTOR, 'article[data-plugin="MyPlugin"]')
    plugins["MyPlugin"] = system.start_plugin("plugins_sample.myplugin")
    wait_for(browser, lambda d: card_state(d, "MyPlugin") == "undecided", "MyPlugin's card, without a reload")
    # Its tools register one by one: the player decides on the whole registration (an Enable
    # clicked on a card that grew since is refused, and the card shows the grown one).
    wait_for(browser, lambda d: "· 6 tool(s)" in card(d, "MyPlugin").text, "MyPlugin's six tools")
    text = card(browser, "MyPlugin").text
    assert "My Plugin" in text and "Waiting for your decision" in text and "Wants to register with XIV MCP." in text
    # A capability's tools, as the assistant sees them, are fetched when its row is opened.
    row = 'article[data-plugin="MyPlugin"] section[aria-label="Use game windows"]'
    # Its buttons show the player's setting (the default, Ask), not what a call gets while undecided (deny).
    pressed = browser.find_element(By.CSS_SELECTOR, f'{row} button[aria-pressed="true"]').text
    assert pressed == "Ask"
    press(browser, lambda d: d.find_element(By.CSS_SELECTOR, f"{row} summary"), "the Use game windows row")
    tools = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, f"{row} ul.tools").text, "the row's tools")
    assert "myplugin_set_flag" in tools and "Places the flag on the player's map" in tools


def test_enable_from_the_card(system: ConsoleSystem, browser: WebDriver) -> None:
    # SPEC: C1
    press(browser, lambda d: button(card(d, "MyPlugin"), "Enable"), "Enable on MyPlugin\'s card")
    wait_for(browser, lambda d: card_state(d, "MyPlugin") == "enabled", "MyPlugin enabled")
    report = json.loads(system.xivmcp("plugins", "--json").stdout)
    assert [p["state"] for p in report["plugins"] if p["name"] == "MyPlugin"] == ["enabled"]  # the host's own word
    screenshot(browser, "plugins")


def test_an_approval_pops_up_is_approved_and_the_call_completes(system: ConsoleSystem, browser: WebDriver) -> None:
    # SPEC: C1
    call = subprocess.Popen(
        system.cli("call", "myplugin_set_flag", json.dumps({"x": 30.0, "y": 12.0}), "--quiet"),
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        approval = wait_for(
            browser,
            lambda d: next(iter(d.find_elements(By.CSS_SELECTOR, "#approvals article")), None),
            "the approval window",
        )
        assert "myplugin_set_flag" in approval.text and "Declines automatically in" in approval.text
        assert "Use game windows" in approval.text  # the capability, as the catalog names it
        screenshot(browser, "approval")
        # On a --test-clock host the two minutes pass only as the player moves the clock: the
        # window says so, and shows the time left again when the clock moves (no ticking of its own).
        assert "in 120 s of the host's test clock" in approval.text
        system.xivmcp("advance-clock", "30")
        wait_for(
            browser,
            lambda d: "in 90 s of the host's test clock" in d.find_element(By.CSS_SELECTOR, "#approvals article").text,
            "the window's time left after the clock moved",
        )
        window = "#approvals article"
        press(browser, lambda d: button(d.find_element(By.CSS_SELECTOR, window), "Approve once"), "Approve once")
        _, err = call.communicate(timeout=30)
    finally:
        if call.poll() is None:
            call.kill()
            call.wait()
    assert call.returncode == 0, err
    wait_for(browser, lambda d: not d.find_elements(By.CSS_SELECTOR, "#approvals article"), "the window to close")


def _flag_pixels(browser: WebDriver, x: float, y: float) -> int:
    """How many pixels of the flag's red the browser shows where a flag at map coordinates (x, y)
    is drawn: its pennant flies up and right of the spot."""
    picture = Image.open(io.BytesIO(browser.find_element(By.ID, "game-picture").screenshot_as_png)).convert("RGB")
    px, py = pixel_of(x, y, picture.size[0])
    return sum(
        1
        for i in range(max(0, px - 2), min(picture.size[0], px + 15))
        for j in range(max(0, py - 20), min(picture.size[1], py + 3))
        if picture.getpixel((i, j)) == FLAG_COLOUR
    )


def test_the_map_shows_the_flag_after_set_map_flag(system: ConsoleSystem, browser: WebDriver) -> None:
    # SPEC: C1
    show_tab(browser, "modules")  # Game & navigation denies changes until the player allows them
    allow = '#module-game_navigation form[aria-label$="Changes"] button[value="allow"]'
    press(browser, lambda d: d.find_element(By.CSS_SELECTOR, allow), "Allow for Game & navigation's changes")
    wait_for(
        browser,
        lambda d: d.find_element(By.CSS_SELECTOR, allow).get_attribute("aria-pressed") == "true",
        "Game & navigation's changes allowed",
    )
    show_tab(browser, "game")
    wait_for(browser, lambda d: d.execute_script("return document.getElementById('game-picture').complete"), "the map")
    assert _flag_pixels(browser, 8.0, 30.0) == 0
    before = browser.find_element(By.ID, "game-picture").get_attribute("src")
    system.xivmcp("call", "set_map_flag", json.dumps({"x": 8.0, "y": 30.0}))
    wait_for(
        browser,
        lambda d: d.find_element(By.ID, "game-picture").get_attribute("src") != before
        and d.execute_script("return document.getElementById('game-picture').complete"),
        "the map drawn again",
    )
    assert _flag_pixels(browser, 8.0, 30.0) > 10
    screenshot(browser, "game")


def _tab_to(browser: WebDriver, target: WebElement) -> None:
    """Move the focus with the Tab key alone until it reaches `target` (keyboard only)."""
    body = browser.find_element(By.TAG_NAME, "body")
    body.click()
    for _ in range(400):
        if browser.switch_to.active_element == target:
            return
        browser.switch_to.active_element.send_keys(Keys.TAB)
    raise AssertionError("the Tab key never reached the button")


def test_a_grown_registration_shows_what_is_new(
    system: ConsoleSystem, browser: WebDriver, plugins: dict[str, Process]
) -> None:
    # SPEC: C1
    show_tab(browser, "plugins")
    plugins["GrowingPlugin"] = system.start_plugin("plugins_sample.growing")
    wait_for(browser, lambda d: "· 1 tool(s)" in card(d, "GrowingPlugin").text, "GrowingPlugin's card")
    press(browser, lambda d: button(card(d, "GrowingPlugin"), "Enable"), "Enable on GrowingPlugin\'s card")
    wait_for(browser, lambda d: card_state(d, "GrowingPlugin") == "enabled", "GrowingPlugin enabled")
    system.xivmcp("gate", "call", "GrowingPlugin.Grow", "--action")
    wait_for(browser, lambda d: card_state(d, "GrowingPlugin") == "awaiting_consent", "the grown registration")
    grown = card(browser, "GrowingPlugin")
    assert "Changed its registration; its tools are paused. New tools: growing_act." in grown.text
    grown.find_element(By.TAG_NAME, "summary").click()  # "Review what is new": side by side
    rows = grown.find_elements(By.CSS_SELECTOR, ".review-table tr.added")
    assert [row.text for row in rows] and "growing_act" in rows[0].text and "new" in rows[0].text
    screenshot(browser, "review")
    enable = button(grown, "Enable")
    _tab_to(browser, enable)
    enable.send_keys(Keys.ENTER)
    wait_for(browser, lambda d: card_state(d, "GrowingPlugin") == "enabled", "the consent, from the keyboard")


def test_a_suspension_shows_its_reason_and_lift_works(
    system: ConsoleSystem, browser: WebDriver, plugins: dict[str, Process]
) -> None:
    # SPEC: C1
    plugins["Careless"] = system.start_plugin("plugins_sample.careless")
    wait_for(browser, lambda d: "· 3 tool(s)" in card(d, "Careless").text, "Careless's card")
    system.xivmcp("enable", "Careless")
    system.xivmcp("mode", "Careless", "game_ui", "allow")
    system.xivmcp("call", "careless_buy_potions", "{}", check=False)  # spends gil it never declared
    wait_for(browser, lambda d: card_state(d, "Careless") == "suspended", "the suspension")
    reason = card(browser, "Careless").find_element(By.CSS_SELECTOR, ".reason").text
    assert reason.startswith("Suspended: careless_buy_potions: ") and reason.endswith("(not declared)"), reason
    screenshot(browser, "suspended")
    press(browser, lambda d: button(card(d, "Careless"), "Lift suspension"), "Lift suspension on Careless\'s card")
    wait_for(browser, lambda d: card_state(d, "Careless") == "enabled", "the lifted suspension")


def _job_badge(browser: WebDriver) -> str | None:
    badges = browser.find_elements(By.CSS_SELECTOR, "article.job .job-state")
    return badges[0].text if badges else None


def test_a_job_is_paused_and_resumed(system: ConsoleSystem, browser: WebDriver) -> None:
    # SPEC: C1
    show_tab(browser, "jobs")
    steps = [{"tool": "wait", "args": {"seconds": 3600}, "note": "an hour, on the host's test clock"}]
    system.xivmcp("call", "start_job", json.dumps({"name": "A long wait", "steps": steps}))
    wait_for(browser, lambda d: _job_badge(d) == "RUNNING", "the job, running")
    job = "article.job"
    press(browser, lambda d: button(d.find_element(By.CSS_SELECTOR, job), "Pause"), "Pause")
    said = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#said .said").text, "what the host said")
    assert "its running step is being stopped; the job will be paused" in said
    wait_for(browser, lambda d: _job_badge(d) == "PAUSED", "the job, paused")
    screenshot(browser, "jobs")
    press(browser, lambda d: button(d.find_element(By.CSS_SELECTOR, job), "Resume"), "Resume")
    wait_for(browser, lambda d: _job_badge(d) in ("RUNNING", "WAITING"), "the job, resumed")
    press(browser, lambda d: button(d.find_element(By.CSS_SELECTOR, job), "Cancel"), "Cancel")
    wait_for(browser, lambda d: _job_badge(d) == "CANCELLED", "the job, cancelled")


def test_a_refused_change_is_said_on_the_page(system: ConsoleSystem, browser: WebDriver) -> None:
    # SPEC: C2
    show_tab(browser, "plugins")
    # As a page of an older login would: its CSRF token is no longer the session's.
    browser.execute_script("document.body.setAttribute('hx-headers', '{\"X-CSRF-Token\": \"stale\"}')")
    press(browser, lambda d: button(card(d, "MyPlugin"), "Turn off"), "Turn off")
    said = wait_for(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#said .said.failed").text, "the refusal")
    assert said == "This change did not come from your console page: reload it."
    assert card_state(browser, "MyPlugin") == "enabled"  # nothing changed
    browser.refresh()  # a page with the session's own token again


def test_every_tab_renders_and_nothing_breaks_the_csp(system: ConsoleSystem, browser: WebDriver) -> None:
    # SPEC: C1, C2
    for name in ("connect", "modules", "info", "audit"):
        show_tab(browser, name)
        screenshot(browser, name)
    show_tab(browser, "info")
    press(browser, lambda d: d.find_element(By.ID, "run-self-test"), "Run the self-test")
    wait_for(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "ul.checks li"), "the self-test's checks")
    problems = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert not [p for p in problems if "Content Security Policy" in p or "Refused" in p], problems
