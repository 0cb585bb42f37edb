/**
 * A large JSON body parsed from its bytes piece by piece: the same value as
 * `JSON.parse(bytes.toString("utf8"))`, without ever making the whole body one string.
 *
 * Why: V8 puts a string of more than 128 KB (64K characters once one is outside Latin-1, an en
 * dash in a page title) in its large-object space, and making one cost about ten times as much
 * per byte as small ones: `/batch/`'s 133 KB body of 100 posthog-js page views took 1.3–1.8 ms
 * to become a string; decoded in pieces the whole body takes ~0.56 ms (bench/body-decode.ts).
 *
 * The document's top two levels (the body object, then its `batch` or `data` array, or a bare
 * array of events) are walked here, to the bytes, and their members handed to JSON.parse in runs
 * of about 16 KB; everything below them is parsed whole. Only those two levels are walked, and
 * each finds its own end as it goes, so every byte is read once, however deep or hostile the
 * document. Anything the walk does not recognise as JSON throws, and the caller then parses the
 * body the plain way, so that a malformed body gets the same answer as before.
 *
 * The same walk refuses a document nested more than MAX_BODY_DEPTH levels before anything is
 * built (JsonTooDeep): JSON.parse reads any depth, and 20 MB of nested arrays held the server's
 * thread 8–11 s in it, for anyone, before the body's key was even read. Smaller bodies are only
 * scanned for depth (when they are long enough to nest that deep), then parsed whole.
 *
 * Between its runs the walk lets other requests in (TimeSlice): a 6.7 MB `/batch/` of 5,000
 * events took 80–96 ms to parse, 20 MB about three times that, all of it in one turn before.
 */
import { TimeSlice } from "@/server/event-loop";
import { MAX_PROPERTY_DEPTH } from "@/server/ingestion/normalise";

/** Bodies below this size are one string anyway (far below 128 KB, even at two bytes a character). */
const SPLIT_BYTES = 32 * 1024;
/** Members (elements) are parsed in runs of about this many bytes. */
const CHUNK_BYTES = 16 * 1024;
/** How many levels are walked here (the body, then its array of events). */
const SPLIT_LEVELS = 2;
/**
 * The deepest body read: an event's properties may nest MAX_PROPERTY_DEPTH levels (normalise.ts),
 * below the body, its batch, the event and its properties object; a few levels spare. (PostHog's
 * capture refuses JSON past 128 levels, serde_json's limit.)
 */
export const MAX_BODY_DEPTH = MAX_PROPERTY_DEPTH + 10;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;

class NotJson extends Error {}

/** The document nests deeper than MAX_BODY_DEPTH: refused, not parsed. */
export class JsonTooDeep extends Error {}

const isSpace = (byte: number | undefined) => byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;

function skipSpace(bytes: Buffer, at: number, end: number): number {
  while (at < end && isSpace(bytes[at])) at++;
  return at;
}

/** Just past the string whose opening quote is at `at`. */
function endOfString(bytes: Buffer, at: number, end: number): number {
  let from = at + 1;
  for (;;) {
    const quote = bytes.indexOf(QUOTE, from);
    if (quote === -1 || quote >= end) throw new NotJson();
    let backslashes = 0;
    while (bytes[quote - 1 - backslashes] === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote + 1;
    from = quote + 1;
  }
}

/**
 * Just past the value that starts at `at` (its contents are checked by JSON.parse later, not
 * here); JsonTooDeep when it nests more than `maxDepth` levels.
 */
function endOfValue(bytes: Buffer, at: number, end: number, maxDepth: number): number {
  const first = bytes[at];
  if (first === QUOTE) return endOfString(bytes, at, end);
  if (first === OPEN_OBJECT || first === OPEN_ARRAY) {
    let depth = 0;
    for (let i = at; i < end; i++) {
      const byte = bytes[i];
      // Strings skipped by indexOf (a loop testing every byte took longer).
      if (byte === QUOTE) i = endOfString(bytes, i, end) - 1;
      else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) {
        if (++depth > maxDepth) throw new JsonTooDeep();
      } else if ((byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) && --depth === 0) return i + 1;
    }
    throw new NotJson();
  }
  // A number, true, false or null: up to the next separator.
  let i = at;
  while (i < end) {
    const byte = bytes[i];
    if (byte === COMMA || byte === CLOSE_OBJECT || byte === CLOSE_ARRAY || isSpace(byte)) break;
    i++;
  }
  if (i === at) throw new NotJson();
  return i;
}

