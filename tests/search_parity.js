// Parity check run by tests/test_search.py: build a lunr.js index from the same documents in
// Node, with lunr.js's builder and confsite's term pipeline (static/search-terms.js), load
// confsite's compact index with the page's own code, and return both rankings and the
// builder's term counts.
"use strict";
const fs = require("fs");
const path = require("path");
const lunr = require(path.join(__dirname, "..", "node_modules", "lunr"));
const { confsiteLoadIndex } = require(path.join(__dirname, "..", "static", "search-index.js"));
const terms = require(path.join(__dirname, "..", "static", "search-terms.js"));

function confsiteTerm(token) {
  const term = terms.term(token.toString(), lunr);
  return term === null ? undefined : token.update(() => term);
}
lunr.Pipeline.registerFunction(confsiteTerm, "confsiteTerm");

const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const builder = new lunr.Builder();
builder.tokenizer = (text) => (text == null ? [] : terms.tokens(String(text)).map((t) => new lunr.Token(t)));
builder.pipeline.add(confsiteTerm);
builder.searchPipeline.add(lunr.stemmer);
builder.ref("ref");
input.fields.forEach(([name, boost]) => builder.field(name, { boost }));
input.documents.forEach((doc) => builder.add(doc));
const built = builder.build();
// The sharded index as the page loads it: shards and the vocabulary only when asked for.
const { entry, shards, vocabulary } = input.compact;
const asked = new Set();
const loader = confsiteLoadIndex(entry, lunr, (n) => { asked.add(n); return shards[n]; }, () => vocabulary);

// A query is lunr syntax (given to Index.search) or a list of words, each made a term by
// confsite's pipeline and every one required, as the page asks.
const wordTerms = (query) => query.flatMap((w) => terms.tokens(w).map((t) => terms.term(t, lunr)))
  .filter((term) => term !== null);
function byWords(index, query) {
  return index.query((q) => {
    for (const term of wordTerms(query)) q.term(term, { usePipeline: false, presence: lunr.Query.presence.REQUIRED });
  });
}
const scored = (results) => results.map((r) => [r.ref, r.score]);

// The page's query of a list of words (search.js): each word's term, boosted, and for the last
// word the terms of the vocabulary it begins, as the page completes the word being typed;
// papers must match every word. `reference` asks lunr.Index.query and orders as the page did
// before it ranked without lunr. The page's rankWords must give the same papers in the same
// order as lunr.js's own index, and the same scores to the bit as lunr.Index.query over the
// loaded shards (lunr's own index numbers terms in another order, so its sums may differ in
// the last bit).
const vocabularyTerms = vocabulary.terms ? vocabulary.terms.split(" ") : [];
function pageWords(query) {
  const words = wordTerms(query).map((term) => ({ exact: term, others: [] }));
  const last = words[words.length - 1];
  if (last) {
    last.others = vocabularyTerms.filter((t) => t.startsWith(last.exact) && t !== last.exact)
      .slice(0, 60);
    if (!vocabularyTerms.includes(last.exact)) last.exact = null;
  }
  return words;
}
function reference(index, words) {
  const results = index.query((q) => {
    for (const word of words) {
      if (word.exact) q.term(word.exact, { usePipeline: false, boost: 10 });
      for (const term of word.others) q.term(term, { usePipeline: false });
    }
  });
  const kept = [];
  for (const result of results) {
    const matched = result.matchData.metadata;
    let exactly = 0;
    const all = words.every((word) => {
      if (word.exact && word.exact in matched) { exactly++; return true; }
      return word.others.some((t) => t in matched);
    });
    if (all) kept.push({ result, exactly });
  }
  kept.sort((a, b) => b.exactly - a.exactly || b.result.score - a.result.score
    || Number(a.result.ref) - Number(b.result.ref));
  return kept.map((k) => [k.result.ref, k.result.score, Object.keys(k.result.matchData.metadata).sort()]);
}

async function main() {
  const rankings = [];
  for (const query of input.queries) {
    const builtResults = typeof query === "string" ? built.search(query) : byWords(built, query);
    let loadedResults;
    if (typeof query === "string") loadedResults = await loader.search(query);
    else {
      await loader.ensureTerms(wordTerms(query));
      loadedResults = byWords(loader.index, query);
    }
    rankings.push({ query, built: scored(builtResults), loaded: scored(loadedResults) });
  }
  const shardsLoaded = asked.size;
  for (const ranking of rankings) {
    if (typeof ranking.query === "string") continue;
    const words = pageWords(ranking.query);
    // The page finds nothing without asking lunr when a word matches no term.
    if (!words.length || words.some((w) => !w.exact && !w.others.length)) continue;
    await loader.ensureTerms(words.flatMap((w) => [w.exact, ...w.others]).filter(Boolean));
    ranking.page = {
      built: reference(built, words),
      proxied: reference(loader.index, words),
      loaded: loader.rankWords(words).all().map((r) => [r.ref, r.score, Object.keys(r.matchData.metadata).sort()]),
      // What the search box reads: the first results, picked without sorting them all.
      top: loader.rankWords(words).top(8).map((r) => [r.ref, r.score, Object.keys(r.matchData.metadata).sort()]),
    };
  }
  process.stdout.write(JSON.stringify({
    rankings,
    shardsLoaded,
    frequencies: input.frequencies ? builder.fieldTermFrequencies : null,
  }));
}
main();
