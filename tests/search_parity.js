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
  process.stdout.write(JSON.stringify({
    rankings,
    shardsLoaded: asked.size,
    frequencies: input.frequencies ? builder.fieldTermFrequencies : null,
  }));
}
main();
