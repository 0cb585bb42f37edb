import { AsyncLocalStorage } from "node:async_hooks";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NextContexts } from "./next-contexts";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("NextContexts", () => {
  const contexts = new NextContexts(50);
  // Stands for one of Next's: entered by each request handed to Next.
  const storage = new AsyncLocalStorage<string>();
  let server: http.Server;
  let base: string;
  let handler: (req: http.IncomingMessage, res: http.ServerResponse) => void;

  beforeAll(async () => {
    server = http.createServer((req, res) => {
      contexts.begin(res);
      handler(req, res);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("keeps a request's context through its awaits while it is open, and disables it once Next was idle", async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let seen!: Promise<(string | undefined)[]>;
    handler = (req, res) => {
      seen = storage.run(req.url!, async () => {
        const first = storage.getStore();
        // Longer than the idle time: the open request keeps the context on.
        await sleep(150);
        const later = storage.getStore();
        res.end("ok");
        await gate;
        return [first, later, storage.getStore()];
      });
    };
    expect(await (await fetch(`${base}/one`)).text()).toBe("ok");
    await sleep(200);
    release();
    // After the idle time the instance was disabled: what still runs of that request reads nothing.
    expect(await seen).toEqual(["/one", "/one", undefined]);
  });

  it("enables a disabled context again with Next's next request", async () => {
    let seen!: Promise<(string | undefined)[]>;
    handler = (req, res) => {
      seen = storage.run(req.url!, async () => {
        const first = storage.getStore();
        await sleep(10);
        await Promise.resolve();
        const later = storage.getStore();
        res.end("ok");
        return [first, later];
      });
    };
    await fetch(`${base}/two`);
    expect(await seen).toEqual(["/two", "/two"]);
  });

  it("disables nothing while another request is still open", async () => {
    const seen: Promise<string | undefined>[] = [];
    handler = (req, res) => {
      seen.push(
        storage.run(req.url!, async () => {
          if (req.url === "/short") res.end("ok");
          else setTimeout(() => res.end("ok"), 300);
          await sleep(250);
          return storage.getStore();
        }),
      );
    };
    await Promise.all([fetch(`${base}/long`), sleep(20).then(() => fetch(`${base}/short`))]);
    expect(await Promise.all(seen)).toEqual(["/long", "/short"]);
  });
});
