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

  // A panel being fetched, or changed by one of its buttons, is about to be swapped for the answer:
  // a change heard meanwhile is kept here and fetched once the new panel is in place (htmx would
  // drop it with the old one).
  const pending = new Set();

  function refresh(names) {
    for (const name of names.split(" ")) {
      if (!name) continue;
      document.querySelectorAll('[data-live="' + name + '"]').forEach(function (element) {
        if (element.classList.contains("htmx-request") || element.querySelector(".htmx-request")) {
          pending.add(name);
        } else if (element.querySelector("select:focus")) {
          pending.add(name);  // the player is choosing there: fetched after their choice
        } else {
          htmx.trigger(element, "xivmcp-refresh");
        }
      });
    }
  }

  function follow() {
    const events = new EventSource(document.body.dataset.base + "/events");
    events.addEventListener("open", function () { say("live", "live"); });
    events.addEventListener("change", function (event) { refresh(event.data); });
    events.addEventListener("error", function () {
      if (events.readyState === EventSource.CLOSED) {
        // Refused (logged out, the host restarted, too many pages open): EventSource gives up.
        say("lost", "not following XIV MCP: reload, or run `xivmcp console --open`");
      } else {
        say("lost", "reconnecting…");  // EventSource tries again by itself
      }
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
  document.addEventListener("htmx:afterSettle", function (event) {
    const settled = event.detail.elt;
    // A button's answer was drawn when the command returned; what the host did after it (a job
    // that stops its step, then pauses) may have been drawn before it by a faster fetch. One more
    // fetch of that panel makes the last word the host's latest.
    const config = event.detail.requestConfig;
    if (config && config.verb === "post" && settled && settled.dataset && settled.dataset.live) {
      pending.add(settled.dataset.live);
    }
    // An approval answered or declined elsewhere: the aside was fetched again and may be empty.
    const approvals = document.getElementById("approvals");
    if (approvals) {
      approvals.hidden = !approvals.querySelector("article");
    }
    flush();
  });

  function flush() {
    if (pending.size) {
      const names = Array.from(pending).join(" ");
      pending.clear();
      refresh(names);
    }
  }
  // Panels held back while the player chose in a select: fetched once the choice is made.
  document.addEventListener("focusout", function () { setTimeout(flush, 0); });

  // A refusal (4xx, 5xx) is not swapped in by htmx: say it where the host's answers are said.
  document.addEventListener("htmx:responseError", function (event) {
    const request = event.detail.xhr;
    let text = request.responseText || "";
    if ((request.getResponseHeader("content-type") || "").startsWith("text/html")) {
      const alert = new DOMParser().parseFromString(text, "text/html").querySelector("[role=alert]");
      text = alert ? alert.textContent : "";
    }
    const said = document.getElementById("said");
    if (said) {
      const line = document.createElement("p");
      line.className = "said failed";
      line.setAttribute("role", "alert");
      line.textContent = text.trim() || "XIV MCP answered " + request.status + ": reload the page.";
      said.replaceChildren(line);
    }
  });
})();
