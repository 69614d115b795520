// Loads confsite's compact search index (src/confsite/search.py) as a lunr.Index. Shared by
// the page (search.js) and the parity test, which runs it in Node against lunr.js's own index.
//
// The postings are decoded into typed arrays; lunr's inverted index and field vectors are then
// proxies that build a term's posting, or a document field's vector, the first time lunr asks
// for it. Weights use lunr.Builder's formula and rounding, so scores equal a lunr.js build.
"use strict";

const DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
const DIGIT_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < DIGITS.length; i++) DIGIT_VALUE[DIGITS.charCodeAt(i)] = i;
const DOCUMENT_END = ".".charCodeAt(0);

// One field's postings: per document, its term numbers and frequencies.
function decodeField(text, documentCount) {
  const starts = new Uint32Array(documentCount + 1);
  const terms = new Uint32Array(text.length);
  const frequencies = new Uint16Array(text.length);
  let entries = 0;
  let doc = 0;
  let term = 0;
  let value = 0;
  let expectFrequency = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === DOCUMENT_END) {
      starts[++doc] = entries;
      term = 0;
      continue;
    }
    const digit = DIGIT_VALUE[code];
    if (digit >= 32) { value = value * 32 + (digit - 32); continue; }
    value = value * 32 + digit;
    if (expectFrequency) {
      frequencies[entries - 1] = value;
      expectFrequency = false;
    } else {
      term += value >> 1;
      terms[entries] = term;
      frequencies[entries] = 1;
      entries++;
      expectFrequency = (value & 1) === 1;
    }
    value = 0;
  }
  starts[documentCount] = entries;
  return { starts, terms: terms.subarray(0, entries), frequencies: frequencies.subarray(0, entries) };
}

// An object whose properties are made on first read. `isKey` says which exist; `keys` lists
// them (lunr enumerates field vectors only for all-negative queries such as "-graph").
function lazyTable(isKey, keys, make) {
  const cache = new Map();
  const get = (key) => {
    if (typeof key !== "string" || !isKey(key)) return undefined;
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

function confsiteLoadIndex(data, lunr) {
  const { fields, boosts, k1, b } = data;
  const documentCount = data.documents;
  const terms = data.terms ? data.terms.split(" ") : [];
  const decoded = data.postings.map((text) => decodeField(text, documentCount));

  // Per field: document lengths (sum of frequencies) and their average; per term: how many
  // (field, document) postings hold it, which is what lunr.idf counts.
  const lengths = decoded.map(({ starts, frequencies }) => {
    const perDocument = new Float64Array(documentCount);
    let total = 0;
    for (let doc = 0; doc < documentCount; doc++) {
      let length = 0;
      for (let i = starts[doc]; i < starts[doc + 1]; i++) length += frequencies[i];
      perDocument[doc] = length;
      total += length;
    }
    return { perDocument, average: total / documentCount };
  });
  const documentsWithTerm = new Uint32Array(terms.length);
  for (const field of decoded) for (const term of field.terms) documentsWithTerm[term]++;
  const idf = new Float64Array(terms.length);
  for (let t = 0; t < terms.length; t++) {
    const x = (documentCount - documentsWithTerm[t] + 0.5) / (documentsWithTerm[t] + 0.5);
    idf[t] = Math.log(1 + Math.abs(x));
  }

  // Term → its (field, document) postings, by counting sort over all fields.
  const postingStarts = new Uint32Array(terms.length + 1);
  for (let t = 0; t < terms.length; t++) postingStarts[t + 1] = postingStarts[t] + documentsWithTerm[t];
  const postingField = new Uint8Array(postingStarts[terms.length]);
  const postingDocument = new Uint32Array(postingStarts[terms.length]);
  const fill = postingStarts.slice(0, terms.length);
  decoded.forEach(({ starts }, f) => {
    const fieldTerms = decoded[f].terms;
    for (let doc = 0; doc < documentCount; doc++) {
      for (let i = starts[doc]; i < starts[doc + 1]; i++) {
        const slot = fill[fieldTerms[i]]++;
        postingField[slot] = f;
        postingDocument[slot] = doc;
      }
    }
  });

  const termNumber = new Map(terms.map((term, i) => [term, i]));
  const invertedIndex = lazyTable((term) => termNumber.has(term), () => terms, (term) => {
    const t = termNumber.get(term);
    const posting = { _index: t };
    for (const field of fields) posting[field] = {};
    for (let i = postingStarts[t]; i < postingStarts[t + 1]; i++) {
      posting[fields[postingField[i]]][postingDocument[i]] = {};
    }
    return posting;
  });

  const parseFieldRef = (fieldRef) => {
    const slash = fieldRef.indexOf("/");
    const doc = slash > 0 ? Number(fieldRef.slice(slash + 1)) : NaN;
    return [fields.indexOf(fieldRef.slice(0, slash)), doc];
  };
  const isFieldRef = (fieldRef) => {
    const [f, doc] = parseFieldRef(fieldRef);
    return f >= 0 && Number.isInteger(doc) && doc >= 0 && doc < documentCount
      && fieldRef.endsWith("/" + doc);
  };
  const allFieldRefs = () => fields.flatMap((field) =>
    Array.from({ length: documentCount }, (_, doc) => field + "/" + doc));
  const fieldVectors = lazyTable(isFieldRef, allFieldRefs, (fieldRef) => {
    const [f, doc] = parseFieldRef(fieldRef);
    const { starts, terms: fieldTerms, frequencies } = decoded[f];
    const length = lengths[f].perDocument[doc];
    const average = lengths[f].average;
    const elements = [];
    for (let i = starts[doc]; i < starts[doc + 1]; i++) {
      const tf = frequencies[i];
      let score = idf[fieldTerms[i]] * ((k1 + 1) * tf) / (k1 * (1 - b + b * (length / average)) + tf);
      score *= boosts[f];
      elements.push(fieldTerms[i], Math.round(score * 1000) / 1000);
    }
    return new lunr.Vector(elements);
  });

  const index = new lunr.Index({
    invertedIndex,
    fieldVectors,
    tokenSet: plainTokenSet(terms, lunr),
    fields,
    pipeline: lunr.Pipeline.load(["stemmer"]),
  });
  return { index, hasTerm: (term) => termNumber.has(term) };
}

if (typeof module !== "undefined") module.exports = { confsiteLoadIndex };
else globalThis.confsiteLoadIndex = confsiteLoadIndex;
