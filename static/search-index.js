// Loads confsite's sharded search index (src/confsite/render/search_index.py) as a lunr.Index.
// Shared by the page (search.js), `confsite check` and the parity tests, which run it in Node
// against lunr.js's own index.
//
// The entry says where each shard (a run of the sorted vocabulary) starts; a shard is loaded
// when a query needs one of its terms, so what a search downloads stays small whatever the
// archive's size. A shard holds each term's postings with their weights, computed at build
// time by lunr.js's own formula and rounding, so no field lengths are needed. lunr's inverted
// index and field vectors are proxies over the terms loaded so far: lunr scores a document by
// the dot product of its field vectors with the query vector, divided by the query vector's
// length, so terms outside the query never change a score.
"use strict";

const MAX_PREFIX_SHARDS = 12; // see prefixFits
const DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz-_";
const DIGIT_VALUE = new Int8Array(128).fill(-1);
for (let i = 0; i < DIGITS.length; i++) DIGIT_VALUE[DIGITS.charCodeAt(i)] = i;

// One term's postings in one field: document numbers and weights, from "delta weight ...".
function decodePostings(text) {
  const documents = [];
  const weights = [];
  let doc = 0;
  let value = 0;
  let isWeight = false;
  for (let i = 0; i < text.length; i++) {
    const digit = DIGIT_VALUE[text.charCodeAt(i)];
    if (digit >= 32) { value = value * 32 + (digit - 32); continue; }
    value = value * 32 + digit;
    if (isWeight) weights.push(value / 1000);
    else { doc += value; documents.push(doc); }
    isWeight = !isWeight;
    value = 0;
  }
  return { documents, weights };
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

// A plain trie (edges per UTF-16 code unit, as lunr's own): lunr.TokenSet.fromArray
// minimizes it, which costs more than the rest of loading and gives the same terms.
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

// The word a clause's token set spells, or null when it has a wildcard or edit-distance
// branch.
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

// `loadShard(n)` resolves with shard n's data; `loadVocabulary()` with every term and its
// posting count. Both are asked for at most once each.
function confsiteLoadIndex(entry, lunr, loadShard, loadVocabulary) {
  const fields = entry.fields;
  const documentCount = entry.documents;
  const first = entry.shardFirst;
  const starts = entry.shardStarts;
  const known = new Map(); // term → { number, fields: [{documents, weights}] or texts }
  const shards = new Map(); // shard number → promise
  let vocabulary = null;
  let vocabularyLoading = null;
  let missed = null; // terms lunr asked for that are not loaded, while finding them

  const shardOf = (term) => {
    let low = 0;
    let high = first.length - 1;
    if (high < 0 || term < first[0]) return -1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (first[middle] <= term) low = middle; else high = middle - 1;
    }
    return low;
  };

  function ensureShard(n) {
    if (n < 0) return Promise.resolve();
    let loading = shards.get(n);
    if (!loading) {
      loading = Promise.resolve(loadShard(n)).then((shard) => {
        const terms = shard.terms ? shard.terms.split(" ") : [];
        const texts = shard.postings.map((field) => field.split("."));
        terms.forEach((term, i) => {
          known.set(term, { number: starts[n] + i, texts: texts.map((field) => field[i] || "") });
        });
      });
      shards.set(n, loading);
    }
    return loading;
  }

  const ensureTerms = (terms) => Promise.all([...new Set(terms.map(shardOf))].map(ensureShard));

  // Every shard that may hold a term starting with `prefix`.
  function prefixShards(prefix) {
    const wanted = [];
    for (let n = Math.max(0, shardOf(prefix)); n < first.length; n++) {
      if (n > shardOf(prefix) && !first[n].startsWith(prefix)) break;
      wanted.push(n);
    }
    return wanted;
  }
  const ensurePrefix = (prefix) => Promise.all(prefixShards(prefix).map(ensureShard));

  // Whether the word being typed may complete to the terms `prefix` begins: only while their
  // shards number at most MAX_PREFIX_SHARDS and hold at most the entry's `prefixPostings`
  // (hundreds), or they would be downloaded on a keystroke (at 100,000 papers "con" fills 51
  // shards, "mod" holds 136,000 postings). A shard of the word's `own` term alone is loaded
  // anyway and not counted ("model" fills one of 98,000 postings). The index alone decides,
  // whatever was loaded before.
  function prefixFits(prefix, own) {
    const wanted = prefixShards(prefix);
    let held = 0;
    for (const n of wanted) {
      const alone = (n + 1 < starts.length ? starts[n + 1] : entry.terms) === starts[n] + 1;
      if (!(alone && (first[n] === prefix || first[n] === own))) held += entry.shardPostings[n];
    }
    return wanted.length <= MAX_PREFIX_SHARDS && held <= entry.prefixPostings;
  }

  function ensureVocabulary() {
    if (!vocabularyLoading) {
      vocabularyLoading = Promise.resolve(loadVocabulary()).then((data) => {
        const terms = data.terms ? data.terms.split(" ") : [];
        vocabulary = { terms, postings: data.postings, trie: null };
      });
    }
    return vocabularyLoading;
  }

  function decoded(term) {
    const entry = known.get(term);
    if (!entry.fields) {
      entry.fields = entry.texts.map(decodePostings);
      delete entry.texts;
    }
    return entry;
  }

  // (field, document) → [term number, weight, ...] for every term made so far.
  const made = fields.map(() => new Map());
  const postingTable = lazyTable((term) => known.has(term), () => [...known.keys()], (term) => {
    const { number, fields: postings } = decoded(term);
    const posting = { _index: number };
    postings.forEach(({ documents, weights }, f) => {
      const refs = {};
      documents.forEach((doc, i) => {
        refs[doc] = {};
        let entries = made[f].get(doc);
        if (!entries) made[f].set(doc, (entries = []));
        entries.push(number, weights[i]);
      });
      posting[fields[f]] = refs;
    });
    return posting;
  }, true);
  // While a query's terms are being found, a term of the vocabulary not loaded yet is noted
  // and stands as a term found nowhere.
  const invertedIndex = new Proxy(postingTable, {
    get: (target, term) => {
      if (typeof term !== "string" || known.has(term) || !missed) return target[term];
      missed.add(term);
      return Object.fromEntries([["_index", 0], ...fields.map((field) => [field, {}])]);
    },
  });

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

  // lunr intersects every clause with the vocabulary. A plain word is looked up among the
  // loaded terms (or noted, while finding terms); wildcard and fuzzy clauses need the whole
  // vocabulary's trie.
  const tokenSet = {
    intersect(other) {
      const word = plainWord(other);
      if (word !== null) {
        if (missed && !known.has(word)) {
          missed.add(word);
          return new lunr.TokenSet();
        }
        return known.has(word) ? lunr.TokenSet.fromString(word) : new lunr.TokenSet();
      }
      if (!vocabulary) throw new Error("the vocabulary must be loaded for wildcards");
      if (!vocabulary.trie) vocabulary.trie = plainTokenSet(vocabulary.terms, lunr);
      return vocabulary.trie.intersect(other);
    },
  };

  const index = new lunr.Index({
    invertedIndex, fieldVectors, tokenSet, fields, pipeline: lunr.Pipeline.load(["stemmer"]),
  });

  // lunr query syntax: its terms are found by a first pass that notes the terms it needs,
  // which are then loaded; the second pass scores with all of them.
  async function search(text) {
    if (/[*~]/.test(text)) await ensureVocabulary();
    missed = new Set();
    try {
      index.search(text);
    } finally {
      const needed = [...missed];
      missed = null;
      await ensureTerms(needed);
    }
    return index.search(text);
  }

  // Loaded terms starting with `prefix` (ensurePrefix first), most widespread first:
  // completions for the word being typed.
  const postingCount = (term) => {
    const entry = known.get(term);
    if (entry.count === undefined) {
      entry.count = entry.fields
        ? entry.fields.reduce((n, field) => n + field.documents.length, 0)
        : entry.texts.reduce((n, text) => n + countPostings(text), 0);
    }
    return entry.count;
  };
  const completions = (prefix, limit) => {
    const found = [];
    for (const term of known.keys()) if (term.startsWith(prefix)) found.push(term);
    found.sort((x, y) => postingCount(y) - postingCount(x) || (x < y ? -1 : 1));
    return found.slice(0, limit);
  };
  const rankWords = wordRanker(fields.length, documentCount, lunr, known, decoded);
  return {
    index, search, ensureTerms, ensurePrefix, ensureVocabulary, completions, rankWords,
    prefixFits,
    hasTerm: (term) => known.has(term),
    vocabulary: () => vocabulary,
  };
}

