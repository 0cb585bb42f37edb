"use client";

import { useEffect, useState } from "react";
import { geoNaturalEarth1, geoPath } from "d3-geo";
import type { GeometryCollection, Topology } from "topojson-specification";
import countryNames from "countries-list/minimal/countries.en.min.json";
import { cn } from "@/components/ui";
import { numberFormat, ResultMismatch } from "./chart-parts";
import type { LegendSource } from "./series-legend";
import { BREAKDOWN_NULL, BREAKDOWN_OTHER } from "./series-names";
import { mapScale, NO_VALUE_COLOR } from "./world-map-scale";

/**
 * The WorldMap display: countries shaded by their value (the series broken down by
 * `$geoip_country_code`), grey without one; the country's name and value on hover and in
 * its title; a legend of the scale; and the leading countries listed beside the map (small
 * countries — Singapore, Malta — are too small to draw at this scale, so the list is where
 * they show). The borders are Natural Earth's 1:110m countries (world-atlas), projected
 * with d3-geo once and loaded only by pages that draw a map.
 */

const WIDTH = 960;
const NAMES = countryNames as Record<string, string>;
export const countryName = (code: string) => NAMES[code] ?? code;

interface CountryShape {
  /** ISO 3166-1 alpha-2, or null for the few shapes without a code (Kosovo, Northern Cyprus, …). */
  code: string | null;
  name: string;
  d: string;
}

interface WorldShapes {
  height: number;
  countries: CountryShape[];
}

let shapes: Promise<WorldShapes> | null = null;

/** The projected countries, built once per page from the lazily loaded TopoJSON. */
function loadShapes(): Promise<WorldShapes> {
  shapes ??= Promise.all([import("world-atlas/countries-110m.json"), import("topojson-client"), import("i18n-iso-countries/codes.json")]).then(
    ([atlas, topojson, codes]) => {
      const topology = (atlas.default ?? atlas) as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
      // world-atlas names countries by ISO 3166-1 numeric code; i18n-iso-countries' table maps them to alpha-2.
      const alpha2 = new Map(((codes.default ?? codes) as unknown as string[][]).map(([two, , numeric]) => [numeric!, two!]));
      const collection = topojson.feature(topology, topology.objects.countries);
      // Antarctica takes a fifth of the height and has no visitors.
      const features = collection.features.filter((feature) => feature.id !== "010");
      const world = { type: "FeatureCollection" as const, features };
      const projection = geoNaturalEarth1().fitWidth(WIDTH, world);
      const path = geoPath(projection);
      const height = Math.ceil(path.bounds(world)[1][1]);
      return {
        height,
        countries: features.map((feature) => ({
          code: typeof feature.id === "string" ? (alpha2.get(feature.id) ?? null) : null,
          name: feature.properties?.name ?? "",
          d: path(feature) ?? "",
        })),
      };
    },
  );
  return shapes;
}

/** Values by country code: the breakdown's items, markers (no country, other) left out. */
export function countryValues(result: readonly LegendSource[]): Map<string, number> {
  const values = new Map<string, number>();
  for (const item of result) {
    if (item.compare_label === "previous") continue;
    const code = item.breakdown_value;
    if (typeof code !== "string" || code === BREAKDOWN_NULL || code === BREAKDOWN_OTHER) continue;
    const value = item.aggregated_value ?? item.data.reduce((sum, n) => sum + n, 0);
    values.set(code.toUpperCase(), (values.get(code.toUpperCase()) ?? 0) + value);
  }
  return values;
}

