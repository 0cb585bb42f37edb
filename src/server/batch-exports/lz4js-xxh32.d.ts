/** lz4js's XXH32 (the LZ4 frame header's checksum), which @types/lz4js does not declare. */
declare module "lz4js/xxh32.js" {
  export function hash(seed: number, src: Uint8Array, index: number, length: number): number;
}
