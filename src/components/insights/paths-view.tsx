"use client";

import { useEffect, useRef, useState } from "react";
import { colorAt, numberFormat, ResultEmpty, ResultFrame, ResultMismatch } from "./chart-parts";
import { formatDuration } from "./funnel-steps";
import { layoutSankey, pathEdges, trimPathLabel } from "./paths-layout";

/** The narrowest a step's column may be before the drawing scrolls (two steps fit a phone). */
const COLUMN_PX = 150;
const NODE_WIDTH = 10;
const ROW_PX = 30;

/**
 * A PathsQuery result as a Sankey: a column per step, a node per path item sized by the
 * traversals through it, bands between them as thick as their traversals. Labels are
 * trimmed (the whole item is the node's tooltip); the drawing scrolls inside a small tile.
 * A list of the edges is its text alternative.
 */
export function PathsView({ results }: { results: unknown }) {
  const kind = "paths";
  const frame = useRef<HTMLDivElement>(null);
  const [available, setAvailable] = useState({ width: 0, height: 0 });
  // The drawing fills the tile (and scrolls when the steps or rows need more).
  useEffect(() => {
    const element = frame.current;
    if (!element) return;
    const measure = () => setAvailable({ width: element.clientWidth, height: element.clientHeight });
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    measure();
    return () => observer.disconnect();
  }, []);
  const edges = pathEdges(results);
  if (!edges) return <ResultMismatch kind={kind} message="Expected path edges (source, target, value)." />;
  if (edges.length === 0) return <ResultEmpty kind={kind} title="No paths in this range" />;
  const perColumn = new Map<string, number>();
  for (const key of new Set(edges.flatMap((edge) => [edge.source, edge.target]))) {
    const step = key.split("_", 1)[0]!;
    perColumn.set(step, (perColumn.get(step) ?? 0) + 1);
  }
  const steps = perColumn.size;
  const width = Math.max(280, steps * COLUMN_PX, available.width);
  const height = Math.max(120, Math.max(...perColumn.values()) * ROW_PX, available.height - 12);
  const layout = layoutSankey(edges, { width, height, nodeWidth: NODE_WIDTH, nodePadding: 10 });
  const colorOf = new Map(layout.nodes.filter((node) => node.step === layout.nodes[0]?.step).map((node, index) => [node.key, colorAt(index)]));
  const summary = edges.map((edge) => `${edge.source} → ${edge.target}: ${edge.value}`).join("; ");

  return (
    <ResultFrame kind={kind} state="ready">
      <div ref={frame} className="h-full w-full overflow-auto">
        <svg
          width={width}
          height={height + 8}
          viewBox={`0 -4 ${width} ${height + 8}`}
          role="img"
          aria-label={`Paths: ${summary}`}
          data-testid="paths-sankey"
          className="block"
        >
          <g fill="none">
            {layout.links.map((link) => (
              <path
                key={`${link.source}->${link.target}`}
                d={link.path}
                stroke={colorOf.get(link.source) ?? "#94a3b8"}
                strokeOpacity={0.3}
                strokeWidth={link.width}
                data-testid="paths-link"
              >
                <title>
                  {`${link.source} → ${link.target}: ${numberFormat.format(link.value)}${link.averageConversionTime !== null ? `, average ${formatDuration(link.averageConversionTime / 1000)}` : ""}`}
                </title>
              </path>
            ))}
          </g>
          {layout.nodes.map((node) => {
            const last = node.step === Math.max(...layout.nodes.map((item) => item.step)) && layout.steps > 1;
            return (
              <g key={node.key} data-testid="paths-node">
                <rect x={node.x} y={node.y} width={NODE_WIDTH} height={node.height} rx={2} fill={colorOf.get(node.key) ?? "#64748b"}>
                  <title>{`${node.name} (step ${node.step}): ${numberFormat.format(node.value)}`}</title>
                </rect>
                <text
                  x={last ? node.x - 4 : node.x + NODE_WIDTH + 4}
                  y={node.y + node.height / 2}
                  dominantBaseline="middle"
                  textAnchor={last ? "end" : "start"}
                  className="fill-gray-800 text-[11px]"
                >
                  {trimPathLabel(node.name, 22)}
                  <tspan className="fill-gray-500"> {numberFormat.format(node.value)}</tspan>
                </text>
              </g>
            );
          })}
        </svg>
      </div>
    </ResultFrame>
  );
}
