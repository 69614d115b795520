// The words of a query made into index terms exactly as src/confsite/render/terms.py makes
// them at build time: folded, split as lunr.js's tokenizer splits, trimmed, stop words
// dropped, stemmed by lunr.js. Shared by the page (search.js) and the parity tests in Node.
"use strict";

// Letters NFKD leaves whole but a reader types plainly; terms.py has the same table.
const FOLDED_LETTERS = {
  "ß": "ss", "æ": "ae", "œ": "oe", "ø": "o", "đ": "d", "ð": "d", "ł": "l", "ı": "i",
  "þ": "th", "ħ": "h", "ŧ": "t", "ŀ": "l",
};
const FOLDABLE = /[ßæœøđðłıþħŧŀ]/g;
const SEPARATOR = /[\s\-]+/;
// lunr.js's trimmer strips /\W/, ASCII only, which would delete γ or 深度学习 whole.
const TRIM = /^[^\p{L}\p{N}_]+|[^\p{L}\p{N}_]+$/gu;
const SYMBOL = /\p{S}/u;

function confsiteFold(text) {
  if (/^[\x00-\x7f]*$/.test(text)) return text.toLowerCase();
  return text.toLowerCase().normalize("NFKD").replace(/\p{Mn}+/gu, "").normalize("NFC")
    .toLowerCase().replace(FOLDABLE, (c) => FOLDED_LETTERS[c]);
}

function confsiteTokens(text) {
  return confsiteFold(text).split(SEPARATOR).filter((word) => word);
}

// The index term of one folded word, or null. A word of symbols only (🚀) is kept whole;
// one of punctuation only is dropped.
function confsiteTerm(word, lunr) {
  let trimmed = word.replace(TRIM, "");
  if (!trimmed) {
    if (!SYMBOL.test(word)) return null;
    trimmed = word;
  }
  if (!lunr.stopWordFilter(new lunr.Token(trimmed))) return null;
  return lunr.stemmer(new lunr.Token(trimmed)).toString();
}

const confsiteTerms = { fold: confsiteFold, tokens: confsiteTokens, term: confsiteTerm };
if (typeof module !== "undefined") module.exports = confsiteTerms;
else globalThis.confsiteTerms = confsiteTerms;
