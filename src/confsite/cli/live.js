// confsite serve: reload the page after a rebuild, or show a failed rebuild's error over it.
// Served by the dev server only; never part of a built site.
(function () {
  "use strict";
  var script = document.currentScript;
  var shown = script ? new URL(script.src).searchParams.get("build") : null;
  var overlay = null;

  function showError(text) {
    if (!overlay) {
      overlay = document.createElement("div");
      overlay.id = "confsite-live-error";
      overlay.setAttribute("role", "alert");
      var style = overlay.style;
      style.position = "fixed";
      style.left = style.right = style.bottom = "0";
      style.maxHeight = "60vh";
      style.overflow = "auto";
      style.zIndex = "2147483647";
      style.margin = "0";
      style.padding = "1rem 1.25rem";
      style.background = "#2b0b0e";
      style.color = "#fff";
      style.font = "14px/1.45 ui-monospace, monospace";
      style.borderTop = "4px solid #e5484d";
      var heading = document.createElement("strong");
      heading.textContent = "confsite serve: the rebuild failed; this is the last good site.";
      var message = document.createElement("pre");
      message.style.whiteSpace = "pre-wrap";
      message.style.margin = "0.5rem 0 0";
      overlay.append(heading, message);
      document.body.append(overlay);
    }
    overlay.querySelector("pre").textContent = text;
  }

  var events = new EventSource("/__confsite__/events");
  events.addEventListener("state", function (event) {
    var state = JSON.parse(event.data);
    if (state.error) {
      showError(state.error);
    } else if (String(state.build) !== shown) {
      location.reload();
    } else if (overlay) {
      overlay.remove();
      overlay = null;
    }
  });
})();
