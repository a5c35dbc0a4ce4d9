import type { TString } from '@sinclair/typebox';
import { ChannelName } from '../channels/schemas.js';
import { AtriumError } from '../shared/errors.js';
import { Handle } from '../shared/schemas.js';
import { SpaceSlug } from '../spaces/schemas.js';
import { MAX_QUERY_LENGTH, SEARCH_KINDS, type SearchKind } from './schemas.js';
import { terms } from './text.js';

/**
 * The search query language (docs/search.md, "The query language"): what `q`
 * may say, read into clauses of folded terms and filters. The compilers in
 * match-syntax.ts turn the clauses into each database's match syntax, and the
 * service turns the filters into conditions; nothing the caller typed reaches
 * SQL or a match syntax except as folded terms (text.ts).
 */

/** A word or a phrase: one or more folded terms that must stand together, in order. */
export interface Clause {
  terms: string[];
  /** The last term matches any term it begins (`word*`). */
  prefix: boolean;
}

/** Where `in:` looks: a Space, or one channel of it. */
export interface Place {
  space: string;
  channel: string | null;
}

export interface ParsedQuery {
  /** Every one must match. */
  include: Clause[];
  /** None may match. */
  exclude: Clause[];
  /** `from:`: any of these authors (empty: anyone). */
  authors: string[];
  /** `in:`: any of these places (empty: anywhere the caller may read). */
  places: Place[];
  /** `kind:`: any of these kinds (empty: all). */
  kinds: SearchKind[];
  /** `is:dm`: direct messages only. */
  directOnly: boolean;
  /** `before:`: only records whose `created_ts` is earlier than this instant. */
  createdBefore: string | null;
  /** `after:`: only records whose `created_ts` is later than this instant (the last millisecond of the day named). */
  createdAfter: string | null;
}

/** How many clauses and operators one query may hold, together. */
export const MAX_QUERY_PARTS = 32;

const OPERATORS = ['from', 'in', 'kind', 'is', 'before', 'after'] as const;
type Operator = (typeof OPERATORS)[number];
const isOperator = (name: string): name is Operator => (OPERATORS as readonly string[]).includes(name);

// Whitespace, and control characters (NUL included): they separate the parts
// of a query and are never an error in themselves.
const SEPARATOR = /[\s\p{Z}\p{Cc}]/u;
const OPERATOR_FORM = /^([A-Za-z]+):(.*)$/su;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

const refuse = (detail: string) => new AtriumError('search_query_invalid', detail);

/**
 * Reads `q`. Throws `search_query_invalid` for a query that is too long, holds
 * too many parts, gives a known operator a bad value, or leaves nothing to
 * search for; any other text is a query.
 */
export function parseQuery(q: string): ParsedQuery {
  const chars = Array.from(q);
  if (chars.length === 0) throw refuse('q is empty: give at least one word or operator.');
  if (chars.length > MAX_QUERY_LENGTH) throw refuse(`q is ${chars.length} characters long; at most ${MAX_QUERY_LENGTH} are allowed.`);

  const reading = new Reading();
  let i = 0;
  const at = (k: number) => chars[k] ?? '';
  const separator = (k: number) => k < chars.length && SEPARATOR.test(at(k));
  while (i < chars.length) {
    if (separator(i)) {
      i += 1;
      continue;
    }
    // Leading hyphens negate what follows them; alone, they are nothing.
    let negated = false;
    if (at(i) === '-') {
      while (at(i) === '-') i += 1;
      if (i >= chars.length || separator(i)) continue;
      negated = true;
    }
    if (at(i) === '"') {
      // A phrase runs to the next quote, or to the end of q when none closes it.
      let close = i + 1;
      while (close < chars.length && at(close) !== '"') close += 1;
      let body = chars.slice(i + 1, close).join('');
      i = close + 1;
      let starred = false;
      if (at(i) === '*') {
        starred = true;
        while (at(i) === '*') i += 1;
      } else {
        const stars = trailingStars(body);
        if (stars > 0) {
          body = body.slice(0, body.length - stars);
          starred = true;
        }
      }
      reading.clause(body, starred, negated);
      continue;
    }
    // A bare word runs to a separator, or to a quote that opens a phrase.
    let end = i;
    while (end < chars.length && !separator(end) && at(end) !== '"') end += 1;
    const word = chars.slice(i, end).join('');
    i = end;
    const operator = OPERATOR_FORM.exec(word);
    const name = operator?.[1]?.toLowerCase() ?? '';
    if (operator && isOperator(name)) {
      if (negated) throw refuse(`-${word}: an operator cannot be negated; leave out words with -word instead.`);
      reading.filter(name, operator[2] ?? '');
      continue;
    }
    const stars = trailingStars(word);
    reading.clause(word.slice(0, word.length - stars), stars > 0, negated);
  }
  return reading.result();
}

function trailingStars(text: string): number {
  let n = 0;
  while (n < text.length && text[text.length - 1 - n] === '*') n += 1;
  return n;
}

