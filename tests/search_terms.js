// Term parity run by tests/test_search_terms.py: the page's pipeline (static/search-terms.js)
// and lunr.js's own (trimmer, stop-word filter, stemmer) over a list of words, in Node.
"use strict";
const fs = require("fs");
const path = require("path");
const lunr = require(path.join(__dirname, "..", "node_modules", "lunr"));
const terms = require(path.join(__dirname, "..", "static", "search-terms.js"));

// lunr.js's pipeline as lunr.js runs it; an empty result (a token of punctuation) is no term.
const lunrPipeline = new lunr.Pipeline();
lunrPipeline.add(lunr.trimmer, lunr.stopWordFilter, lunr.stemmer);
function lunrTerm(token) {
  const out = lunrPipeline.run([new lunr.Token(token)]);
  return out.length && out[0].toString() ? out[0].toString() : null;
}

const words = JSON.parse(fs.readFileSync(process.argv[2], "utf8"));
const page = words.map((word) => terms.tokens(word).map((t) => terms.term(t, lunr)));
const tokens = [...new Set(words.flatMap((word) => terms.tokens(word)))];
const ascii = tokens.filter((t) => /^[\x00-\x7f]+$/.test(t));
process.stdout.write(JSON.stringify({ page, ascii, lunr: ascii.map(lunrTerm) }));
