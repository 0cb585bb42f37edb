/**
 * A chart drawn on the server, for e-mails and webhooks: an SVG built here (lines, bars, a
 * number, or a note) rasterised to PNG by resvg (`@resvg/resvg-js`, a native addon shipped in
 * the npm package: no browser). Text uses the DejaVu Sans shipped by `dejavu-fonts-ttf`, so
 * the image is the same on a machine with no fonts installed.
 */
import { createRequire } from "node:module";
import path from "node:path";
import type { Resvg as ResvgClass } from "@resvg/resvg-js";
import type { Chart } from "./chart-data";

export const IMAGE_WIDTH = 800;
export const IMAGE_HEIGHT = 450;
/** Rendered at 1.5× for sharp text on high-density screens. */
const SCALE = 1.5;
const FONT = "DejaVu Sans";
const PALETTE = ["#1d4aff", "#f04f58", "#2ba35f", "#f7a501", "#8a5cf6", "#0ea5b7", "#e2527b", "#6b7280"];

// Resolved from the project root, so that a bundled copy of this module (server.ts, Next's
// route handlers) finds the native addon and the font where npm put them.
const rootRequire = () => createRequire(path.join(process.cwd(), "package.json"));
let loaded: { Resvg: typeof ResvgClass; fontFiles: string[] } | null = null;
function renderer(): { Resvg: typeof ResvgClass; fontFiles: string[] } {
  if (!loaded) {
    const require = rootRequire();
    const { Resvg } = require("@resvg/resvg-js") as { Resvg: typeof ResvgClass };
    const fontDir = path.join(path.dirname(require.resolve("dejavu-fonts-ttf/package.json")), "ttf");
    loaded = { Resvg, fontFiles: [path.join(fontDir, "DejaVuSans.ttf"), path.join(fontDir, "DejaVuSans-Bold.ttf")] };
  }
  return loaded;
}

const escape = (text: string) => text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** 1234567 → "1.2M"; axis ticks and the number. */
export function shortNumber(value: number): string {
  const fixed = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(Math.abs(n) >= 100 ? 0 : Math.abs(n) < 10 && Math.abs(value) < 1e4 ? 2 : 1).replace(/\.?0+$/, ""));
  const abs = Math.abs(value);
  if (abs >= 1e9) return `${fixed(value / 1e9)}B`;
  if (abs >= 1e6) return `${fixed(value / 1e6)}M`;
  if (abs >= 1e4) return `${fixed(value / 1e3)}k`;
  return fixed(value);
}

/** A round step giving about `target` ticks up to `max`. */
function niceStep(max: number, target = 5): number {
  const raw = max / target;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * power).find((s) => raw <= s) ?? 10 * power;
  return step;
}