// The page's query, ranked without lunr.Index.query, whose string keys, sets and objects per
// posting cost seconds at 100,000 papers. `words` are [{exact, others}]: every word a clause
// of its exact term (boost 10) and one of each other term it may match (boost 1), all fields,
// none required, as lunr.Index.query would be asked. The scores are lunr's to the bit: the
// query vector is a lunr.Vector made by the same upserts; a field's score is the dot product
// summed in term order (the order lunr's Vector.dot walks) over the query vector's magnitude;
// a paper's score adds its fields' scores in the order lunr first met each field of the paper
// (clause, then field). Papers matching every word are kept, the ones with more words matched
// as typed first, then by score, then by number (the page's order).
function wordRanker(fieldCount, documentCount, lunr, known, decoded) {
  const NONE = 0x7fffffff;
  const BITS = 30; // words with a bit of their own in the masks below
  const TOUCHED = 1 << BITS; // a paper any term of the query holds
  let dot = null; // per field and paper: the dot product so far
  let firstMet = null; // per field and paper: clause × fieldCount + field, when lunr met it
  let wordsMatched = null; // per paper: a bit per word with a term of it in the paper
  let wordsExact = null; // per paper: a bit per word whose exact term is in the paper

  function ensureScratch() {
    if (dot) return;
    dot = new Float64Array(fieldCount * documentCount);
    firstMet = new Int32Array(fieldCount * documentCount).fill(NONE);
    wordsMatched = new Int32Array(documentCount);
    wordsExact = new Int32Array(documentCount);
  }

  const holds = (term, doc) => known.has(term) && decoded(term).fields.some(({ documents }) => {
    let low = 0;
    let high = documents.length - 1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (documents[middle] === doc) return true;
      if (documents[middle] < doc) low = middle + 1; else high = middle - 1;
    }
    return false;
  });

  // The terms of the query a paper holds: lunr's matchData, made for a result when asked.
  function metadataOf(doc, terms) {
    const metadata = {};
    for (const term of terms) if (holds(term, doc)) metadata[term] = {};
    return metadata;
  }

  // Words past the 30 the bit masks hold (a pasted sentence): whether the paper holds a term
  // of each, and how many it holds as typed.
  function beyondMasks(words, doc) {
    let exactly = 0;
    for (let i = BITS; i < words.length; i++) {
      const { exact, others } = words[i];
      if (exact && holds(exact, doc)) exactly++;
      else if (!others.some((term) => holds(term, doc))) return -1;
    }
    return exactly;
  }

  return function rankWords(words) {
    ensureScratch();
    const query = new lunr.Vector();
    const terms = new Map(); // term → { number, clause, wordBits, exactBits }
    let clause = 0;
    const add = (term, boost, word, exact) => {
      const at = clause++;
      if (!known.has(term)) return;
      const number = known.get(term).number;
      query.upsert(number, boost, (a, b) => a + b);
      let info = terms.get(term);
      if (!info) terms.set(term, (info = { number, clause: at, wordBits: 0, exactBits: 0 }));
      if (word >= BITS) return;
      info.wordBits |= 1 << word;
      if (exact) info.exactBits |= 1 << word;
    };
    words.forEach((word, i) => {
      if (word.exact) add(word.exact, 10, i, true);
      for (const term of word.others) add(term, 1, i, false);
    });
    const magnitude = query.magnitude();
    const boostOf = new Map();
    for (let i = 0; i < query.elements.length; i += 2) {
      boostOf.set(query.elements[i], query.elements[i + 1]);
    }
    const ordered = [...terms].sort((a, b) => a[1].number - b[1].number);
    let touched = 0;
    for (const [term, info] of ordered) {
      const boost = boostOf.get(info.number);
      decoded(term).fields.forEach(({ documents, weights }, f) => {
        const met = info.clause * fieldCount + f;
        const base = f * documentCount;
        for (let k = 0; k < documents.length; k++) {
          const doc = documents[k];
          if (wordsMatched[doc] === 0) touched++;
          wordsMatched[doc] |= info.wordBits | TOUCHED;
          wordsExact[doc] |= info.exactBits;
          dot[base + doc] += boost * weights[k];
          if (met < firstMet[base + doc]) firstMet[base + doc] = met;
        }
      });
    }
    const every = ((1 << Math.min(words.length, BITS)) - 1) | TOUCHED;
    const docs = new Int32Array(touched);
    const scores = new Float64Array(touched);
    const exact = new Uint16Array(touched);
    const order = new Int32Array(fieldCount); // a paper's fields in the order lunr met them
    let kept = 0;
    // In paper order, so that a paper's place among equal scores needs no comparing.
    for (let doc = 0; doc < documentCount && touched; doc++) {
      if (wordsMatched[doc] === 0) continue;
      touched--;
      const beyond = words.length > BITS && wordsMatched[doc] === every
        ? beyondMasks(words, doc) : 0;
      if (wordsMatched[doc] === every && beyond >= 0) {
        let fields = 0;
        for (let f = 0; f < fieldCount; f++) {
          const met = firstMet[f * documentCount + doc];
          if (met === NONE) continue;
          let at = fields++;
          while (at > 0 && firstMet[order[at - 1] * documentCount + doc] > met) {
            order[at] = order[at - 1];
            at--;
          }
          order[at] = f;
        }
        let score = dot[order[0] * documentCount + doc] / magnitude || 0;
        for (let i = 1; i < fields; i++) score += dot[order[i] * documentCount + doc] / magnitude || 0;
        let exactly = beyond;
        for (let bits = wordsExact[doc]; bits; bits &= bits - 1) exactly++;
        docs[kept] = doc;
        scores[kept] = score;
        exact[kept] = exactly;
        kept++;
      }
      wordsMatched[doc] = 0;
      wordsExact[doc] = 0;
      for (let f = 0; f < fieldCount; f++) {
        dot[f * documentCount + doc] = 0;
        firstMet[f * documentCount + doc] = NONE;
      }
    }
    const queryTerms = [...terms.keys()];
    return new Ranking(kept, (i) => ({
      ref: String(docs[i]),
      score: scores[i],
      get matchData() { return { metadata: metadataOf(docs[i], queryTerms) }; },
    }), (i, j) => exact[j] - exact[i] || scores[j] - scores[i] || i - j);
  };
}

