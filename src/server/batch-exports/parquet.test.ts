/** Parquet files as batch exports write them, read back with hyparquet (another implementation than the writer's). */
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { describe, expect, it } from "vitest";
import { MODEL_COLUMNS } from "./models";
import { isoMicros, ParquetFile } from "./parquet";

const decompressors = { GZIP: (input: Uint8Array) => new Uint8Array(gunzipSync(input)), BROTLI: (input: Uint8Array) => new Uint8Array(brotliDecompressSync(input)) };
const arrayBuffer = (file: Buffer) => file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength) as ArrayBuffer;

const rows = Array.from({ length: 5 }, (_, i) => ({
  team_id: 7,
  distinct_id: `d${i}`,
  person_id: `0190a000-0000-7000-8000-00000000000${i}`,
  properties: { i, nested: { ok: true }, text: "é" },
  person_version: i,
  person_distinct_id_version: 0,
  created_at: `2026-01-10T01:0${i}:00.000Z`,
  _inserted_at: `2026-01-10T02:00:00.12345${i}Z`,
}));

describe("Parquet files", () => {
  it("keep microseconds of ISO times", () => {
    expect(isoMicros("2026-01-10T02:00:00.123456Z")).toBe(1768010400123456n);
    expect(isoMicros("2026-01-10T02:00:00.123Z")).toBe(1768010400123000n);
    expect(isoMicros("2026-01-10T02:00:00Z")).toBe(1768010400000000n);
  });

  for (const compression of [null, "snappy", "gzip", "brotli"] as const) {
    it(`write row groups as rows come (${compression ?? "uncompressed"}), readable with timestamps as timestamps and JSON as strings`, async () => {
      const file = new ParquetFile(MODEL_COLUMNS.persons, compression, 2);
      file.add(rows.slice(0, 3));
      file.add(rows.slice(3));
      const buffer = arrayBuffer(file.finish());
      const metadata = parquetMetadata(buffer);
      // 5 rows in groups of at most 2: 2, 2, 1 (a group is encoded as soon as it is full).
      expect(metadata.row_groups.map((g) => Number(g.num_rows))).toEqual([2, 2, 1]);
      expect(metadata.row_groups[0]!.columns[0]!.meta_data!.codec).toBe(compression ? compression.toUpperCase() : "UNCOMPRESSED");
      const inserted = metadata.schema.find((e) => e.name === "_inserted_at")!;
      expect(inserted.logical_type).toMatchObject({ type: "TIMESTAMP", isAdjustedToUTC: true, unit: "MICROS" });
      const micros = await parquetReadObjects({ file: buffer, compressors: decompressors, parsers: { timestampFromMicroseconds: (v: bigint) => v } });
      expect(micros.map((r) => r._inserted_at)).toEqual(rows.map((r) => isoMicros(r._inserted_at)));
      const read = await parquetReadObjects({ file: buffer, compressors: decompressors });
      expect(read).toEqual(
        rows.map((r) => ({
          ...r,
          team_id: 7n,
          person_version: BigInt(r.person_version),
          person_distinct_id_version: 0n,
          properties: JSON.stringify(r.properties),
          created_at: new Date(r.created_at),
          _inserted_at: new Date(r._inserted_at),
        })),
      );
    });
  }

  it("write nulls as nulls and an empty interval as a valid file of no rows", async () => {
    const file = new ParquetFile(MODEL_COLUMNS.sessions, "snappy");
    file.add([{ team_id: 1, session_id: "s", distinct_id: "d", person_id: null, start_timestamp: "2026-01-10T00:00:00Z", end_timestamp: "2026-01-10T00:01:00Z", duration: 60 }]);
    const [row] = await parquetReadObjects({ file: arrayBuffer(file.finish()) });
    expect(row).toMatchObject({ session_id: "s", person_id: null, entry_url: null, duration: 60n, pageview_count: null });
    const empty = arrayBuffer(new ParquetFile(MODEL_COLUMNS.events, null).finish());
    expect(Number(parquetMetadata(empty).num_rows)).toBe(0);
    expect(await parquetReadObjects({ file: empty })).toEqual([]);
  });
});
