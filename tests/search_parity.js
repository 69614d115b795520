// Parity check run by tests/test_search.py: build a lunr.js index from the same documents in
// Node, load confsite's compact index with the page's own code, and return both rankings.
"use strict";
const fs = require("fs");
const path = require("path");
const lunr = require(path.join(__dirname, "..", "node_modules", "lunr"));
const { confsiteLoadIndex } = require(path.join(__dirname, "..", "static", "search-index.js"));

// lunr.py's trimmer strips Unicode non-word characters (Python's \W); lunr.js's strips ASCII
// ones only. Use lunr.py's rule here so both indexes see the same tokens.
function pythonTrimmer(token) {
  return token.update((s) => {
    const match = /^[^\p{L}\p{N}_]*?([\p{L}\p{N}_]+)[^\p{L}\p{N}_]*?$/u.exec(s);
    return match ? match[1] : s;
  });
}
lunr.Pipeline.registerFunction(pythonTrimmer, "pythonTrimmer");

const input = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const built = lunr(function () {
  this.pipeline.reset();
  this.pipeline.add(pythonTrimmer, lunr.stopWordFilter, lunr.stemmer);
  this.searchPipeline.reset();
  this.searchPipeline.add(lunr.stemmer);
  this.ref("ref");
  input.fields.forEach(([name, boost]) => this.field(name, { boost }));
  input.documents.forEach((doc) => this.add(doc));
});
const loaded = confsiteLoadIndex(input.compact, lunr).index;
const rank = (index, query) => index.search(query).map((r) => [r.ref, r.score]);
const output = input.queries.map((query) => ({ query, built: rank(built, query), loaded: rank(loaded, query) }));
process.stdout.write(JSON.stringify(output));
