/**
 * A simple Sankey layout for PathsQuery results: edges `{source: "1_/home", target:
 * "2_/pricing", value}` between nodes whose key starts with their 1-based step, so each
 * step is a column (no relaxation needed: PostHog's keys already say where a node goes).
 * Node heights are proportional to the flow through them, on one scale for all columns;
 * links are bands from the source's right edge to the target's left edge, stacked in
 * the order of the nodes at their other end so they do not cross needlessly.
 */
import { isObject } from "@/server/input/json-object";

export interface PathEdge {
  source: string;
  target: string;
  value: number;
  average_conversion_time?: number | null;
}

export interface SankeyNode {
  key: string;
  /** 1-based step. */
  step: number;
  /** The path item (URL, screen or event) without the step prefix. */
  name: string;
  value: number;
  x: number;
  y: number;
  height: number;
}

export interface SankeyLink {
  source: string;
  target: string;
  value: number;
  /** Milliseconds, as PostHog reports it; null when absent. */
  averageConversionTime: number | null;
  /** Band thickness, and the vertical centre of its ends. */
  width: number;
  sourceY: number;
  targetY: number;
  /** The band's centre line from (x0, sourceY) to (x1, targetY), to stroke with `width`. */
  path: string;
}

export interface SankeyLayout {
  width: number;
  height: number;
  nodes: SankeyNode[];
  links: SankeyLink[];
  steps: number;
}

export interface SankeyOptions {
  width: number;
  height: number;
  nodeWidth?: number;
  /** Vertical space between nodes of a column. */
  nodePadding?: number;
}

/** `results` if it is a list of path edges; null otherwise. */
export function pathEdges(results: unknown): PathEdge[] | null {
  if (!Array.isArray(results)) return null;
  const ok = results.every((edge) => isObject(edge) && typeof edge.source === "string" && typeof edge.target === "string" && typeof edge.value === "number");
  return ok ? (results as PathEdge[]) : null;
}

/** "3_/pricing" → step 3, name "/pricing"; a key with no step prefix is step 1. */
export function parseNodeKey(key: string): { step: number; name: string } {
  const match = /^(\d+)_(.*)$/s.exec(key);
  return match ? { step: Number(match[1]), name: match[2]! } : { step: 1, name: key };
}

export function layoutSankey(edges: readonly PathEdge[], { width, height, nodeWidth = 10, nodePadding = 8 }: SankeyOptions): SankeyLayout {
  const inflow = new Map<string, number>();
  const outflow = new Map<string, number>();
  for (const edge of edges) {
    outflow.set(edge.source, (outflow.get(edge.source) ?? 0) + edge.value);
    inflow.set(edge.target, (inflow.get(edge.target) ?? 0) + edge.value);
  }
  const keys = [...new Set(edges.flatMap((edge) => [edge.source, edge.target]))];
  const columns = new Map<number, SankeyNode[]>();
  for (const key of keys) {
    const { step, name } = parseNodeKey(key);
    const node: SankeyNode = { key, step, name, value: Math.max(inflow.get(key) ?? 0, outflow.get(key) ?? 0), x: 0, y: 0, height: 0 };
    columns.set(step, [...(columns.get(step) ?? []), node]);
  }
  const steps = [...columns.keys()].sort((a, b) => a - b);
  const first = steps[0] ?? 1;
  const last = steps[steps.length - 1] ?? 1;
  const span = Math.max(1, last - first);
  // One scale for every column: the fullest column fills the height.
  const scale = Math.min(
    ...steps.map((step) => {
      const column = columns.get(step)!;
      const total = column.reduce((sum, node) => sum + node.value, 0);
      return total > 0 ? (height - nodePadding * (column.length - 1)) / total : Infinity;
    }),
  );
  const unit = Number.isFinite(scale) && scale > 0 ? scale : 0;
  const nodes: SankeyNode[] = [];
  for (const step of steps) {
    const column = columns.get(step)!.sort((a, b) => b.value - a.value || a.name.localeCompare(b.name));
    let y = 0;
    for (const node of column) {
      node.x = last === first ? 0 : ((step - first) / span) * (width - nodeWidth);
      node.y = y;
      node.height = Math.max(1, node.value * unit);
      y += node.height + nodePadding;
      nodes.push(node);
    }
  }
  const byKey = new Map(nodes.map((node) => [node.key, node]));
  const order = (key: string) => {
    const node = byKey.get(key)!;
    return node.y;
  };
  // Where the next band leaves each source and enters each target.
  const sourceOffset = new Map<string, number>();
  const targetOffset = new Map<string, number>();
  const bySource = [...edges].sort((a, b) => order(a.source) - order(b.source) || order(a.target) - order(b.target));
  const sourceYs = new Map<PathEdge, number>();
  for (const edge of [...edges].sort((a, b) => order(a.target) - order(b.target))) {
    const offset = sourceOffset.get(edge.source) ?? 0;
    sourceYs.set(edge, byKey.get(edge.source)!.y + offset + (edge.value * unit) / 2);
    sourceOffset.set(edge.source, offset + edge.value * unit);
  }
  const links = bySource.map((edge) => {
    const source = byKey.get(edge.source)!;
    const target = byKey.get(edge.target)!;
    const offset = targetOffset.get(edge.target) ?? 0;
    targetOffset.set(edge.target, offset + edge.value * unit);
    const widthOf = Math.max(1, edge.value * unit);
    const sourceY = sourceYs.get(edge)!;
    const targetY = target.y + offset + (edge.value * unit) / 2;
    const x0 = source.x + nodeWidth;
    const x1 = target.x;
    const mid = (x0 + x1) / 2;
    return {
      source: edge.source,
      target: edge.target,
      value: edge.value,
      averageConversionTime: edge.average_conversion_time ?? null,
      width: widthOf,
      sourceY,
      targetY,
      path: `M${round(x0)},${round(sourceY)} C${round(mid)},${round(sourceY)} ${round(mid)},${round(targetY)} ${round(x1)},${round(targetY)}`,
    };
  });
  return { width, height, nodes, links, steps: steps.length };
}

const round = (value: number) => Math.round(value * 10) / 10;

/**
 * A path item short enough for a label: a URL loses its scheme and host (the path is what
 * tells pages apart), then anything past `max` characters becomes "…".
 */
export function trimPathLabel(name: string, max = 24): string {
  const withoutHost = name.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/]+/i, "") || "/";
  const text = /^[a-z][a-z0-9+.-]*:\/\//i.test(name) ? withoutHost : name;
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
