import { afterEach, describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { pageQuery } from "@/server/input/page";
import { paginate } from "./pagination";

const request = (url: string) => new Request(url);

describe("pagination (DRF's limit/offset)", () => {
  afterEach(() => {
    delete process.env.SITE_URL;
  });

  it("builds absolute next and previous links on SITE_URL, keeping other parameters", () => {
    process.env.SITE_URL = "https://burrow.example.com/";
    const query = pageQuery.parse({ limit: "10", offset: "20" });
    const page = paginate(request("http://127.0.0.1:3000/api/projects/1/dashboards/?tags=a&limit=10&offset=20"), query, 45, []);
    expect(page.next).toBe("https://burrow.example.com/api/projects/1/dashboards/?tags=a&limit=10&offset=30");
    expect(page.previous).toBe("https://burrow.example.com/api/projects/1/dashboards/?tags=a&limit=10&offset=10");
    expect(page.count).toBe(45);
  });

  it("has no next on the last page and no previous on the first; the first page link drops offset", () => {
    process.env.SITE_URL = "http://localhost:3000";
    const last = paginate(request("http://x/api/p/?limit=10&offset=40"), pageQuery.parse({ limit: "10", offset: "40" }), 45, []);
    expect(last.next).toBeNull();
    const first = paginate(request("http://x/api/p/?limit=10&offset=5"), pageQuery.parse({ limit: "10", offset: "5" }), 45, []);
    expect(first.previous).toBe("http://localhost:3000/api/p/?limit=10");
    const none = paginate(request("http://x/api/p/"), pageQuery.parse({}), 45, []);
    expect(none).toMatchObject({ next: null, previous: null });
  });

  it("rejects negative, fractional, non-numeric and oversized values with the parameter named", () => {
    for (const [query, attr] of [
      [{ limit: "-1" }, "limit"],
      [{ limit: "1.5" }, "limit"],
      [{ offset: "x" }, "offset"],
      [{ limit: "1001" }, "limit"],
    ] as const) {
      const result = pageQuery.safeParse(query);
      expect(result.success).toBe(false);
      expect((result.error as ZodError).issues[0]!.path).toEqual([attr]);
    }
  });
});