// Results best first, sorted only as far as they are read: typing shows the first eight of
// tens of thousands. `make(i)` is the i-th result, `compare` orders two of them.
class Ranking {
  constructor(length, make, compare) {
    this.length = length;
    this.make = make;
    this.compare = compare;
    this.sorted = null;
  }

  static of(results) {
    const ranking = new Ranking(results.length, (i) => results[i], () => 0);
    ranking.sorted = results;
    return ranking;
  }

  // The first `count` results.
  top(count) {
    if (this.sorted || count <= 0) return (this.sorted || []).slice(0, count);
    const best = []; // the best so far, in order
    for (let i = 0; i < this.length; i++) {
      if (best.length === count && this.compare(i, best[count - 1]) >= 0) continue;
      let at = best.length === count ? count - 1 : best.length;
      while (at > 0 && this.compare(i, best[at - 1]) < 0) {
        best[at] = best[at - 1];
        at--;
      }
      best[at] = i;
    }
    return best.map(this.make);
  }

  all() {
    if (!this.sorted) {
      const order = Array.from({ length: this.length }, (_, i) => i).sort(this.compare);
      this.sorted = order.map(this.make);
    }
    return this.sorted;
  }
}

// Postings in one field's text: every other number is a document delta.
function countPostings(text) {
  let numbers = 0;
  for (let i = 0; i < text.length; i++) if (DIGIT_VALUE[text.charCodeAt(i)] < 32) numbers++;
  return numbers / 2;
}

if (typeof module !== "undefined") module.exports = { confsiteLoadIndex, Ranking };
else Object.assign(globalThis, { confsiteLoadIndex, ConfsiteRanking: Ranking });
