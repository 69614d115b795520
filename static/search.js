// In-page search over the prebuilt lunr index (encoding: src/confsite/search.py).
// Every scraped string reaches the page through textContent, never through innerHTML.
"use strict";

(function () {
  const root = document.documentElement.dataset.root || "";
  const state = { index: null, hasTerm: null, completions: null, store: null, loading: null };
  const MAX_COMPLETIONS = 60; // of the word being typed, the most widespread
  const MIN_PREFIX = 3; // shorter prefixes expand to much of the vocabulary
  const PREVIEW_COUNT = 8;
  const PAGE_SIZE = 50;

  // ---- loading -------------------------------------------------------------------------

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      // Fetched at once, run in the order added: four scripts cost one round trip, not four.
      script.async = false;
      script.onload = resolve;
      script.onerror = () => reject(new Error("could not load " + src));
      document.head.appendChild(script);
    });
  }

  // What a result shows comes `perFile` papers to a file (search/cards/N.js), loaded for the
  // results shown. What filters need of every paper (search/filters.js, see document_store
  // in search_index.py) comes in columns of one string each, loaded by the search page only.
  // A document's row is put together when it is needed:
  // [title, authors, id, sessions, badges, collection, type, award, where].
  const RECORD = "\x1e";
  const UNIT = "\x1f";
  const list = (text) => (text ? text.split(UNIT) : []);

  function openStore(perFile) {
    const rows = new Map();
    const cards = new Map(); // chunk → columns, once loaded
    const loading = new Map();
    let filters = null; // the columns of search/filters.js, once given
    const store = {
      sessions: null,
      collections: null,
      years: null,
      useFilters(data) {
        filters = {
          sessions: data.sessions.split(RECORD), collection: data.collection.split(RECORD),
          presentation: data.presentation.split(RECORD), award: data.award,
          presentationNames: data.presentationNames,
        };
        store.sessions = data.sessionNames;
        store.collections = data.collectionNames;
        store.years = data.collectionYears;
      },
      ensureCards(numbers) {
        const chunks = new Set(numbers.map((n) => Math.floor(n / perFile)));
        return Promise.all([...chunks].map((chunk) => {
          if (!loading.has(chunk)) {
            loading.set(chunk, loadData("search/cards/" + chunk + ".js", "confsiteCards" + chunk)
              .then((data) => {
                cards.set(chunk, Object.fromEntries(Object.entries(data).map(([k, v]) => [k, v.split(RECORD)])));
              }));
          }
          return loading.get(chunk);
        }));
      },
      doc(n) {
        let row = rows.get(n);
        if (!row) {
          row = [undefined, [], undefined, [], [], undefined, null, 0, ""];
          rows.set(n, row);
        }
        if (filters && row[5] === undefined) {
          const type = filters.presentation[n];
          row[3] = list(filters.sessions[n]).map(Number);
          row[5] = Number(filters.collection[n]);
          row[6] = type ? filters.presentationNames[Number(type)] : null;
          row[7] = filters.award.charCodeAt(n) === 49 ? 1 : 0;
        }
        const card = row[0] === undefined && cards.get(Math.floor(n / perFile));
        if (card) {
          const i = n % perFile;
          row[0] = card.titles[i] || null;
          row[1] = list(card.authors[i]);
          row[2] = card.ids[i];
          row[4] = list(card.badges[i]);
          row[8] = card.where[i];
        }
        return row;
      },
    };
    return store;
  }

  function ensureIndex() {
    if (!state.loading) {
      state.loading = Promise.all(["assets/lunr.js", "assets/search-terms.js",
        "assets/search-index.js", "search/index.js"].map((path) => loadScript(root + path)))
        .then(() => {
          const data = window.confsiteSearchData;
          const loaded = window.confsiteLoadIndex(data.index, lunr,
            (n) => loadData("search/terms/" + n + ".js", "confsiteShard" + n),
            () => loadData("search/vocabulary.js", "confsiteVocabulary"));
          state.loaded = loaded;
          state.index = loaded.index;
          state.hasTerm = loaded.hasTerm;
          state.completions = loaded.completions;
          state.store = openStore(data.chunks.cards);
          state.abstractChunk = data.chunks.abstracts;
          state.documents = data.index.documents;
          delete window.confsiteSearchData;
        });
    }
    return state.loading;
  }

  // A file that hands the page its data under a global name (a script works from file://).
  function loadData(path, name) {
    return loadScript(root + path).then(() => {
      const data = window[name];
      delete window[name];
      return data;
    });
  }

  // Plain abstracts come a few papers to a file (search/abstracts/N.js), loaded for the
  // results shown: their matching passage is the snippet.
  const abstractChunks = new Map();
  function abstractOf(n) {
    const chunk = Math.floor(n / state.abstractChunk);
    let loading = abstractChunks.get(chunk);
    if (!loading) {
      loading = loadData("search/abstracts/" + chunk + ".js", "confsiteAbstracts" + chunk)
        .then((text) => text.split(RECORD));
      abstractChunks.set(chunk, loading);
    }
    return loading.then((texts) => texts[n % state.abstractChunk] || "");
  }

  // ---- querying ------------------------------------------------------------------------

  const SYNTAX = /[:+\-~^*]/;
  const TRIM = /^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu;
  // Endings a half-typed word may be on its way to, after a stem it already spells
  // ("learni" → learn, "generaliza" → gener); any other rest ("minifloat" after "min") is not.
  const ENDINGS = ["ing", "ings", "ed", "es", "ies", "ied", "s", "ly", "ness", "ment", "ments",
    "ement", "er", "ers", "ation", "ations", "ization", "izations", "isation", "ational",
    "ities", "ity", "ive", "ively", "ize", "izes", "ized", "izing", "ise", "ised", "al", "ally",
    "alism", "ance", "ence", "ant", "ent", "able", "ible", "ic", "ical", "ically", "ful", "ous",
    "ously", "ism", "ist", "ists", "ion", "ions", "ator", "ators", "ate", "ates", "ated", "y"];

  function onItsWay(rest) {
    return ENDINGS.some((ending) => ending.startsWith(rest));
  }

  // The shards a query's words may need: their terms, and for the word being typed the terms
  // it begins and the stems it is on its way past. A `patient` search (the header box, while
  // typing) leaves a wide prefix for a longer one; the search page was asked for its results.
  function preload(text, patient) {
    const typing = !/\s$/.test(text);
    const tokens = confsiteTerms.tokens(text);
    const needed = [];
    const waits = [];
    tokens.forEach((token, i) => {
      const term = confsiteTerms.term(token, lunr);
      if (term !== null) needed.push(term);
      const prefix = token.replace(TRIM, "");
      if (typing && i === tokens.length - 1 && prefix.length >= MIN_PREFIX) {
        const fits = !patient || state.loaded.prefixFits(prefix, term);
        if (fits) waits.push(state.loaded.ensurePrefix(prefix));
        for (let k = prefix.length - 1; k >= MIN_PREFIX; k--) needed.push(prefix.slice(0, k));
      }
    });
    return Promise.all([state.loaded.ensureTerms(needed), ...waits]);
  }

  // What each word of a query may match: its term, and for the word being typed the terms it
  // begins or is on its way past.
  function analyse(text, patient) {
    const typing = !/\s$/.test(text);
    const tokens = confsiteTerms.tokens(text);
    const words = [];
    let stopWords = 0;
    tokens.forEach((token, i) => {
      const term = confsiteTerms.term(token, lunr);
      const being = typing && i === tokens.length - 1;
      const prefix = token.replace(TRIM, "");
      const completes = being && prefix.length >= MIN_PREFIX;
      if (term === null && !completes) { if (prefix) stopWords++; return; }
      const exact = term !== null && state.hasTerm(term) ? term : null;
      const others = [];
      const wide = patient && completes && !state.loaded.prefixFits(prefix, term);
      if (completes) {
        if (!wide) {
          for (const t of state.completions(prefix, MAX_COMPLETIONS)) if (t !== exact) others.push(t);
        }
        for (let k = prefix.length - 1; k >= MIN_PREFIX; k--) {
          const shorter = prefix.slice(0, k);
          if (shorter !== exact && state.hasTerm(shorter) && onItsWay(prefix.slice(k))) others.push(shorter);
        }
      }
      // A word too short to complete yet that matches no term as it is: more letters to come.
      const waiting = wide && !exact && !others.length;
      words.push({ token: prefix, term, exact, others, stopWord: term === null, waiting });
    });
    return { words, stopWords };
  }

  // Optimal string alignment distance, given up past `limit`.
  function distance(a, b, limit) {
    if (Math.abs(a.length - b.length) > limit) return limit + 1;
    let before = null;
    let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const row = [i];
      let best = i;
      for (let j = 1; j <= b.length; j++) {
        const cost = a[i - 1] === b[j - 1] ? 0 : 1;
        let d = Math.min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost);
        if (before && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, before[j - 2] + 1);
        row.push(d);
        if (d < best) best = d;
      }
      if (best > limit) return limit + 1;
      before = previous;
      previous = row;
    }
    return previous[b.length];
  }

  // The nearest term of the vocabulary to a word that matches none: edit distance 1, or 2 for
  // words of 8 letters or more; the most widespread among the nearest.
  function correction(word) {
    const target = word.term || word.token;
    if (!target || word.token.length < 4) return null;
    const limit = word.token.length >= 8 ? 2 : 1;
    let found = null;
    let foundDistance = limit + 1;
    let foundPostings = -1;
    const { terms, postings: counts } = state.loaded.vocabulary();
    for (let t = 0; t < terms.length; t++) {
      const candidate = terms[t];
      if (Math.abs(candidate.length - target.length) > limit) continue;
      const d = distance(target, candidate, Math.min(limit, foundDistance));
      if (d > limit || d > foundDistance) continue;
      const postings = counts[t];
      if (d < foundDistance || postings > foundPostings) {
        found = candidate; foundDistance = d; foundPostings = postings;
      }
    }
    return found;
  }

  // Papers matching every word, the ones with more words as typed first ("minifloat" gives
  // its paper first), then by lunr's score (search-index.js ranks as lunr.Index.query would).
  function runWords(words) {
    return state.loaded.rankWords(words);
  }

  // { results, corrected: [typed, term] pairs, onlyStopWords }
  async function plainSearch(text, current, ready, patient) {
    await preload(text, patient);
    if (!(await ready())) return null; // typed on meanwhile: no need to rank
    const { words, stopWords } = analyse(text, patient);
    if (words.some((w) => w.waiting)) return null; // what is shown stays until a longer prefix
    if (!words.length || words.every((w) => w.stopWord && !w.others.length)) {
      return { results: ConfsiteRanking.of([]), corrected: [], onlyStopWords: stopWords > 0 };
    }
    const usable = words.filter((w) => w.exact || w.others.length);
    const missing = words.filter((w) => !w.exact && !w.others.length && !w.stopWord);
    let results = missing.length ? ConfsiteRanking.of([]) : runWords(usable);
    const corrected = [];
    // Nothing matches: correct the words no term matches, or else every word (words shorter
    // than 4 letters are not corrected, so they need no vocabulary).
    const fixable = (missing.length ? missing : words.filter((w) => !w.stopWord))
      .filter((w) => w.token.length >= 4);
    if (!results.length && fixable.length) {
      await state.loaded.ensureVocabulary();
      if (!current()) return null;
      const fixed = new Map();
      for (const word of fixable) {
        const term = correction(word);
        if (term && term !== word.exact) fixed.set(word, term);
      }
      if (fixed.size) {
        await state.loaded.ensureTerms([...fixed.values()]);
        const again = words.filter((w) => fixed.has(w) || w.exact || w.others.length).map((w) =>
          (fixed.has(w) ? { ...w, exact: fixed.get(w), others: [] } : w));
        results = runWords(again);
        if (results.length) {
          for (const [word, term] of fixed) corrected.push([word.token, term]);
          // The note spells the corrections as the results' titles and authors do.
          await state.store.ensureCards(results.top(20).map((r) => Number(r.ref)));
        }
      }
    }
    return { results, corrected, onlyStopWords: false };
  }

  // Resolves with null when `current()` says a later query has made this one's results moot
  // or `ready()`, once its shards are in, that a later query's are in too.
  async function search(text, current, ready, patient) {
    if (SYNTAX.test(text)) {
      try {
        const results = await state.loaded.search(confsiteTerms.fold(text));
        return { results: ConfsiteRanking.of(results), corrected: [] };
      } catch (error) {
        if (!(error instanceof lunr.QueryParseError)) throw error;
      }
      return plainSearch(text.replace(/[:+~^*]/g, " ").replace(/(^|\s)-/g, " "), current, ready, patient);
    }
    return plainSearch(text, current, ready, patient);
  }

  // Searches as the user types. `prepare` loads what the results need shown before they are.
  // On the search page only the latest query's results are shown; neither runs for a query
  // typed over already. The header box (`early`) also shows a query's results while a later
  // one's are on their way, unless a later one's are shown already: typing fast on a slow
  // network, results keep up with the words instead of waiting for the last keystroke.
  let searches = 0;
  let shownSearch = 0; // the latest query whose results are shown
  let readySearch = 0; // the latest query whose shards are in
  function latest(text, prepare, show, early) {
    const mine = ++searches;
    const current = early ? () => mine > shownSearch : () => mine === searches;
    // Keystrokes waiting for the same shards get them at once: only the latest of them is
    // ranked and loads its cards (each would load its own, and they would queue).
    const ready = () => {
      readySearch = Math.max(readySearch, mine);
      return new Promise((resolve) => setTimeout(resolve, 0))
        .then(() => current() && mine === readySearch);
    };
    return search(text, current, ready, early).then((found) => (found && current() ? prepare(found) : null))
      .then((found) => {
        if (found && current()) {
          shownSearch = mine;
          show(found);
        }
      });
  }
  function clearSearches() {
    shownSearch = ++searches;
  }

  // The corrected words as the papers spell them: "trasnformer" shows "transformers", not
  // the stem "transform".
  function spelled(term, results) {
    for (const r of results.top(20)) {
      const doc = state.store.doc(Number(r.ref));
      for (const text of [doc[0] || "", ...doc[1]]) {
        for (const word of text.split(/[\s\-]+/)) {
          const token = confsiteTerms.tokens(word)[0];
          if (token && confsiteTerms.term(token, lunr) === term) return word.replace(TRIM, "");
        }
      }
    }
    return term;
  }

  function correctionNote(found) {
    if (!found.corrected.length) return "";
    const shown = found.corrected.map(([, term]) => spelled(term, found.results)).join(" ");
    return `Showing results for “${shown}”.`;
  }

  function noMatchText(text, found) {
    if (found.onlyStopWords) {
      return `“${text.trim()}” is too common to search for: add a word from a title, an author's name or a topic.`;
    }
    return `No papers match “${text.trim()}”. Check the spelling, or use fewer words.`;
  }

  // 12,345 as toLocaleString("en") writes it, without its first call's cost (loading the
  // locale's number formats took 70 ms of a first search on a slow phone).
  const thousands = (n) => String(n).replace(/\B(?=(\d{3})+$)/g, ",");
  const plural = (n, one, many) => `${thousands(n)} ${n === 1 ? one : many}`;

  // ---- rendering (textContent only) ------------------------------------------------------

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }

  // The matched term a word of a title or an abstract stands for, or null.
  function matcher(terms) {
    return (word) => {
      const token = confsiteTerms.tokens(word)[0];
      const term = token ? confsiteTerms.term(token, lunr) : null;
      return term !== null && terms.has(term) ? term : null;
    };
  }

  const WORD = /([\p{L}\p{N}_][\p{L}\p{N}\p{M}_'’]*)/u;

  function highlighted(text, isMatch) {
    const fragment = document.createDocumentFragment();
    for (const part of text.split(WORD)) {
      if (!part) continue;
      const hit = WORD.test(part) && isMatch(part);
      fragment.appendChild(hit ? el("mark", null, part) : document.createTextNode(part));
    }
    return fragment;
  }

  const PASSAGE = 240;

  // The sentence of an abstract with the most matched terms (the abstract's start if none),
  // cut to about PASSAGE characters around its first match. Terms the title shows count
  // half: the passage should show what the title does not.
  function passage(text, isMatch, inTitle) {
    const sentences = text.match(/[^.!?]+(?:[.!?]+(?=\s|$)|$)\s*/g) || [text];
    let best = 0;
    let bestScore = 0;
    let offset = 0;
    let bestOffset = 0;
    sentences.forEach((sentence, i) => {
      const hits = new Set(sentence.split(/[^\p{L}\p{N}_'’]+/u).map((w) => (w ? isMatch(w) : null)));
      hits.delete(null);
      let score = 0;
      for (const term of hits) score += inTitle.has(term) ? 0.5 : 1;
      if (score > bestScore) { best = i; bestScore = score; bestOffset = offset; }
      offset += sentence.length;
    });
    let start = bestScore ? bestOffset : 0;
    if (bestScore) {
      // Keep the match in view when the sentence is long.
      let at = 0;
      for (const part of sentences[best].split(WORD)) {
        if (part && WORD.test(part) && isMatch(part)) break;
        at += part.length;
      }
      if (at > PASSAGE / 2) {
        const from = text.lastIndexOf(" ", bestOffset + at - PASSAGE / 3);
        if (from > start) start = from + 1;
      }
    }
    let end = Math.min(text.length, start + PASSAGE);
    if (end < text.length) {
      const space = text.lastIndexOf(" ", end);
      if (space > start + PASSAGE / 2) end = space;
    }
    return (start > 0 ? "…" : "") + text.slice(start, end).trim() + (end < text.length ? "…" : "");
  }

  function paperHref(doc) {
    return root + "papers/" + doc[2] + "/index.html";
  }

  function matchedIn(result) {
    return new Set(result.matchData ? Object.keys(result.matchData.metadata) : []);
  }

  // Never a bare "Untitled paper": what the paper cards say (render/labels.py), as a note.
  function untitledLabel(doc) {
    const author = doc[1].length ? " · " + doc[1][0] : "";
    return el("span", "untitled", "Untitled paper (title not in the program" + author + ")");
  }

  function resultItem(result, full) {
    const n = Number(result.ref);
    const doc = state.store.doc(n);
    const isMatch = matcher(matchedIn(result));
    const item = el("li", "search-result");
    const link = el("a", "result-title");
    link.href = paperHref(doc);
    if (doc[0]) link.appendChild(highlighted(doc[0], isMatch));
    else link.appendChild(untitledLabel(doc));
    // On the search page each result is a heading, so a screen reader can jump between them.
    const heading = full ? el("h2", "result-heading") : null;
    if (heading) heading.appendChild(link);
    item.appendChild(heading || link);
    if (doc[1].length) item.appendChild(el("p", "result-authors", doc[1].join(", ")));
    item.appendChild(el("p", "result-where muted", doc[8]));
    if (full) {
      if (doc[4].length) {
        const badges = el("ul", "badges");
        for (const label of doc[4]) badges.appendChild(el("li", "badge", label));
        item.appendChild(badges);
      }
      const snippet = el("p", "result-snippet");
      item.appendChild(snippet);
      const inTitle = new Set((doc[0] || "").split(/[^\p{L}\p{N}_'’]+/u).map((w) => (w ? isMatch(w) : null)));
      abstractOf(n).then((text) => {
        if (text) snippet.appendChild(highlighted(passage(text, isMatch, inTitle), isMatch));
        else snippet.remove();
      });
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
      if (!text.trim()) {
        clearSearches();
        panel.replaceChildren();
        panel.hidden = true;
        status.textContent = "";
        return;
      }
      // Each result's card is asked for in rank order; the preview shows once the first
      // result's card is in, and each next result as soon as its card and those above it are
      // (a browser fetches six files at a time from a host over HTTP/1.1, and eight results
      // may need eight files).
      latest(text, (found) => {
        found.preview = found.results.top(PREVIEW_COUNT);
        found.cards = found.preview.map((r) => state.store.ensureCards([Number(r.ref)]));
        return Promise.resolve(found.cards[0]).then(() => found);
      }, (found) => showFound(text, found), true);
    }

    let previews = 0; // the latest preview shown
    function showFound(text, found) {
      const mine = ++previews;
      // A reader who has arrowed into the results keeps their place in the new ones.
      const focused = [...panel.querySelectorAll(".result-title")].indexOf(document.activeElement);
      const refocus = Math.min(focused, found.preview.length - 1);
      panel.replaceChildren();
      active = -1;
      const results = found.results;
      const note = correctionNote(found);
      if (note) panel.appendChild(el("p", "search-note", note));
      const list = el("ul", "search-results");
      found.cards.reduce((shown, cards, i) => shown.then(() => cards).then(() => {
        if (mine !== previews) return;
        const item = list.appendChild(resultItem(found.preview[i], false));
        if (i === refocus) item.querySelector("a").focus();
      }), Promise.resolve());
      if (focused >= 0 && refocus < 0) input.focus();
      if (results.length) panel.appendChild(list);
      else panel.appendChild(el("p", "search-empty", noMatchText(text, found)));
      const label = results.length === 1 ? "See the 1 result"
        : results.length ? `See all ${plural(results.length, "result", "results")}` : "Open the search page";
      const all = el("a", "search-all", label);
      all.href = root + "search/index.html?q=" + encodeURIComponent(text.trim());
      panel.appendChild(all);
      panel.hidden = false;
      status.textContent = (note ? note + " " : "") + plural(results.length, "result", "results");
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
      year: page.querySelector("#filter-year"),
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
        const option = el("option", null, `${label} (${thousands(count)})`);
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

    // With no query every paper is listed, in the site's order, so a visitor can filter first.
    function everyPaper() {
      return Array.from({ length: state.documents }, (_, n) => ({ ref: String(n), score: 0 }));
    }

    let ready = false; // the index and the filters' data are in
    function render() {
      if (!ready) return;
      const text = input.value;
      list.setAttribute("aria-busy", "true");
      if (!text.trim()) {
        clearSearches();
        renderFound(text, { results: ConfsiteRanking.of(everyPaper()), corrected: [] });
        return;
      }
      latest(text, (found) => found, (found) => renderFound(text, found));
    }

    function renderFound(text, found) {
      const chosen = {
        collection: params.get("collection") || "", year: params.get("year") || "",
        session: params.get("session") || "", type: params.get("type") || "",
        award: params.get("award") === "1",
      };
      const browsing = !text.trim();
      const results = found.results.all();
      const store = state.store;
      const yearOf = (d) => store.years[d[5]];
      const sessionLabel = (slug) => {
        const session = store.sessions.find((s) => s[1] === slug);
        return session[0] + " — " + store.collections[session[2]];
      };
      fillSelect(filters.collection, [...counts(results, (d) => [String(d[5])])].sort((a, b) => a[0] - b[0]).map(([k, n]) => [k, store.collections[Number(k)], n]), chosen.collection, "All collections");
      fillSelect(filters.year, [...counts(results, (d) => (yearOf(d) ? [String(yearOf(d))] : []))].sort().map(([k, n]) => [k, k, n]), chosen.year, "All years");
      fillSelect(filters.session, [...counts(results, (d) => d[3].map((s) => store.sessions[s][1]))].map(([k, n]) => [k, sessionLabel(k), n]), chosen.session, "All sessions");
      fillSelect(filters.type, [...counts(results, (d) => (d[6] ? [d[6]] : []))].sort().map(([k, n]) => [k, k, n]), chosen.type, "All types");
      filters.award.checked = chosen.award;
      const shown = results.filter((r) => {
        const d = store.doc(Number(r.ref));
        return (!filters.collection.value || String(d[5]) === filters.collection.value)
          && (!filters.year.value || String(yearOf(d)) === filters.year.value)
          && (!filters.session.value || d[3].some((s) => store.sessions[s][1] === filters.session.value))
          && (!filters.type.value || d[6] === filters.type.value)
          && (!filters.award.checked || d[7] === 1);
      });
      const filtered = shown.length !== results.length ? ` (${thousands(results.length)} before filters)` : "";
      const note = correctionNote(found);
      let statusText;
      if (browsing) {
        statusText = `${plural(shown.length, "paper", "papers")}${filtered}. Type words from a title, an author's name or an abstract, or filter.`;
      } else if (shown.length) {
        statusText = (note ? note + " " : "") + `${plural(shown.length, "paper", "papers")} found${filtered}.`;
      } else if (results.length) {
        statusText = `No papers match “${text.trim()}” with these filters${filtered}. Clear a filter to see them.`;
      } else {
        statusText = noMatchText(text, found);
      }
      let rendered = 0;
      const mine = searches;
      // Cards of the next page first: a result is shown whole or not yet, and the previous
      // results stay until the new ones replace them at once.
      const renderMore = () => {
        const next = shown.slice(rendered, rendered + PAGE_SIZE);
        return store.ensureCards(next.map((r) => Number(r.ref))).then(() => {
          if (mine !== searches) return;
          if (rendered === 0) {
            list.replaceChildren();
            status.textContent = statusText;
            page.classList.toggle("has-results", shown.length > 0);
          }
          list.removeAttribute("aria-busy");
          for (const r of next) list.appendChild(resultItem(r, true));
          rendered += next.length;
          more.hidden = rendered >= shown.length;
          more.textContent = `Show ${Math.min(PAGE_SIZE, shown.length - rendered)} more`;
        });
      };
      more.onclick = () => {
        const first = rendered;
        renderMore().then(() => {
          const link = list.querySelectorAll("a.result-title")[first];
          if (link) link.focus();
        });
      };
      renderMore();
    }

    function syncUrl() {
      if (input.value) params.set("q", input.value); else params.delete("q");
      for (const [name, control] of Object.entries(filters)) {
        const value = name === "award" ? (control.checked ? "1" : "") : control.value;
        if (value) params.set(name, value); else params.delete(name);
      }
      const query = params.toString();
      history.replaceState(null, "", query ? "?" + query : location.pathname);
    }

    function update() {
      if (!ready) return;
      syncUrl();
      render();
    }

    status.textContent = "Loading search…";
    page.classList.add("is-loading");
    // The filters' data loads beside the index: every view of this page shows filters.
    const filtersData = loadData("search/filters.js", "confsiteFilters");
    Promise.all([ensureIndex(), filtersData]).then(([, data]) => {
      state.store.useFilters(data);
      ready = true;
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
