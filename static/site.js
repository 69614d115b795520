// Progressive enhancements; every page works without them.
"use strict";

function enableCopyButtons() {
  for (const button of document.querySelectorAll("button[data-copy]")) {
    const source = document.getElementById(button.dataset.copy);
    const status = button.parentElement.querySelector(".copy-status");
    if (!source || !navigator.clipboard) continue;
    button.hidden = false;
    button.addEventListener("click", async () => {
      try {
        await navigator.clipboard.writeText(source.textContent);
        status.textContent = "Copied.";
      } catch {
        status.textContent = "Copy failed: select the text and copy it by hand.";
      }
    });
  }
}

document.addEventListener("DOMContentLoaded", enableCopyButtons);
