/**
 * The ceiling ingestion is measured against: `COPY events FROM STDIN` of ready-made rows, the
 * fastest way into the table, on connections of its own (PostgreSQL: a pg client per stream
 * through pg-copy-streams; PGlite: `COPY … FROM '/dev/blob'`).
 */
import pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { PGlite } from "@electric-sql/pglite";
import type { StoredEventInput } from "@/server/db/events";

const COLUMNS = "(uuid, project_id, event, distinct_id, properties, timestamp, person_id, elements_chain, historical_migration)";

/** COPY's text format: tab-separated, backslash escapes, \N for null. */
function field(value: string | null): string {
  if (value === null) return "\\N";
  return value.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");
}

export function copyText(rows: readonly StoredEventInput[]): string {
  let text = "";
  for (const e of rows) {
    text += `${[e.uuid, String(e.projectId), field(e.event), field(e.distinctId), field(JSON.stringify(e.properties)), e.timestamp.toISOString(), e.personId ?? "\\N", field(e.elementsChain ?? ""), e.historicalMigration ? "t" : "f"].join("\t")}\n`;
  }
  return text;
}

/** One `COPY events FROM STDIN` of `rows` on `client` (in its own transaction unless one is open). */
export async function copyBatch(client: pg.Client, rows: readonly StoredEventInput[]): Promise<void> {
  const stream = client.query(copyFrom(`COPY events ${COLUMNS} FROM STDIN`));
  await new Promise<void>((resolve, reject) => {
    stream.on("finish", resolve);
    stream.on("error", reject);
    stream.end(copyText(rows));
  });
}

/** Rows per second COPY reaches over `rows`, in `batch`-row statements on `streams` connections of the server at `url`. */
export async function postgresCopyRate(url: string, rows: readonly StoredEventInput[], batch: number, streams: number): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: streams }, async () => {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      return client;
    }),
  );
  const batches: StoredEventInput[][] = [];
  for (let i = 0; i < rows.length; i += batch) batches.push(rows.slice(i, i + batch));
  const started = performance.now();
  try {
    await Promise.all(
      clients.map(async (client) => {
        for (let next = batches.shift(); next; next = batches.shift()) await copyBatch(client, next);
      }),
    );
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
  return rows.length / ((performance.now() - started) / 1000);
}

/** The same on PGlite's one connection. */
export async function pgliteCopyRate(db: PGlite, rows: readonly StoredEventInput[], batch: number): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < rows.length; i += batch) {
    await db.query(`COPY events ${COLUMNS} FROM '/dev/blob'`, [], { blob: new Blob([copyText(rows.slice(i, i + batch))]) });
  }
  return rows.length / ((performance.now() - started) / 1000);
}
