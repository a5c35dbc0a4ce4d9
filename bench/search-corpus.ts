// The text the search benchmark seeds (bench/search-seed.ts), made here without a
// database: a deterministic stream of chat messages whose words follow Zipf's law
// (the few common words are in most messages, most words are rare), with marker
// words planted at known rates so each query's result count is known in advance.
// The same seed always gives the same corpus, so runs on the two databases, and
// runs on different days, search the same text.

/** A small deterministic generator (mulberry32): the corpus must not depend on Math.random. */
export function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws ranks 0..n-1 with probability proportional to 1/(rank+1)^s. */
export function zipf(n: number, s: number, next: () => number): () => number {
  const cumulative = new Float64Array(n);
  let total = 0;
  for (let rank = 0; rank < n; rank++) cumulative[rank] = total += 1 / Math.pow(rank + 1, s);
  return () => {
    const target = next() * total;
    let low = 0;
    let high = n - 1;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (cumulative[mid]! < target) low = mid + 1;
      else high = mid;
    }
    return low;
  };
}

/** The share of draws that give `rank`. */
export function zipfShare(n: number, s: number, rank: number): number {
  let total = 0;
  for (let r = 0; r < n; r++) total += 1 / Math.pow(r + 1, s);
  return 1 / Math.pow(rank + 1, s) / total;
}

// The head of the vocabulary, most common first: English function words, then the
// words of a working conversation. Synthetic words (below) make up the long tail.
const HEAD = (
  'the to and a of i in is it for that you on we this be with have are not will can at so if do but ' +
  'just as was from or my me all what there about up out one get they by an our like when them no ' +
  'your think some know how would more see now then also need let time should its which here could ' +
  'make thanks good new yes ok today still go well back first next after work week going done look ' +
  'check update review change test build fix issue plan meeting tomorrow team release doc notes branch ' +
  'deploy later call data number version file question idea share sure right help add open send list ' +
  'morning friday monday agree draft page link start end close report budget client design user ' +
  'feedback server error log config step order note thing point case part state early late soon ' +
  'please sorry great maybe probably already again before since until while because though ' +
  'merge ticket sprint demo slides agenda summary chart figure table section proposal option'
).split(' ');