const parseWhole = (bytes: Buffer, from: number, to: number): unknown => JSON.parse(bytes.toString("utf8", from, to));

/** As JSON.parse sets a member: an own property even for "__proto__"; a repeated key's last value wins, in its first place. */
function setMember(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * The value that starts at `at`, `depth` levels deep (the body's own value: 1), and the index
 * just past it: a container is split here and, while `levels` > 1, its containers too (a
 * scalar, only ever the whole body, is parsed whole).
 * The members (elements) of a level split here are parsed in runs of about CHUNK_BYTES, wrapped
 * in braces (brackets): one JSON.parse per member would make a body of many tiny ones slower
 * than the whole string. A split level finds its own end as it goes, so each byte is read once.
 */
async function parseValueAt(bytes: Buffer, at: number, end: number, levels: number, depth: number, slice: TimeSlice): Promise<[unknown, number]> {
  const first = bytes[at];
  if (first !== OPEN_OBJECT && first !== OPEN_ARRAY) {
    const valueEnd = endOfValue(bytes, at, end, MAX_BODY_DEPTH - depth + 1);
    return [parseWhole(bytes, at, valueEnd), valueEnd];
  }
  const isObject = first === OPEN_OBJECT;
  const close = isObject ? CLOSE_OBJECT : CLOSE_ARRAY;
  const object: Record<string, unknown> = {};
  const array: unknown[] = [];
  let runFrom = -1;
  let runTo = -1;
  const flush = () => {
    if (runFrom === -1) return;
    const text = bytes.toString("utf8", runFrom, runTo);
    if (isObject) {
      const members = JSON.parse(`{${text}}`) as Record<string, unknown>;
      for (const key of Object.keys(members)) setMember(object, key, members[key]);
    } else for (const element of JSON.parse(`[${text}]`) as unknown[]) array.push(element);
    runFrom = -1;
  };
  let i = skipSpace(bytes, at + 1, end);
  if (bytes[i] === close) return [isObject ? object : array, i + 1];
  for (;;) {
    const memberFrom = i;
    let keyEnd = -1;
    if (isObject) {
      if (bytes[i] !== QUOTE) throw new NotJson();
      keyEnd = endOfString(bytes, i, end);
      i = skipSpace(bytes, keyEnd, end);
      if (bytes[i] !== COLON) throw new NotJson();
      i = skipSpace(bytes, i + 1, end);
    }
    if (levels > 1 && (bytes[i] === OPEN_OBJECT || bytes[i] === OPEN_ARRAY)) {
      flush();
      const [value, valueEnd] = await parseValueAt(bytes, i, end, levels - 1, depth + 1, slice);
      if (isObject) setMember(object, parseWhole(bytes, memberFrom, keyEnd) as string, value);
      else array.push(value);
      i = valueEnd;
    } else {
      const valueEnd = endOfValue(bytes, i, end, MAX_BODY_DEPTH - depth);
      if (runFrom === -1) runFrom = memberFrom;
      runTo = valueEnd;
      if (runTo - runFrom >= CHUNK_BYTES) {
        flush();
        await slice.pace();
      }
      i = valueEnd;
    }
    i = skipSpace(bytes, i, end);
    if (bytes[i] === COMMA) i = skipSpace(bytes, i + 1, end);
    else if (bytes[i] === close) {
      flush();
      return [isObject ? object : array, i + 1];
    } else throw new NotJson();
  }
}

/**
 * The JSON document in `bytes` (UTF-8), parsed as JSON.parse would parse its text, its top two
 * levels split into separate strings when it is SPLIT_BYTES or more. Throws JsonTooDeep for a
 * document nested more than MAX_BODY_DEPTH levels, and anything else on what is not such a
 * document: the caller parses those the plain way, for the plain way's answer.
 */
export async function parseJsonBytes(bytes: Buffer): Promise<unknown> {
  const start = skipSpace(bytes, 0, bytes.length);
  if (start === bytes.length) throw new NotJson();
  if (bytes.length < SPLIT_BYTES) {
    // Two bytes a level: a shorter body cannot nest too deep.
    if (bytes.length > 2 * MAX_BODY_DEPTH) endOfValue(bytes, start, bytes.length, MAX_BODY_DEPTH);
    return JSON.parse(bytes.toString("utf8"));
  }
  const [value, end] = await parseValueAt(bytes, start, bytes.length, SPLIT_LEVELS, 1, new TimeSlice());
  if (skipSpace(bytes, end, bytes.length) !== bytes.length) throw new NotJson();
  return value;
}
