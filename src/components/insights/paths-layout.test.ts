import { describe, expect, it } from "vitest";
import { layoutSankey, parseNodeKey, pathEdges, trimPathLabel } from "./paths-layout";

/** PostHog's PathsQuery rows (notes §6): node keys "<step>_<item>", value = traversals, time in ms. */
const edges = [
  { source: "1_/home", target: "2_/pricing", value: 6, average_conversion_time: 12_000 },
  { source: "1_/home", target: "2_/docs", value: 2, average_conversion_time: 3_000 },
  { source: "1_/blog", target: "2_/pricing", value: 2, average_conversion_time: 8_000 },
  { source: "2_/pricing", target: "3_/signup", value: 4, average_conversion_time: 60_000 },
];

describe("paths sankey layout", () => {
  const layout = layoutSankey(edges, { width: 300, height: 100, nodeWidth: 10, nodePadding: 10 });
  const node = (key: string) => layout.nodes.find((item) => item.key === key)!;

  it("puts each node in the column of its step, first step left, last step right", () => {
    expect(layout.steps).toBe(3);
    expect([node("1_/home").x, node("2_/pricing").x, node("3_/signup").x]).toEqual([0, 145, 290]);
    expect(node("2_/docs").name).toBe("/docs");
  });

  it("sizes nodes by the larger of their in- and outflow, on one scale that fits the fullest column", () => {
    expect([node("1_/home").value, node("1_/blog").value, node("2_/pricing").value, node("3_/signup").value]).toEqual([8, 2, 8, 4]);
    // Column 2 (8 + 2 persons, one gap of 10) fills the 100px: 9 px per traversal.
    expect(node("2_/pricing").height).toBe(72);
    expect(node("2_/docs").height).toBe(18);
    expect(node("2_/docs").y).toBe(82);
    expect(Math.max(...layout.nodes.map((item) => item.y + item.height))).toBeLessThanOrEqual(100);
  });

  it("orders a column's nodes by flow, biggest on top", () => {
    expect(layout.nodes.filter((item) => item.step === 1).map((item) => item.name)).toEqual(["/home", "/blog"]);
  });

  it("stacks bands so they leave and enter each node within its height", () => {
    const home = node("1_/home");
    const out = layout.links.filter((link) => link.source === "1_/home");
    expect(out.map((link) => link.width)).toEqual([54, 18]);
    // To /pricing (top of column 2) first, then /docs below it.
    expect(out.map((link) => link.sourceY)).toEqual([home.y + 27, home.y + 54 + 9]);
    const intoPricing = layout.links.filter((link) => link.target === "2_/pricing").map((link) => link.targetY);
    expect(intoPricing).toEqual([27, 54 + 9]);
    expect(layout.links[0]!.path).toBe("M10,27 C77.5,27 77.5,27 145,27");
    expect(layout.links.find((link) => link.target === "3_/signup")!.averageConversionTime).toBe(60_000);
  });

  it("lays out nothing for no edges", () => {
    expect(layoutSankey([], { width: 100, height: 100 })).toMatchObject({ nodes: [], links: [], steps: 0 });
  });
});

describe("path labels and keys", () => {
  it("reads the step from the key, keeping underscores of the item", () => {
    expect(parseNodeKey("12_sign_up")).toEqual({ step: 12, name: "sign_up" });
    expect(parseNodeKey("plain")).toEqual({ step: 1, name: "plain" });
  });
  it("drops a URL's scheme and host and trims long items", () => {
    expect(trimPathLabel("https://shop.example/pricing")).toBe("/pricing");
    expect(trimPathLabel("https://shop.example")).toBe("/");
    expect(trimPathLabel("/a/very/long/path/that/goes/on/and/on", 12)).toBe("/a/very/lon…");
    expect(trimPathLabel("$autocapture")).toBe("$autocapture");
  });
  it("accepts only edge lists", () => {
    expect(pathEdges(edges)).toBe(edges);
    expect(pathEdges([{ source: "1_a" }])).toBeNull();
  });
});
