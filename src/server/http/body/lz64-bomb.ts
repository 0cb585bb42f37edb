/** For tests and measurements: lz64 bodies that expand far past their size. */

/**
 * The lz-string stream of `char` (8-bit, "a" by default) repeated 1 + k(k+3)/2 times, written directly (what
 * LZString.compressToBase64 would produce, but without its slow compression): code k
 * expands to k characters, so the output grows with the square of the input.
 */
export function lz64Bomb(codes: number, char = "a"): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const out: string[] = [];
  let value = 0;
  let position = 0;
  const bit = (b: number) => {
    value = (value << 1) | b;
    if (position === 5) {
      out.push(alphabet[value]!);
      value = 0;
      position = 0;
    } else position++;
  };
  const write = (v: number, bits: number) => {
    for (let i = 0; i < bits; i++, v >>= 1) bit(v & 1);
  };
  let numBits = 2;
  let enlargeIn = 2;
  const tick = () => {
    if (--enlargeIn === 0) {
      enlargeIn = 2 ** numBits;
      numBits++;
    }
  };
  write(0, numBits); // an 8-bit literal follows
  write(char.charCodeAt(0) & 0xff, 8);
  tick();
  tick();
  for (let code = 4; code < 4 + codes; code++) {
    write(code, numBits); // always the newest entry: w + w[0]
    tick();
  }
  write(2, numBits); // end of stream
  while (position !== 0) bit(0);
  let text = out.join("");
  while (text.length % 4) text += "=";
  return text;
}

/** The length of lz64Bomb(codes) once decompressed. */
export const lz64BombLength = (codes: number) => 1 + (codes * (codes + 3)) / 2;