/** What one query has said so far, checked part by part. */
class Reading {
  private parts = 0;
  private readonly include = new Map<string, Clause>();
  private readonly exclude = new Map<string, Clause>();
  private readonly authors = new Set<string>();
  private readonly places = new Map<string, Place>();
  private readonly kinds = new Set<SearchKind>();
  private directOnly = false;
  private createdBefore: string | null = null;
  private createdAfter: string | null = null;

  /**
   * A word or phrase. Its text may give several terms (`foo-bar`, `東京`): a
   * phrase of them. A star makes the last term a prefix only when it follows
   * that term directly (`foo*`, not `foo-*`). Text that gives no term
   * (punctuation, emoji) says nothing and is passed over.
   */
  clause(text: string, starred: boolean, negated: boolean): void {
    const found = terms(text);
    const last = found[found.length - 1];
    if (!last) return;
    this.count();
    const clause: Clause = { terms: found.map((t) => t.term), prefix: starred && last.end === Array.from(text).length };
    const key = `${clause.prefix ? '*' : ''}${clause.terms.join(' ')}`;
    (negated ? this.exclude : this.include).set(key, clause);
  }

  filter(name: Operator, value: string): void {
    this.count();
    if (value === '') throw refuse(`${name}: needs a value right after the colon.`);
    switch (name) {
      case 'from': {
        const handle = value.replace(/^@/, '').toLowerCase();
        if (!fits(handle, Handle)) throw refuse(`from:${value} does not name a member handle.`);
        this.authors.add(handle);
        return;
      }
      case 'in': {
        const slash = value.indexOf('/');
        const space = (slash < 0 ? value : value.slice(0, slash)).toLowerCase();
        const channel = slash < 0 ? null : value.slice(slash + 1).toLowerCase();
        if (!fits(space, SpaceSlug)) throw refuse(`in:${value} does not name a Space.`);
        if (channel !== null && !fits(channel, ChannelName)) throw refuse(`in:${value} does not name a channel after the Space.`);
        this.places.set(`${space}/${channel ?? ''}`, { space, channel });
        return;
      }
      case 'kind': {
        const kind = SEARCH_KINDS.find((k) => k === value.toLowerCase());
        if (!kind) throw refuse(`kind:${value} is not a kind of record; use ${SEARCH_KINDS.map((k) => `kind:${k}`).join(', ')}.`);
        this.kinds.add(kind);
        return;
      }
      case 'is': {
        if (value.toLowerCase() !== 'dm') throw refuse(`is:${value} is not known; only is:dm is.`);
        this.directOnly = true;
        return;
      }
      case 'before': {
        // Repeated bounds all hold: the earliest `before:` and the latest `after:` win.
        const start = `${calendarDay(value, name)}T00:00:00.000Z`;
        if (this.createdBefore === null || start < this.createdBefore) this.createdBefore = start;
        return;
      }
      case 'after': {
        // The day's last millisecond, rather than the next day's first: written
        // so, 9999-12-31 needs no five-digit year.
        const last = `${calendarDay(value, name)}T23:59:59.999Z`;
        if (this.createdAfter === null || last > this.createdAfter) this.createdAfter = last;
        return;
      }
    }
  }

  result(): ParsedQuery {
    const filtered =
      this.authors.size > 0 ||
      this.places.size > 0 ||
      this.kinds.size > 0 ||
      this.directOnly ||
      this.createdBefore !== null ||
      this.createdAfter !== null;
    // Words to leave out, or nothing at all, would list everything the caller
    // may read: a query must ask for something, and saying so beats an empty page.
    if (this.include.size === 0 && !filtered) {
      throw refuse(
        this.exclude.size > 0
          ? 'Nothing to search for: add a word or an operator beside the words to leave out.'
          : 'Nothing to search for: q holds no letters or digits and no operator.',
      );
    }
    return {
      include: [...this.include.values()],
      exclude: [...this.exclude.values()],
      authors: [...this.authors],
      places: [...this.places.values()],
      kinds: [...this.kinds],
      directOnly: this.directOnly,
      createdBefore: this.createdBefore,
      createdAfter: this.createdAfter,
    };
  }

  private count(): void {
    this.parts += 1;
    if (this.parts > MAX_QUERY_PARTS) throw refuse(`q holds more than ${MAX_QUERY_PARTS} words, phrases and operators.`);
  }
}

/**
 * A handle, Space slug or channel name as the schemas that create them allow,
 * so a value no record can carry is refused rather than searched for.
 */
function fits(value: string, schema: TString): boolean {
  const length = Array.from(value).length;
  return new RegExp(schema.pattern ?? '').test(value) && length >= (schema.minLength ?? 0) && length <= (schema.maxLength ?? Infinity);
}

/** A calendar day written YYYY-MM-DD, checked to exist (days are UTC, as `created_ts` is). */
function calendarDay(value: string, name: 'before' | 'after'): string {
  const parts = DATE.exec(value);
  const [year, month, day] = parts ? [Number(parts[1]), Number(parts[2]), Number(parts[3])] : [0, 0, 0];
  if (!parts || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) {
    throw refuse(`${name}:${value} is not a date; write a calendar day as YYYY-MM-DD.`);
  }
  return value;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}
