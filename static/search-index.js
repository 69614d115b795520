// Expands confsite's compact search index into what lunr.Index.load takes. Shared by the page
// (search.js) and the parity test, which runs it in Node against an index lunr.js builds itself.
"use strict";

// Rebuild what lunr.Builder.build() makes, from term frequencies: the same BM25 formula,
// the same rounding, so the loaded index ranks exactly as a lunr.js-built one.
function confsiteExpandIndex(data, lunr) {
  const { fields, boosts, k1, b, terms, postings } = data;
  const documentCount = postings[0].length;
  const invertedIndex = terms.map((term, i) => {
    const posting = { _index: i };
    for (const field of fields) posting[field] = {};
    return [term, posting];
  });
  const decoded = postings.map((perDocument, f) => perDocument.map((codes, doc) => {
    const termNumbers = [];
    const frequencies = [];
    let term = 0;
    let length = 0;
    for (let i = 0; i < codes.length; i++) {
      term += codes[i] >> 1;
      const tf = codes[i] & 1 ? codes[++i] : 1;
      termNumbers.push(term);
      frequencies.push(tf);
      length += tf;
      invertedIndex[term][1][fields[f]][doc] = {};
    }
    return { termNumbers, frequencies, length };
  }));
  const idf = invertedIndex.map(([, posting]) => {
    let documentsWithTerm = 0;
    for (const field of fields) documentsWithTerm += Object.keys(posting[field]).length;
    const x = (documentCount - documentsWithTerm + 0.5) / (documentsWithTerm + 0.5);
    return Math.log(1 + Math.abs(x));
  });
  const fieldVectors = [];
  decoded.forEach((perDocument, f) => {
    const averageLength = perDocument.reduce((sum, d) => sum + d.length, 0) / documentCount;
    perDocument.forEach(({ termNumbers, frequencies, length }, doc) => {
      const elements = [];
      for (let i = 0; i < termNumbers.length; i++) {
        const tf = frequencies[i];
        let score = idf[termNumbers[i]] * ((k1 + 1) * tf) / (k1 * (1 - b + b * (length / averageLength)) + tf);
        score *= boosts[f];
        elements.push(termNumbers[i], Math.round(score * 1000) / 1000);
      }
      fieldVectors.push([fields[f] + "/" + doc, elements]);
    });
  });
  return lunr.Index.load({
    version: data.version, fields, fieldVectors, invertedIndex, pipeline: ["stemmer"],
  });
}

if (typeof module !== "undefined") module.exports = { confsiteExpandIndex };
else globalThis.confsiteExpandIndex = confsiteExpandIndex;