const ONSETS = ['b', 'c', 'd', 'f', 'g', 'h', 'j', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'w', 'z', 'br', 'ch', 'cl', 'dr', 'fl', 'gr', 'pl', 'pr', 'sh', 'sl', 'st', 'tr'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ee', 'oa', 'ou'];
const CODAS = ['', '', '', 'n', 'r', 's', 't', 'l', 'm', 'nd', 'rk', 'st'];

/**
 * The words planted at known rates (the share of messages that hold each),
 * kept out of the Zipf vocabulary so their counts are exactly what is planted.
 */
export const MARKERS = {
  /** A common topic word: the first of the two-word query, and of the operator query. */
  garden: 0.03,
  /** A less common one: the second word of the two-word query. */
  trellis: 0.01,
  /** The operator query's phrase, planted as the two words in a row. */
  'south wall': 0.003,
  /** The operator query's word to leave out. */
  blocked: 0.02,
} as const;

/**
 * Words planted beside another far more often than chance, as words of one
 * topic are: a share of the messages holding `garden` also hold these. So the
 * two-word query finds a few thousand messages, and the operator query a page.
 */
export const ALONGSIDE_GARDEN = { trellis: 0.1, 'south wall': 0.2 } as const;

/** The rare word: planted in exactly this many messages, spread over the whole history. */
export const RARE_WORD = 'quokka';
export const RARE_COUNT = 25;

const PLANTED = new Set(['garden', 'trellis', 'south', 'wall', 'blocked', RARE_WORD]);

/** A vocabulary of `size` words, most common first: HEAD, then pronounceable synthetic words. */
export function vocabulary(size: number, next: () => number): string[] {
  const words = HEAD.filter((w) => !PLANTED.has(w));
  const seen = new Set(words);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!;
  while (words.length < size) {
    const syllables = 1 + Math.floor(next() * 2.6);
    let word = '';
    for (let i = 0; i < syllables; i++) word += pick(ONSETS) + pick(VOWELS);
    word += pick(CODAS);
    if (seen.has(word) || PLANTED.has(word)) continue;
    seen.add(word);
    words.push(word);
  }
  return words;
}

/** What the seed writes for one message, before it has an id. */
export interface MessageDraft {
  /** Index into the Spaces, by Zipf rank (0 is the busiest). */
  spaceRank: number;
  /** Index into the authors, by Zipf rank. */
  authorRank: number;
  /** A direct message's other member, by Zipf rank; null otherwise. */
  directRank: number | null;
  /** A task discussion message rather than a channel one (the seed picks the task). */
  discussion: boolean;
  body: string;
}

export const VOCABULARY_SIZE = 50_000;
export const AUTHORS = 2_000;
export const SPACES = 200;

/** Zipf exponents: words (close to English), authors and Spaces (a few much busier than the rest). */
const WORD_S = 1.0;
const AUTHOR_S = 1.0;
const SPACE_S = 0.8;

const ACCENTED = ['café', 'naïve', 'résumé', 'Zürich', 'São', 'Málaga', 'Łódź', 'façade'];
const CJK = ['東京で会議', '資料を確認しました', '明日の予定', '서울 회의', 'ขอบคุณครับ'];

/**
 * Messages `count` long, in posting order. Lengths are mostly short chat lines
 * (about a dozen words), a few long ones; some carry Markdown, numbers, links,
 * accented words or unspaced scripts, so the tokenizer meets what it meets in use.
 */
export function* messages(count: number, seed = 1): Generator<MessageDraft> {
  const next = random(seed);
  const words = vocabulary(VOCABULARY_SIZE, next);
  const word = zipf(words.length, WORD_S, next);
  const author = zipf(AUTHORS, AUTHOR_S, next);
  const space = zipf(SPACES, SPACE_S, next);
  const rareEvery = Math.max(1, Math.floor(count / RARE_COUNT));
  for (let i = 0; i < count; i++) {
    const long = next() < 0.02;
    const length = long ? 100 + Math.floor(next() * 200) : 3 + Math.floor(-Math.log(1 - next()) * 11);
    const parts: string[] = [];
    for (let w = 0; w < length; w++) {
      let text = words[word()]!;
      const flavour = next();
      if (flavour < 0.01) text = `**${text}**`;
      else if (flavour < 0.015) text = `\`${text}\``;
      else if (flavour < 0.02) text = `#${Math.floor(next() * 5000)}`;
      else if (flavour < 0.022) text = `https://example.test/${text}/${Math.floor(next() * 100)}`;
      else if (flavour < 0.025) text = ACCENTED[Math.floor(next() * ACCENTED.length)]!;
      parts.push(text);
    }
    if (next() < 0.005) parts.push(CJK[Math.floor(next() * CJK.length)]!);
    const plant = (marker: string) => parts.splice(Math.floor(next() * (parts.length + 1)), 0, marker);
    for (const [marker, share] of Object.entries(MARKERS)) {
      if (next() >= share) continue;
      plant(marker);
      if (marker === 'garden') for (const [beside, given] of Object.entries(ALONGSIDE_GARDEN)) if (next() < given) plant(beside);
    }
    if (i % rareEvery === Math.floor(rareEvery / 2) && i / rareEvery < RARE_COUNT) plant(RARE_WORD);
    const first = parts[0]!;
    parts[0] = first.charAt(0).toUpperCase() + first.slice(1);
    const end = next();
    const body = parts.join(' ') + (end < 0.7 ? '.' : end < 0.85 ? '?' : end < 0.9 ? '!' : '');
    const kind = next();
    const authorRank = author();
    let directRank: number | null = null;
    if (kind < 0.02) {
      directRank = author();
      if (directRank === authorRank) directRank = (authorRank + 1) % AUTHORS;
    }
    yield { spaceRank: space(), authorRank, directRank, discussion: kind >= 0.02 && kind < 0.03, body };
  }
}

/** Writes `count` words of the vocabulary's common part at a time, for task titles and bodies and Resource text. */
export function proseWriter(next: () => number, words: string[]): (count: number) => string {
  const word = zipf(Math.min(words.length, 5_000), WORD_S, next);
  return (count) => {
    const out: string[] = [];
    for (let i = 0; i < count; i++) out.push(words[word()]!);
    return out.join(' ');
  };
}
