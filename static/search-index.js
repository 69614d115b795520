// Loads confsite's compact search index (src/confsite/search.py) as a lunr.Index. Shared by
// the page (search.js) and the parity test, which runs it in Node against lunr.js's own index.
//
// Postings arrive term-major and are decoded into typed arrays in one pass. lunr's inverted
// index and field vectors are proxies: a term's posting is made the first time lunr asks for
// it, and a document field's vector holds the weights of the terms made so far. lunr scores a
// document by the dot product of its field vectors with the query vector, divided by the
// query vector's length, so terms outside the query never change a score. Weights use
// lunr.Builder's own formula and rounding, so scores equal those of a lunr.js build.
"use strict";

const DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
const DIGIT_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < DIGITS.length; i++) DIGIT_VALUE[DIGITS.charCodeAt(i)] = i;
const TERM_END = ".".charCodeAt(0);

// One field's postings: per term, the documents holding it and the term's frequency there;
// also each document's field length (the sum of its frequencies), which BM25 needs.
function decodeField(text, termCount, documentCount) {
  const starts = new Uint32Array(termCount + 1);
  const documents = new Uint32Array(text.length);
  const frequencies = new Uint16Array(text.length);
  const lengths = new Float64Array(documentCount);
  let entries = 0;
  let term = 0;
  let doc = 0;
  let value = 0;
  let expectFrequency = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === TERM_END) {
      starts[++term] = entries;
      doc = 0;
      continue;
    }
    const digit = DIGIT_VALUE[code];
    if (digit >= 32) { value = value * 32 + (digit - 32); continue; }
    value = value * 32 + digit;
    if (expectFrequency) {
      frequencies[entries - 1] = value;
      lengths[doc] += value - 1;
      expectFrequency = false;
    } else {
      doc += value >> 1;
      documents[entries] = doc;
      frequencies[entries] = 1;
      lengths[doc] += 1;
      entries++;
      expectFrequency = (value & 1) === 1;
    }
    value = 0;
  }
  starts[termCount] = entries;
  let total = 0;
  for (let d = 0; d < documentCount; d++) total += lengths[d];
  return { starts, documents, frequencies, lengths, average: total / documentCount };
}

// An object whose properties are made on first read. `isKey` says which exist; `keys` lists
// them (lunr enumerates field vectors only for all-negative queries such as "-graph").
function lazyTable(isKey, keys, make, cacheValues) {
  const cache = new Map();
  const get = (key) => {
    if (typeof key !== "string" || !isKey(key)) return undefined;
    if (!cacheValues) return make(key);
    let value = cache.get(key);
    if (value === undefined) { value = make(key); cache.set(key, value); }
    return value;
  };
  return new Proxy({}, {
    get: (target, key) => get(key),
    has: (target, key) => typeof key === "string" && isKey(key),
    ownKeys: () => keys(),
    getOwnPropertyDescriptor: (target, key) => (typeof key === "string" && isKey(key)
      ? { value: get(key), enumerable: true, configurable: true, writable: false } : undefined),
  });
}

// lunr.TokenSet.fromArray minimizes the trie, which costs more than the whole rest of loading;
// intersecting with a plain trie (edges per UTF-16 code unit, as lunr's own) gives the same terms.
function plainTokenSet(terms, lunr) {
  const root = new lunr.TokenSet();
  for (const term of terms) {
    let node = root;
    for (let i = 0; i < term.length; i++) {
      const char = term.charAt(i);
      node = node.edges[char] || (node.edges[char] = new lunr.TokenSet());
    }
    node.final = true;
  }
  return root;
}

// The first part of a clause's token set that a plain word spells, or null when it has a
// wildcard or edit-distance branch.
function plainWord(tokenSet) {
  let word = "";
  let node = tokenSet;
  for (;;) {
    const edges = Object.keys(node.edges);
    if (edges.length === 0) return node.final ? word : null;
    if (edges.length !== 1 || edges[0] === "*" || node.final) return null;
    word += edges[0];
    node = node.edges[edges[0]];
  }
}