export function WorldMap({ result }: { result: readonly LegendSource[] }) {
  const [world, setWorld] = useState<WorldShapes | null>(null);
  const [failed, setFailed] = useState<string | null>(null);
  const [hovered, setHovered] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    loadShapes().then(
      (loaded) => live && setWorld(loaded),
      (error: unknown) => live && setFailed(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      live = false;
    };
  }, []);
  const values = countryValues(result);
  const scale = mapScale([...values.values()]);
  const ranked = [...values].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const unknown = result.filter((item) => item.breakdown_value === BREAKDOWN_NULL).reduce((sum, item) => sum + (item.aggregated_value ?? 0), 0);
  const summary = ranked.map(([code, value]) => `${countryName(code)}: ${numberFormat.format(value)}`).join("; ");
  if (failed) return <ResultMismatch kind="trends" message={`The world map did not load: ${failed}`} />;
  const hoveredText = hovered ? `${countryName(hovered)}: ${values.has(hovered) ? numberFormat.format(values.get(hovered)!) : "no data"}` : null;

  return (
    <figure className="@container flex h-full min-h-0 flex-col gap-1" data-testid="insight-chart" data-display="WorldMap" aria-label={summary || "No country in this range"}>
      <div className="flex min-h-0 flex-1 flex-col gap-2 @2xl:flex-row">
        <div className="relative min-h-0 flex-1">
          {world ? (
            <svg viewBox={`0 0 ${WIDTH} ${world.height}`} className="h-full w-full" role="img" aria-label={`World map. ${summary}`} data-testid="world-map">
              {world.countries.map((country, index) => {
                const value = country.code ? values.get(country.code) : undefined;
                const name = country.code ? countryName(country.code) : country.name;
                return (
                  <path
                    key={index}
                    d={country.d}
                    fill={scale.colorOf(value)}
                    stroke="#fff"
                    strokeWidth={0.5}
                    className={cn("transition-opacity", hovered && hovered !== country.code && "opacity-70")}
                    onMouseEnter={() => setHovered(country.code)}
                    onMouseLeave={() => setHovered(null)}
                    data-testid="map-country"
                    data-code={country.code ?? undefined}
                    data-value={value}
                  >
                    <title>{`${name}: ${value === undefined ? "no data" : numberFormat.format(value)}`}</title>
                  </path>
                );
              })}
            </svg>
          ) : (
            <div className="flex h-full items-center justify-center text-xs text-gray-500" role="status">
              Loading the map…
            </div>
          )}
          {hoveredText && (
            <p className="pointer-events-none absolute top-1 left-1 rounded-md border border-gray-200 bg-white/95 px-2 py-1 text-xs shadow" data-testid="map-hover">
              {hoveredText}
            </p>
          )}
        </div>
        <ol className="flex max-h-20 shrink-0 flex-col gap-0.5 overflow-y-auto text-xs @2xl:max-h-full @2xl:w-44" aria-label="Countries by value" data-testid="map-countries">
          {ranked.map(([code, value]) => (
            <li key={code} className="flex items-center gap-1.5" data-testid="map-country-row">
              <span className="size-2.5 shrink-0 rounded-sm" style={{ background: scale.colorOf(value) }} aria-hidden="true" />
              <span className="min-w-0 flex-1 truncate text-gray-700">{countryName(code)}</span>
              <span className="font-semibold text-gray-900 tabular-nums">{numberFormat.format(value)}</span>
            </li>
          ))}
          {unknown > 0 && (
            <li className="flex items-center gap-1.5 text-gray-500">
              <span className="size-2.5 shrink-0 rounded-sm" style={{ background: NO_VALUE_COLOR }} aria-hidden="true" />
              <span className="flex-1">Unknown country</span>
              <span className="tabular-nums">{numberFormat.format(unknown)}</span>
            </li>
          )}
        </ol>
      </div>
      <div className="flex shrink-0 items-center gap-1 text-[11px] text-gray-500" aria-label="Scale" data-testid="map-scale">
        <span className="mr-1 inline-flex items-center gap-1">
          <span className="size-2.5 rounded-sm" style={{ background: NO_VALUE_COLOR }} aria-hidden="true" />
          No data
        </span>
        <span className="tabular-nums">{numberFormat.format(1)}</span>
        {scale.stops.map((stop) => (
          <span key={stop.color} className="h-2.5 w-6 rounded-sm" style={{ background: stop.color }} title={`${numberFormat.format(stop.from)}–${numberFormat.format(stop.to)}`} />
        ))}
        <span className="tabular-nums">{numberFormat.format(scale.stops[scale.stops.length - 1]?.to ?? 0)}</span>
      </div>
    </figure>
  );
}
