// The console's own script (no inline script: the page's CSP forbids it).
// 1. Live: the host's server-sent events name the panels that changed; each one shown is fetched again.
// 2. Countdown: every approval's "Declines automatically in N s", once a second.
"use strict";

(function () {
  const live = document.getElementById("live");

  function say(state, text) {
    if (live) {
      live.dataset.state = state;
      live.textContent = text;
    }
  }

  function refresh(names) {
    for (const name of names.split(" ")) {
      if (!name) continue;
      document.querySelectorAll('[data-live="' + name + '"]').forEach(function (element) {
        if (element.contains(document.activeElement) && element.querySelector("select:focus, input:focus")) {
          return; // the player is choosing something there: the next change brings it up to date
        }
        htmx.trigger(element, "xivmcp-refresh");
      });
    }
  }

  function follow() {
    const events = new EventSource("/console/events");
    events.addEventListener("open", function () { say("live", "live"); });
    events.addEventListener("change", function (event) { refresh(event.data); });
    events.addEventListener("error", function () {
      say("lost", "reconnecting…");  // EventSource tries again by itself
    });
  }

  function countdown() {
    const now = Date.now();
    document.querySelectorAll("[data-deadline]").forEach(function (element) {
      const left = Math.max(0, Math.round((Number(element.dataset.deadline) - now) / 1000));
      element.textContent = String(left);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    follow();
    countdown();
    setInterval(countdown, 1000);
  });
  // An approval answered or declined elsewhere: the aside is fetched again and may be empty.
  document.addEventListener("htmx:afterSwap", function (event) {
    const target = event.detail.target;
    if (target && target.id === "approvals") {
      target.hidden = !target.querySelector("article, .said");
    }
  });
})();
