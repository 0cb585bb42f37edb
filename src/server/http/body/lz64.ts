/**
 * LZ-string's base64 format (`LZString.compressToBase64`, what posthog-js sends as
 * `compression=lz64`), decompressed with a bound on the output.
 *
 * Why our own: lz-string's `decompressFromBase64` has no bound and keeps every dictionary
 * entry as a whole string. Entry k can be k characters long, so a 56 KB body expands to
 * 300 MB and the server grew by 0.6–1.7 GB per request before any size check could run.
 * Here the dictionary is a trie (each entry = an earlier entry + one code unit), so it
 * costs a few bytes per code whatever the entries' lengths, and decompression stops as
 * soon as the output would pass the limit.
 *
 * The format, from its description: the text is base64 (A–Z a–z 0–9 + /, padded with
 * '='); each character carries 6 bits, read most significant first, and values made of
 * several bits are assembled least significant bit first. The stream is LZW over UTF-16
 * code units: codes are `numBits` wide (3 at the start, one more each time the dictionary
 * has filled the current width); code 0 is followed by an 8-bit literal, 1 by a 16-bit
 * literal, 2 ends the stream; a literal becomes a dictionary entry of its own. Every code
 * after the first emits an entry and adds "previous entry + first unit of this one".
 */

/** The output would pass the limit: decompression stopped after `producedUnits` code units. */
export class Lz64TooLarge extends Error {
  override name = "Lz64TooLarge";
  constructor(readonly producedUnits: number) {
    super("lz64 output passes the limit");
  }
}

/** Not a stream LZString.compressToBase64 could have written. */
export class Lz64Malformed extends Error {
  override name = "Lz64Malformed";
}

const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const SIXBIT = new Int8Array(128).fill(-1);
for (let i = 0; i < ALPHABET.length; i++) SIXBIT[ALPHABET.charCodeAt(i)] = i;

const LITERAL_8 = 0;
const LITERAL_16 = 1;
const END = 2;
/** Codes 0–2 are the markers above; the first entry is 3. */
const FIRST_ENTRY = 3;

class BitReader {
  private next = 0;
  private value = 0;
  private mask = 0;

  constructor(private readonly text: string, private readonly end: number) {}

  read(bits: number): number {
    let result = 0;
    for (let i = 0; i < bits; i++) {
      if (this.mask === 0) {
        if (this.next >= this.end) throw new Lz64Malformed("the stream ends before its end marker");
        const code = this.text.charCodeAt(this.next++);
        const value = code < 128 ? SIXBIT[code]! : -1;
        if (value < 0) throw new Lz64Malformed("a character outside the base64 alphabet");
        this.value = value;
        this.mask = 32;
      }
      if (this.value & this.mask) result |= 1 << i;
      this.mask >>= 1;
    }
    return result;
  }
}

/** The dictionary as a trie: entry i is entry prefix[i] followed by unit last[i] (prefix -1: a literal). */
class Dictionary {
  size = FIRST_ENTRY;
  private prefix = new Int32Array(1024);
  private last = new Uint16Array(1024);
  private first = new Uint16Array(1024);
  private length = new Int32Array(1024);

  add(prefix: number, unit: number): number {
    if (this.size === this.prefix.length) this.grow();
    const index = this.size++;
    this.prefix[index] = prefix;
    this.last[index] = unit;
    this.first[index] = prefix < 0 ? unit : this.first[prefix]!;
    this.length[index] = prefix < 0 ? 1 : this.length[prefix]! + 1;
    return index;
  }

  firstUnit(entry: number): number {
    return this.first[entry]!;
  }

  lengthOf(entry: number): number {
    return this.length[entry]!;
  }

  /** Writes the entry's units into out[at, at + length). */
  writeTo(entry: number, out: Uint16Array, at: number): void {
    for (let i = at + this.length[entry]! - 1, e = entry; i >= at; i--, e = this.prefix[e]!) out[i] = this.last[e]!;
  }

  private grow(): void {
    const double = <T extends Int32Array | Uint16Array>(a: T): T => {
      const bigger = new (a.constructor as new (n: number) => T)(a.length * 2);
      bigger.set(a);
      return bigger;
    };
    this.prefix = double(this.prefix);
    this.last = double(this.last);
    this.first = double(this.first);
    this.length = double(this.length);
  }
}

class Output {
  units: Uint16Array;
  length = 0;

  constructor(private readonly limit: number, sizeHint: number) {
    this.units = new Uint16Array(Math.max(16, Math.min(limit, sizeHint)));
  }

  append(dictionary: Dictionary, entry: number): void {
    const n = dictionary.lengthOf(entry);
    if (this.length + n > this.limit) throw new Lz64TooLarge(this.length);
    if (this.length + n > this.units.length) {
      const bigger = new Uint16Array(Math.min(this.limit, Math.max(this.length + n, this.units.length * 2)));
      bigger.set(this.units.subarray(0, this.length));
      this.units = bigger;
    }
    dictionary.writeTo(entry, this.units, this.length);
    this.length += n;
  }

  toString(): string {
    // utf16le keeps lone surrogates as they are, as lz-string's own strings do.
    return Buffer.from(this.units.buffer, this.units.byteOffset, this.length * 2).toString("utf16le");
  }
}

/**
 * The text `LZString.compressToBase64` compressed, or Lz64TooLarge as soon as it would
 * pass `maxUnits` UTF-16 code units, or Lz64Malformed. Work and memory are linear in the
 * input plus the output actually produced.
 */
export function decompressLz64(base64: string, maxUnits: number): string {
  let end = base64.length;
  while (end > 0 && base64.charCodeAt(end - 1) === 0x3d /* = */) end--;
  if (end === 0) throw new Lz64Malformed("empty");
  const bits = new BitReader(base64, end);
  const dictionary = new Dictionary();
  // lz-string usually packs JSON 2–4× smaller than its base64 text; a guess, grown as needed.
  const out = new Output(maxUnits, end * 4);

  const readLiteral = (marker: number): number => {
    if (marker === LITERAL_8) return dictionary.add(-1, bits.read(8));
    if (marker === LITERAL_16) return dictionary.add(-1, bits.read(16));
    throw new Lz64Malformed("the first code is not a literal");
  };

  let numBits = 2;
  const first = bits.read(numBits);
  if (first === END) return "";
  let previous = readLiteral(first);
  out.append(dictionary, previous);
  // The dictionary holds 4 codes (3 markers + the literal), so widths grow from 3 bits.
  numBits = 3;
  let enlargeIn = 4;
  const entryAdded = () => {
    if (--enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  };

  for (;;) {
    let code = bits.read(numBits);
    if (code === END) return out.toString();
    if (code === LITERAL_8 || code === LITERAL_16) {
      code = readLiteral(code);
      entryAdded();
    }
    if (code > dictionary.size) throw new Lz64Malformed("a code for an entry that does not exist yet");
    // The new entry is previous + the first unit of this one; when the code names that very
    // entry (LZW's "cScSc" case), its first unit is previous's.
    const firstUnit = code === dictionary.size ? dictionary.firstUnit(previous) : dictionary.firstUnit(code);
    const added = dictionary.add(previous, firstUnit);
    out.append(dictionary, code === added ? added : code);
    entryAdded();
    previous = code;
  }
}
