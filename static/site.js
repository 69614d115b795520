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

// Over file:// Chromium keeps no back-forward cache: Back from a paper loads the listing
// afresh. The abstracts the reader had opened are opened again, and the place kept, as a
// page restored from the cache would be; a fresh visit starts closed.
function keepOpenAbstracts() {
  const abstracts = [...document.querySelectorAll("details.abstract")];
  if (!abstracts.length) return;
  const key = "confsite-open-abstracts:" + location.pathname;
  const navigation = performance.getEntriesByType("navigation")[0];
  try {
    const saved = JSON.parse(sessionStorage.getItem(key) || "null");
    if (saved && navigation && navigation.type === "back_forward") {
      for (const index of saved.open) if (abstracts[index]) abstracts[index].open = true;
      window.scrollTo(0, saved.scroll);
    }
  } catch {
    // storage refused (privacy settings): nothing to restore
  }
  const save = () => {
    const open = abstracts.flatMap((details, index) => (details.open ? [index] : []));
    try {
      sessionStorage.setItem(key, JSON.stringify({ open, scroll: window.scrollY }));
    } catch {
      // storage refused or full: Back then shows the page as first loaded
    }
  };
  window.addEventListener("pagehide", save);
}

document.addEventListener("DOMContentLoaded", enableCopyButtons);
document.addEventListener("DOMContentLoaded", keepOpenAbstracts);
