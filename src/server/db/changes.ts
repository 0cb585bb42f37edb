import { randomUUID } from "node:crypto";
import pg from "pg";

/** Everything a cache holds for a topic is stale (the feed lost its connection meanwhile). */
export const ALL_KEYS = "*";

export type ChangeHandler = (key: string) => void;

/**
 * Tells in-memory caches that something they hold changed, on this node at once and on every
 * other node on the same database within a second (PostgreSQL LISTEN/NOTIFY). A cache
 * subscribes to a topic ("flags", "transformations", …) and drops the keys it is told about;
 * a write publishes after it committed. Handlers must accept ALL_KEYS.
 */
export interface ChangeFeed {
  publish(topic: string, key: string): Promise<void>;
  subscribe(topic: string, handler: ChangeHandler): () => void;
  close(): Promise<void>;
}

const CHANNEL = "burrow_changes";
const RECONNECT_MS = 500;

interface Message {
  node: string;
  topic: string;
  key: string;
}

class Subscribers {
  private readonly byTopic = new Map<string, Set<ChangeHandler>>();

  add(topic: string, handler: ChangeHandler): () => void {
    let set = this.byTopic.get(topic);
    if (!set) this.byTopic.set(topic, (set = new Set()));
    set.add(handler);
    return () => void set.delete(handler);
  }

  notify(topic: string, key: string) {
    for (const handler of this.byTopic.get(topic) ?? []) {
      try {
        handler(key);
      } catch (error) {
        console.error(`burrow: a ${topic} change handler failed`, error);
      }
    }
  }

  notifyAll() {
    for (const topic of this.byTopic.keys()) this.notify(topic, ALL_KEYS);
  }
}

/** One process on the embedded database: there are no other nodes to tell. */
export function localChangeFeed(): ChangeFeed {
  const subscribers = new Subscribers();
  return {
    async publish(topic, key) {
      subscribers.notify(topic, key);
    },
    subscribe: (topic, handler) => subscribers.add(topic, handler),
    async close() {},
  };
}

/**
 * Several nodes on one PostgreSQL server. Publishing notifies local subscribers first, then
 * the others through `pg_notify` on the pool. A dedicated connection listens; when it is
 * lost, every cache is told that everything is stale once it is back, since messages sent
 * meanwhile are gone.
 */
export async function postgresChangeFeed(url: string, pool: pg.Pool): Promise<ChangeFeed> {
  const node = randomUUID();
  const subscribers = new Subscribers();
  let listener: pg.Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | null = null;

  const connect = async (afterLoss: boolean): Promise<boolean> => {
    if (closed) return false;
    const client = new pg.Client({ connectionString: url });
    client.on("notification", (message) => {
      if (message.channel !== CHANNEL || !message.payload) return;
      let parsed: Message;
      try {
        parsed = JSON.parse(message.payload) as Message;
      } catch {
        return;
      }
      if (parsed.node !== node) subscribers.notify(parsed.topic, parsed.key);
    });
    client.on("error", () => reconnect(client));
    client.on("end", () => reconnect(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
      if (closed) {
        await client.end();
        return false;
      }
      listener = client;
      if (afterLoss) subscribers.notifyAll();
      return true;
    } catch {
      reconnect(client);
      return false;
    }
  };

  const reconnect = (client: pg.Client) => {
    if (closed || retry) return;
    if (listener === client) listener = null;
    client.end().catch(() => {});
    retry = setTimeout(() => {
      retry = null;
      void connect(true);
    }, RECONNECT_MS);
    retry.unref();
  };

  // Other nodes' changes count from here on: listen before the node serves anything.
  if (!(await connect(false))) throw new Error("could not LISTEN for changes from other nodes");

  return {
    async publish(topic, key) {
      subscribers.notify(topic, key);
      const payload: Message = { node, topic, key };
      await pool.query("SELECT pg_notify($1, $2)", [CHANNEL, JSON.stringify(payload)]);
    },
    subscribe: (topic, handler) => subscribers.add(topic, handler),
    async close() {
      closed = true;
      if (retry) clearTimeout(retry);
      await listener?.end().catch(() => {});
      listener = null;
    },
  };
}
