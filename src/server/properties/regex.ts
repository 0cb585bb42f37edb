/**
 * The one place a user's regular expression (flag conditions, event filters, transformations)
 * is compiled and run. It runs on re2js, a linear-time engine with RE2's syntax, never on V8's
 * backtracking RegExp: `^(a+)+$` against 27 a's and a "b" took 1.7 s in V8 (median of native
 * runs; a pattern's first, interpreted run several times that), doubling with each character —
 * about 14 s at 30 and 4 min at 34 — and blocked every other request meanwhile. re2js answers
 * in under a millisecond on 34 characters, 0.1–7 ms on 10,000. RE2 is what ClickHouse's `match`
 * runs; PostHog's flags service reads the same syntax (Rust's fancy_regex, which adds
 * backreferences and lookaround under a backtracking step limit).
 *
 * RE2 has no backreferences or lookaround: a pattern it refuses is refused when it is saved
 * (regexSyntaxError), and one stored before matches neither way (compiledRegex is null) — what
 * PostHog answers for a pattern it cannot compile. Matching is a search, case-sensitive unless
 * the pattern says `(?i)`, as in PostHog.
 */
import { RE2JS } from "re2js";

/**
 * Compiled patterns, oldest first (a clock: see evictOne). Flags and transformations reuse a handful of
 * patterns on every request; the bound keeps ad-hoc event filters from growing it forever.
 */
const CACHE_LIMIT = 1000;

/**
 * Linear is not cheap when the program is large: RE2 runs every live instruction for each
 * character, and `(((a|b|c|d){50}){20})x` (3,045 instructions) took 0.18 s on a 1 MB value on a
 * quiet machine and up to 7 s under load. Real patterns are far smaller (an e-mail check 13, an
 * alternation of 50 domains 311); at 1,000 the worst we found costs 6–50 ms a megabyte.
 */
export const MAX_REGEX_PROGRAM_SIZE = 1000;
type Compiled = { regex: RE2JS } | { error: string };
/** `used`: read since the eviction sweep last passed it (a second chance; a hit costs no reordering of the map). */
const cache = new Map<string, { compiled: Compiled; used: boolean }>();

/** Drops the least recently used pattern: the oldest not read since the sweep last passed it. */
function evictOne(): void {
  for (const [pattern, entry] of cache) {
    cache.delete(pattern);
    if (!entry.used) return;
    entry.used = false;
    cache.set(pattern, entry);
  }
}

function compile(pattern: string): Compiled {
  const cached = cache.get(pattern);
  if (cached) {
    cached.used = true;
    return cached.compiled;
  }
  let compiled: Compiled;
  try {
    const regex = RE2JS.compile(pattern);
    const size = regex.programSize();
    compiled = size > MAX_REGEX_PROGRAM_SIZE ? { error: `pattern too complex (${size} RE2 instructions; at most ${MAX_REGEX_PROGRAM_SIZE})` } : { regex };
  } catch (error) {
    compiled = { error: (error as Error).message.replace(/^error parsing regexp: /, "") };
  }
  if (cache.size >= CACHE_LIMIT) evictOne();
  cache.set(pattern, { compiled, used: false });
  return compiled;
}

/** The pattern compiled, or null when RE2 cannot run it. */
export function compiledRegex(pattern: string): RE2JS | null {
  const compiled = compile(pattern);
  return "regex" in compiled ? compiled.regex : null;
}

/** Why RE2 refuses the pattern (e.g. "invalid escape sequence: `\1`"), or null when it runs it. */
export function regexSyntaxError(pattern: string): string | null {
  const compiled = compile(pattern);
  return "error" in compiled ? compiled.error : null;
}

/** Whether the pattern occurs in `text`; null when the pattern cannot run. */
export function regexFinds(pattern: string, text: string): boolean | null {
  const regex = compiledRegex(pattern);
  return regex ? regex.test(text) : null;
}

/** How many compiled patterns are held (for tests of the bound). */
export function cachedRegexCount(): number {
  return cache.size;
}