// lunr intersects every clause with the vocabulary. For a plain word that is a lookup; only
// wildcard and fuzzy clauses need the vocabulary's trie, which is then built once.
function vocabularySet(terms, termNumber, lunr) {
  let trie = null;
  return {
    intersect(other) {
      const word = plainWord(other);
      if (word !== null) {
        return termNumber.has(word) ? lunr.TokenSet.fromString(word) : new lunr.TokenSet();
      }
      if (!trie) trie = plainTokenSet(terms, lunr);
      return trie.intersect(other);
    },
  };
}

function confsiteLoadIndex(data, lunr) {
  const { fields, boosts, k1, b } = data;
  const documentCount = data.documents;
  const terms = data.terms ? data.terms.split(" ") : [];
  const termNumber = new Map(terms.map((term, i) => [term, i]));
  const decoded = data.postings.map((text) => decodeField(text, terms.length, documentCount));

  // lunr.idf counts the (field, document) postings of a term.
  const idf = (t) => {
    let documentsWithTerm = 0;
    for (const field of decoded) documentsWithTerm += field.starts[t + 1] - field.starts[t];
    const x = (documentCount - documentsWithTerm + 0.5) / (documentsWithTerm + 0.5);
    return Math.log(1 + Math.abs(x));
  };

  // (field, document) → [term number, weight, ...] for every term made so far.
  const made = decoded.map(() => new Map());
  const invertedIndex = lazyTable((term) => termNumber.has(term), () => terms, (term) => {
    const t = termNumber.get(term);
    const termIdf = idf(t);
    const posting = { _index: t };
    decoded.forEach((field, f) => {
      const refs = {};
      for (let i = field.starts[t]; i < field.starts[t + 1]; i++) {
        const doc = field.documents[i];
        const tf = field.frequencies[i];
        let score = termIdf * ((k1 + 1) * tf)
          / (k1 * (1 - b + b * (field.lengths[doc] / field.average)) + tf);
        score *= boosts[f];
        refs[doc] = {};
        let entries = made[f].get(doc);
        if (!entries) made[f].set(doc, (entries = []));
        entries.push(t, Math.round(score * 1000) / 1000);
      }
      posting[fields[f]] = refs;
    });
    return posting;
  }, true);

  const parseFieldRef = (fieldRef) => {
    const slash = fieldRef.indexOf("/");
    return [fields.indexOf(fieldRef.slice(0, slash)), Number(fieldRef.slice(slash + 1))];
  };
  const isFieldRef = (fieldRef) => {
    const [f, doc] = parseFieldRef(fieldRef);
    return f >= 0 && Number.isInteger(doc) && doc >= 0 && doc < documentCount
      && fieldRef.endsWith("/" + doc);
  };
  const allFieldRefs = () => fields.flatMap((field) =>
    Array.from({ length: documentCount }, (_, doc) => field + "/" + doc));
  // Not cached: a later query may have made more of this document's terms.
  const fieldVectors = lazyTable(isFieldRef, allFieldRefs, (fieldRef) => {
    const [f, doc] = parseFieldRef(fieldRef);
    const entries = made[f].get(doc) || [];
    const order = [];
    for (let i = 0; i < entries.length; i += 2) order.push(i);
    order.sort((x, y) => entries[x] - entries[y]);
    const elements = [];
    for (const i of order) elements.push(entries[i], entries[i + 1]);
    return new lunr.Vector(elements);
  }, false);

  const index = new lunr.Index({
    invertedIndex,
    fieldVectors,
    tokenSet: vocabularySet(terms, termNumber, lunr),
    fields,
    pipeline: lunr.Pipeline.load(["stemmer"]),
  });
  // Terms starting with `prefix`, most widespread first: completions for the word being typed.
  const postingCount = (t) => decoded.reduce((n, field) => n + field.starts[t + 1] - field.starts[t], 0);
  const completions = (prefix, limit) => {
    let low = 0;
    let high = terms.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if (terms[middle] < prefix) low = middle + 1; else high = middle;
    }
    const found = [];
    for (let t = low; t < terms.length && terms[t].startsWith(prefix); t++) found.push(t);
    found.sort((x, y) => postingCount(y) - postingCount(x) || x - y);
    return found.slice(0, limit).map((t) => terms[t]);
  };
  return { index, hasTerm: (term) => termNumber.has(term), completions, terms, postings: postingCount };
}

if (typeof module !== "undefined") module.exports = { confsiteLoadIndex };
else globalThis.confsiteLoadIndex = confsiteLoadIndex;