/** An x label as short as it reads: a day of "2026-11-02 …" or "2-Nov-2026" kept whole when short. */
function xLabel(label: string): string {
  const short = label
    .replace(/^(\d{4})-(\d{2})-(\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$/, (_all, _y, m, d) => `${d}/${m}`)
    .replace(/^(\d{1,2})-([A-Za-z]{3})-\d{4}$/, "$1 $2");
  return clip(short, 14);
}

function frame(title: string, body: string): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${IMAGE_WIDTH}" height="${IMAGE_HEIGHT}" viewBox="0 0 ${IMAGE_WIDTH} ${IMAGE_HEIGHT}" font-family="${FONT}">
<rect width="${IMAGE_WIDTH}" height="${IMAGE_HEIGHT}" fill="#ffffff"/>
<text x="24" y="38" font-size="20" font-weight="bold" fill="#111827">${escape(clip(title || "Untitled insight", 60))}</text>
${body}
</svg>`;
}

function axesChart(chart: Chart): string {
  const left = 64;
  const right = IMAGE_WIDTH - 40;
  const top = 64;
  const legendRows = Math.min(2, Math.ceil(chart.series.length / 3));
  const bottom = IMAGE_HEIGHT - 44 - legendRows * 20;
  const width = right - left;
  const height = bottom - top;
  const all = chart.series.flatMap((s) => s.values);
  const maxValue = Math.max(0, ...all);
  const minValue = Math.min(0, ...all);
  const step = niceStep(Math.max(maxValue - minValue, 1));
  const yMax = Math.ceil(maxValue / step) * step || step;
  const yMin = Math.floor(minValue / step) * step;
  const y = (v: number) => bottom - ((v - yMin) / (yMax - yMin)) * height;
  const parts: string[] = [];
  for (let tick = yMin; tick <= yMax + step / 2; tick += step) {
    parts.push(`<line x1="${left}" x2="${right}" y1="${y(tick).toFixed(1)}" y2="${y(tick).toFixed(1)}" stroke="${tick === 0 ? "#9ca3af" : "#e5e7eb"}" stroke-width="1"/>`);
    parts.push(`<text x="${left - 8}" y="${(y(tick) + 4).toFixed(1)}" font-size="12" fill="#4b5563" text-anchor="end">${escape(shortNumber(tick))}</text>`);
  }
  const n = Math.max(1, chart.labels.length, ...chart.series.map((s) => s.values.length));
  const slot = width / n;
  const labelEvery = Math.max(1, Math.ceil(n / Math.floor(width / 70)));
  for (let i = 0; i < n; i += labelEvery) {
    const label = chart.labels[i];
    if (label === undefined) continue;
    const x = chart.kind === "bar" ? left + slot * (i + 0.5) : left + (n === 1 ? width / 2 : (i / (n - 1)) * width);
    parts.push(`<text x="${x.toFixed(1)}" y="${bottom + 18}" font-size="12" fill="#4b5563" text-anchor="middle">${escape(xLabel(label))}</text>`);
  }
  if (chart.kind === "bar") {
    const count = Math.max(1, chart.series.length);
    const barWidth = Math.max(1, (slot * 0.7) / count);
    chart.series.forEach((series, s) => {
      series.values.forEach((value, i) => {
        const x = left + slot * i + slot * 0.15 + barWidth * s;
        const top0 = y(Math.max(value, 0));
        const h = Math.abs(y(value) - y(0));
        parts.push(`<rect x="${x.toFixed(1)}" y="${top0.toFixed(1)}" width="${barWidth.toFixed(1)}" height="${Math.max(h, value === 0 ? 0 : 1).toFixed(1)}" fill="${PALETTE[s % PALETTE.length]}" rx="2"/>`);
      });
    });
  } else {
    chart.series.forEach((series, s) => {
      const points = series.values.map((value, i) => `${(left + (n === 1 ? width / 2 : (i / (n - 1)) * width)).toFixed(1)},${y(value).toFixed(1)}`);
      const colour = PALETTE[s % PALETTE.length];
      if (points.length === 1) parts.push(`<circle cx="${points[0]!.split(",")[0]}" cy="${points[0]!.split(",")[1]}" r="4" fill="${colour}"/>`);
      else parts.push(`<polyline points="${points.join(" ")}" fill="none" stroke="${colour}" stroke-width="2.5" stroke-linejoin="round" stroke-linecap="round"/>`);
    });
  }
  // Legend: up to six series in two rows.
  chart.series.slice(0, 6).forEach((series, s) => {
    const x = left + (s % 3) * 240;
    const yy = IMAGE_HEIGHT - 20 - (legendRows - 1 - Math.floor(s / 3)) * 20;
    parts.push(`<rect x="${x}" y="${yy - 10}" width="12" height="12" rx="2" fill="${PALETTE[s % PALETTE.length]}"/>`);
    parts.push(`<text x="${x + 18}" y="${yy}" font-size="13" fill="#111827">${escape(clip(series.name, 28))}</text>`);
  });
  return parts.join("\n");
}

function numberChart(chart: Chart): string {
  return `<text x="${IMAGE_WIDTH / 2}" y="${IMAGE_HEIGHT / 2 + 30}" font-size="96" font-weight="bold" fill="#111827" text-anchor="middle">${escape(shortNumber(chart.value ?? 0))}</text>`;
}

function noteChart(note: string): string {
  return `<text x="${IMAGE_WIDTH / 2}" y="${IMAGE_HEIGHT / 2}" font-size="18" fill="#4b5563" text-anchor="middle">${escape(clip(note, 80))}</text>`;
}

/** The chart as SVG text. */
export function chartSvg(chart: Chart): string {
  if (chart.note) return frame(chart.title, noteChart(chart.note));
  if (chart.kind === "number") return frame(chart.title, numberChart(chart));
  if (chart.kind === "table" || chart.series.every((s) => s.values.length === 0)) return frame(chart.title, noteChart("No data in this range."));
  return frame(chart.title, axesChart(chart));
}

/** The chart as a PNG image. */
export function renderChartPng(chart: Chart): Buffer {
  const { Resvg, fontFiles } = renderer();
  const resvg = new Resvg(chartSvg(chart), {
    fitTo: { mode: "zoom", value: SCALE },
    font: { loadSystemFonts: false, fontFiles, defaultFontFamily: FONT },
  });
  return Buffer.from(resvg.render().asPng());
}
