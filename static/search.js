// In-page search over the prebuilt lunr index (encoding: src/confsite/search.py).
// Every scraped string reaches the page through textContent, never through innerHTML.
"use strict";

(function () {
  const root = document.documentElement.dataset.root || "";
  const state = { index: null, hasTerm: null, completions: null, store: null, snippets: null, loading: null };
  const MAX_COMPLETIONS = 60; // of the word being typed, the most widespread
  const MIN_PREFIX = 3; // shorter prefixes expand to much of the vocabulary
  const PREVIEW_COUNT = 8;
  const PAGE_SIZE = 50;

  // ---- loading -------------------------------------------------------------------------

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.onload = resolve;
      script.onerror = () => reject(new Error("could not load " + src));
      document.head.appendChild(script);
    });
  }

  // The store comes in columns of one string each (see document_store in search.py); a
  // document's row is put together when a result needs it.
  const RECORD = "\x1e";
  const UNIT = "\x1f";

  function openStore(store) {
    const column = (name) => store[name].split(RECORD);
    const titles = column("titles"), authors = column("authors"), ids = column("ids");
    const sessions = column("sessions"), badges = column("badges");
    const collection = column("collection"), presentation = column("presentation");
    const list = (text) => (text ? text.split(UNIT) : []);
    const rows = new Map();
    return {
      sessions: store.sessionNames,
      collections: store.collectionNames,
      doc(n) {
        let row = rows.get(n);
        if (!row) {
          row = [titles[n] || null, list(authors[n]), ids[n], list(sessions[n]).map(Number),
            list(badges[n]), Number(collection[n]), presentation[n] || null,
            store.award.charCodeAt(n) === 49 ? 1 : 0];
          rows.set(n, row);
        }
        return row;
      },
    };
  }

  function ensureIndex() {
    if (!state.loading) {
      state.loading = loadScript(root + "assets/lunr.js")
        .then(() => loadScript(root + "assets/search-index.js"))
        .then(() => loadScript(root + "search/index.js"))
        .then(() => {
          const data = window.confsiteSearchData;
          const loaded = window.confsiteLoadIndex(data.index, lunr);
          state.index = loaded.index;
          state.hasTerm = loaded.hasTerm;
          state.completions = loaded.completions;
          state.store = openStore(data.store);
          delete window.confsiteSearchData;
        });
    }
    return state.loading;
  }

  function ensureSnippets() {
    if (!state.snippetsLoading) {
      state.snippetsLoading = loadScript(root + "search/snippets.js").then(() => {
        state.snippets = window.confsiteSearchSnippets.split(RECORD);
        delete window.confsiteSearchSnippets;
      });
    }
    return state.snippetsLoading;
  }

  // ---- querying ------------------------------------------------------------------------

  const SYNTAX = /[:+\-~^*]/;

  // The indexed terms went through lunr.py's trimmer: a word with one run of letters or digits
  // loses the punctuation around it; any other token ("don't", "🚀") is kept whole.
  const TRIMMABLE = /^[^\p{L}\p{N}_]*?([\p{L}\p{N}_]+)[^\p{L}\p{N}_]*?$/u;

  function words(text) {
    return text.normalize("NFKC").toLowerCase().split(/[\s\-]+/)
      .map((w) => { const m = TRIMMABLE.exec(w); return m ? m[1] : w; })
      .filter((w) => w && lunr.stopWordFilter(new lunr.Token(w)));
  }

  // Plain words: every word must match; the word being typed also matches as a prefix.
  function plainSearch(text) {
    const list = words(text);
    if (!list.length) return [];
    const typing = !/\s$/.test(text);
    const accepted = list.map((word, i) => {
      const stem = stemOf(word);
      const prefix = typing && i === list.length - 1 && word.length >= MIN_PREFIX ? word : null;
      // A half-typed word ("learni") also matches the stems it already extends ("learn").
      const shorter = [];
      if (prefix) {
        for (let k = prefix.length - 1; k >= 3; k--) {
          const candidate = prefix.slice(0, k);
          if (state.hasTerm(candidate)) shorter.push(candidate);
        }
      }
      const longer = prefix ? state.completions(prefix, MAX_COMPLETIONS) : [];
      return { stem, prefix, shorter, longer };
    });
    const results = state.index.query((query) => {
      for (const { stem, prefix, shorter, longer } of accepted) {
        query.term(stem, { usePipeline: false, boost: 10 });
        for (const term of [...shorter, ...longer]) {
          if (term !== stem) query.term(term, { usePipeline: false });
        }
      }
    });
    return results.filter((result) => {
      const matched = Object.keys(result.matchData.metadata);
      return accepted.every(({ stem, prefix, shorter }) =>
        matched.some((t) => t === stem || (prefix && (t.startsWith(prefix) || shorter.includes(t)))));
    });
  }

  function search(text) {
    if (SYNTAX.test(text)) {
      try {
        return state.index.search(text);
      } catch (error) {
        if (!(error instanceof lunr.QueryParseError)) throw error;
      }
      return plainSearch(text.replace(/[:+~^*]/g, " ").replace(/(^|\s)-/g, " "));
    }
    return plainSearch(text);
  }

  const stems = new Map();
  function stemOf(word) {
    let stem = stems.get(word);
    if (stem === undefined) {
      stem = lunr.stemmer(new lunr.Token(word)).toString();
      stems.set(word, stem);
    }
    return stem;
  }

  function matchedTerms(results) {
    const terms = new Set();
    for (const r of results.slice(0, 50)) for (const t of Object.keys(r.matchData.metadata)) terms.add(t);
    return terms;
  }

  // ---- rendering (textContent only) ------------------------------------------------------

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  function highlighted(text, terms) {
    const fragment = document.createDocumentFragment();
    const prefixes = [...terms].filter((t) => t.length > 2);
    for (const part of text.split(/([\p{L}\p{N}_]+)/u)) {
      const lower = part.toLowerCase();
      const stem = part && /[\p{L}\p{N}]/u.test(part) ? stemOf(lower) : "";
      const hit = stem && (terms.has(stem) || prefixes.some((t) => lower.startsWith(t)));
      fragment.appendChild(hit ? el("mark", null, part) : document.createTextNode(part));
    }
    return fragment;
  }

  function paperHref(doc) {
    return root + "papers/" + doc[2] + "/index.html";
  }

  function resultItem(result, terms, full) {
    const doc = state.store.doc(Number(result.ref));
    const item = el("li", "search-result");
    const link = el("a", "result-title");
    link.href = paperHref(doc);
    if (doc[0]) link.appendChild(highlighted(doc[0], terms));
    else link.appendChild(el("span", "untitled", "Untitled paper"));
    item.appendChild(link);
    if (doc[1].length) item.appendChild(el("p", "result-authors", doc[1].join(", ")));
    const sessions = doc[3].map((n) => state.store.sessions[n][0]);
    const where = [state.store.collections[doc[5]], ...sessions].join(" · ");
    item.appendChild(el("p", "result-where muted", where));
    if (full) {
      if (doc[4].length) {
        const badges = el("ul", "badges");
        for (const label of doc[4]) badges.appendChild(el("li", "badge", label));
        item.appendChild(badges);
      }
      const text = state.snippets && state.snippets[Number(result.ref)];
      if (text) {
        const snippet = el("p", "result-snippet");
        snippet.appendChild(highlighted(text, terms));
        item.appendChild(snippet);
      }
    }
    return item;
  }

  // ---- header box: instant preview ---------------------------------------------------------

  function setupHeaderBox(form) {
    const input = form.querySelector("input[type=search]");
    const panel = form.querySelector(".search-preview");
    const status = form.querySelector(".search-status");
    let active = -1;

    function links() { return [...panel.querySelectorAll("a")]; }

    function show(text) {
      panel.replaceChildren();
      active = -1;
      if (!text.trim()) { panel.hidden = true; return; }
      const results = search(text);
      const terms = matchedTerms(results);
      const list = el("ul", "search-results");
      for (const r of results.slice(0, PREVIEW_COUNT)) list.appendChild(resultItem(r, terms, false));
      if (results.length) panel.appendChild(list);
      else panel.appendChild(el("p", "search-empty", "No papers match. Try fewer or shorter words."));
      const all = el("a", "search-all", results.length ? `See all ${results.length} results` : "Open the search page");
      all.href = root + "search/index.html?q=" + encodeURIComponent(text.trim());
      panel.appendChild(all);
      panel.hidden = false;
      status.textContent = `${results.length} result${results.length === 1 ? "" : "s"}`;
    }

    function update() {
      const text = input.value;
      if (state.index) { show(text); return; }
      status.textContent = "Loading search…";
      form.classList.add("is-loading");
      ensureIndex().then(() => { form.classList.remove("is-loading"); show(input.value); },
        () => { status.textContent = "Search could not be loaded."; });
    }

    input.addEventListener("focus", () => {
      if (!state.index) {
        form.classList.add("is-loading");
        status.textContent = "Loading search…";
        ensureIndex().then(() => { form.classList.remove("is-loading"); status.textContent = ""; if (input.value) show(input.value); },
          () => { status.textContent = "Search could not be loaded."; });
      }
    });
    input.addEventListener("input", update);
    input.addEventListener("keydown", (event) => {
      const items = links();
      if (event.key === "ArrowDown" && items.length) {
        event.preventDefault();
        active = Math.min(active + 1, items.length - 1);
        items[active].focus();
      } else if (event.key === "Escape") {
        panel.hidden = true;
      }
    });
    panel.addEventListener("keydown", (event) => {
      const items = links();
      const index = items.indexOf(document.activeElement);
      if (event.key === "ArrowDown") { event.preventDefault(); items[Math.min(index + 1, items.length - 1)].focus(); }
      if (event.key === "ArrowUp") {
        event.preventDefault();
        if (index <= 0) input.focus(); else items[index - 1].focus();
      }
      if (event.key === "Escape") { panel.hidden = true; input.focus(); }
    });
    document.addEventListener("click", (event) => {
      if (!form.contains(event.target)) panel.hidden = true;
    });
  }

  // ---- the search page -----------------------------------------------------------------------

  function setupSearchPage(page) {
    const form = page.querySelector("form");
    const input = page.querySelector("#search-input");
    const status = page.querySelector("#search-status");
    const list = page.querySelector("#search-results");
    const more = page.querySelector("#search-more");
    const filters = {
      collection: page.querySelector("#filter-collection"),
      session: page.querySelector("#filter-session"),
      type: page.querySelector("#filter-type"),
      award: page.querySelector("#filter-award"),
    };
    const params = new URLSearchParams(location.search);
    input.value = params.get("q") || "";

    function fillSelect(select, options, chosen, everything) {
      select.replaceChildren(el("option", null, everything));
      select.firstChild.value = "";
      for (const [value, label, count] of options) {
        const option = el("option", null, `${label} (${count})`);
        option.value = value;
        select.appendChild(option);
      }
      select.value = options.some(([value]) => value === chosen) ? chosen : "";
    }

    function counts(results, keysOf) {
      const tally = new Map();
      for (const r of results) for (const key of keysOf(state.store.doc(Number(r.ref)))) tally.set(key, (tally.get(key) || 0) + 1);
      return tally;
    }

    function render() {
      const text = input.value;
      const chosen = {
        collection: params.get("collection") || "", session: params.get("session") || "",
        type: params.get("type") || "", award: params.get("award") === "1",
      };
      list.replaceChildren();
      more.hidden = true;
      if (!text.trim()) {
        status.textContent = "Type words from a title, an author's name or an abstract.";
        page.classList.remove("has-results");
        return;
      }
      const results = search(text);
      const store = state.store;
      fillSelect(filters.collection, [...counts(results, (d) => [String(d[5])])].map(([k, n]) => [k, store.collections[Number(k)], n]), chosen.collection, "All collections");
      fillSelect(filters.session, [...counts(results, (d) => d[3].map((s) => store.sessions[s][1]))].map(([k, n]) => [k, store.sessions.find((s) => s[1] === k)[0] + " — " + store.collections[store.sessions.find((s) => s[1] === k)[2]], n]), chosen.session, "All sessions");
      fillSelect(filters.type, [...counts(results, (d) => (d[6] ? [d[6]] : []))].map(([k, n]) => [k, k, n]), chosen.type, "All types");
      filters.award.checked = chosen.award;
      const shown = results.filter((r) => {
        const d = store.doc(Number(r.ref));
        return (!filters.collection.value || String(d[5]) === filters.collection.value)
          && (!filters.session.value || d[3].some((s) => store.sessions[s][1] === filters.session.value))
          && (!filters.type.value || d[6] === filters.type.value)
          && (!filters.award.checked || d[7] === 1);
      });
      const terms = matchedTerms(results);
      const filtered = shown.length !== results.length ? ` (${results.length} before filters)` : "";
      status.textContent = shown.length
        ? `${shown.length} paper${shown.length === 1 ? "" : "s"} found${filtered}.`
        : `No papers match “${text.trim()}”${filtered}. Check the spelling, use fewer words, or clear the filters.`;
      page.classList.toggle("has-results", shown.length > 0);
      let rendered = 0;
      const renderMore = () => {
        const next = shown.slice(rendered, rendered + PAGE_SIZE);
        for (const r of next) list.appendChild(resultItem(r, terms, true));
        rendered += next.length;
        more.hidden = rendered >= shown.length;
        more.textContent = `Show ${Math.min(PAGE_SIZE, shown.length - rendered)} more`;
      };
      more.onclick = () => {
        const first = rendered;
        renderMore();
        const link = list.querySelectorAll("a.result-title")[first];
        if (link) link.focus();
      };
      renderMore();
    }

    function syncUrl() {
      params.set("q", input.value);
      for (const [name, control] of Object.entries(filters)) {
        const value = name === "award" ? (control.checked ? "1" : "") : control.value;
        if (value) params.set(name, value); else params.delete(name);
      }
      history.replaceState(null, "", "?" + params.toString());
    }

    function update() {
      if (!state.index) return;
      syncUrl();
      render();
    }

    status.textContent = "Loading search…";
    page.classList.add("is-loading");
    Promise.all([ensureIndex(), ensureSnippets()]).then(() => {
      page.classList.remove("is-loading");
      render();
    }, () => { status.textContent = "Search could not be loaded."; });
    form.addEventListener("submit", (event) => { event.preventDefault(); update(); });
    input.addEventListener("input", () => { params.delete("collection"); params.delete("session"); update(); });
    for (const control of Object.values(filters)) control.addEventListener("change", () => { syncUrl(); render(); });
    list.addEventListener("keydown", (event) => {
      const items = [...list.querySelectorAll("a.result-title")];
      const index = items.indexOf(document.activeElement);
      if (event.key === "ArrowDown" && index < items.length - 1) { event.preventDefault(); items[index + 1].focus(); }
      if (event.key === "ArrowUp") { event.preventDefault(); if (index <= 0) input.focus(); else items[index - 1].focus(); }
    });
    input.addEventListener("keydown", (event) => {
      const first = list.querySelector("a.result-title");
      if (event.key === "ArrowDown" && first) { event.preventDefault(); first.focus(); }
    });
    input.focus();
  }

  // ---- wiring ----------------------------------------------------------------------------------

  document.addEventListener("keydown", (event) => {
    if (event.key !== "/" || event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (target.closest && target.closest("input, textarea, select, [contenteditable]")) return;
    const box = document.querySelector("#search-input") || document.querySelector("#site-search");
    if (box) { event.preventDefault(); box.focus(); }
  });

  document.addEventListener("DOMContentLoaded", () => {
    const page = document.querySelector("#search-page");
    if (page) setupSearchPage(page);
    const header = document.querySelector("form.site-search");
    if (header && !page) setupHeaderBox(header);
  });
})();
