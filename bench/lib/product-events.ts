/**
 * Events shaped like a product's: persons arriving over the period, each coming back for a
 * few sessions of page views (about 50 paths of one site), autocapture clicks, page leaves
 * and a few custom events; some sign up during a session, and some of those purchase days
 * later. Deterministic (a seeded generator), produced person by person in chunks so that a
 * million events never sit in memory at once.
 */
import type { StoredEventInput } from "@/server/db/events";

/** A small, fast, seedable generator (mulberry32): the same seed gives the same events. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SITE = "https://shop.example.com";
const BLOG = Array.from({ length: 18 }, (_, i) => `/blog/post-${i + 1}`);
const DOCS = Array.from({ length: 14 }, (_, i) => `/docs/topic-${i + 1}`);
const PRODUCTS = Array.from({ length: 8 }, (_, i) => `/products/item-${i + 1}`);
/** The site's paths (50), the first ones the most visited. */
export const SITE_PATHS = ["/", "/pricing", "/features", "/signup", "/login", "/checkout", "/account", "/about", "/contact", "/careers", ...PRODUCTS, ...DOCS, ...BLOG];
const LANDINGS = ["/", "/", "/", "/pricing", "/features", ...BLOG.slice(0, 6), ...DOCS.slice(0, 3)];
const BROWSERS = ["Chrome", "Chrome", "Chrome", "Safari", "Safari", "Firefox", "Edge"];
const CUSTOM_EVENTS = ["clicked_cta", "viewed_pricing", "searched"];

export interface ProductPerson {
  uuid: string;
  distinctId: string;
  /** The time of the person's first event, when ingestion would have created it. */
  createdAt: Date;
}

export interface ProductEventsOptions {
  projectId: number;
  events: number;
  persons: number;
  /** Events lie in the `days` before this instant. */
  end: Date;
  days: number;
  seed?: number;
}

const pick = <T>(random: () => number, items: readonly T[]) => items[Math.floor(random() * items.length)]!;

/** A uuid from the generator (v4-shaped), so persons are the same on every run. */
function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16));
  hex[12] = "4";
  hex[16] = ((Number.parseInt(hex[16]!, 16) & 3) | 8).toString(16);
  const h = hex.join("");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The events, in chunks of about `chunk` (each with the persons it introduces). Persons are
 * spread evenly over the events: each gets about events / persons of them, in sessions of 3
 * to 12 events a few seconds to minutes apart, the first session on the day they arrive
 * (uniform over the period) and later ones on later days. About a fifth sign up (a
 * /signup page view, then `signed_up`); 40% of those purchase 1–10 days later (a /checkout
 * page view, then `purchase`). The total is exactly `events`.
 */
export function* productEvents(options: ProductEventsOptions, chunk = 50_000): Generator<{ persons: ProductPerson[]; events: StoredEventInput[] }> {
  const random = seededRandom(options.seed ?? 42);
  const day = 24 * 3600 * 1000;
  const start = options.end.getTime() - options.days * day;
  const perPerson = options.events / options.persons;
  let produced = 0;
  let persons: ProductPerson[] = [];
  let events: StoredEventInput[] = [];
  let eventCounter = 0;
  // Uuids shaped like v7 (time first) keep the events' primary key index append-friendly.
  const eventUuid = () => {
    eventCounter++;
    const hex = eventCounter.toString(16).padStart(20, "0");
    return `0190${hex.slice(0, 4)}-${hex.slice(4, 8)}-7${hex.slice(8, 11)}-8${hex.slice(11, 14)}-${hex.slice(14, 20)}${Math.floor(random() * 0xffffff).toString(16).padStart(6, "0")}`;
  };

  for (let p = 0; p < options.persons && produced < options.events; p++) {
    const person: ProductPerson = { uuid: uuidFrom(random), distinctId: `user-${p}`, createdAt: options.end };
    persons.push(person);
    // About events / persons each, the running total kept on course so that it ends exact.
    const due = Math.round((p + 1) * perPerson - produced + perPerson * (1.2 * random() - 0.6));
    const budget = p === options.persons - 1 ? options.events - produced : Math.min(options.events - produced, Math.max(1, due));
    const browser = pick(random, BROWSERS);
    const arrivalDay = Math.floor(random() * options.days);
    const signsUp = random() < 0.2;
    const purchases = signsUp && random() < 0.4;
    let sessionDay = arrivalDay;
    let mine = 0;
    let signedUpAt: number | null = null;
    let purchased = false;
    let session = 0;
    const emit = (event: string, at: number, properties: Record<string, unknown>) => {
      if (at < person.createdAt.getTime()) person.createdAt = new Date(at);
      events.push({ uuid: eventUuid(), projectId: options.projectId, event, distinctId: person.distinctId, personId: person.uuid, properties: { $browser: browser, ...properties }, timestamp: new Date(at) });
      mine++;
      produced++;
    };
    while (mine < budget) {
      // A session: on its day, at some hour; its events a few seconds to minutes apart.
      let at = start + sessionDay * day + Math.floor(random() * day);
      if (at >= options.end.getTime()) at = options.end.getTime() - 3600 * 1000 * (1 + random());
      const sessionId = `${person.distinctId}-s${session++}`;
      const length = Math.min(budget - mine, 3 + Math.floor(random() * 10));
      const checkout = purchases && signedUpAt !== null && !purchased;
      let url = checkout ? "/account" : pick(random, LANDINGS);
      for (let i = 0; i < length && mine < budget; i++) {
        const props = { $current_url: `${SITE}${url}${random() < 0.1 ? "/" : ""}`, $pathname: url, $session_id: sessionId };
        const left = length - i;
        if (i === length - 1 && left === 1 && i > 0) {
          emit("$pageleave", at, props);
        } else if (signsUp && signedUpAt === null && i === 1 && left >= 2) {
          // Signing up: the form, then the event.
          url = "/signup";
          emit("$pageview", at, { ...props, $current_url: `${SITE}/signup`, $pathname: url });
          at += 20_000 + Math.floor(random() * 100_000);
          emit("signed_up", at, { $session_id: sessionId, plan: random() < 0.3 ? "pro" : "free" });
          signedUpAt = at;
          i++;
        } else if (checkout && i === 1 && left >= 2) {
          url = "/checkout";
          emit("$pageview", at, { ...props, $current_url: `${SITE}/checkout`, $pathname: url });
          at += 30_000 + Math.floor(random() * 200_000);
          emit("purchase", at, { $session_id: sessionId, amount: 10 + Math.floor(random() * 190) });
          purchased = true;
          i++;
        } else {
          const roll = random();
          if (roll < 0.55 || i === 0) {
            emit("$pageview", at, props);
            // Most next pages are one of the popular ones; some anywhere.
            url = random() < 0.6 ? pick(random, SITE_PATHS.slice(0, 12)) : pick(random, SITE_PATHS);
          } else if (roll < 0.85) {
            emit("$autocapture", at, { ...props, $event_type: "click" });
          } else {
            emit(pick(random, CUSTOM_EVENTS), at, { $session_id: sessionId });
          }
        }
        at += 5_000 + Math.floor(random() * 240_000);
      }
      // The next session some days later; a purchase comes 1–10 days after signing up.
      sessionDay += signedUpAt !== null && purchases && !purchased ? 1 + Math.floor(random() * 10) : 1 + Math.floor(random() * 14);
      if (sessionDay >= options.days) sessionDay = Math.max(arrivalDay, options.days - 1 - Math.floor(random() * 3));
    }
    if (events.length >= chunk) {
      yield { persons, events };
      persons = [];
      events = [];
    }
  }
  if (events.length > 0 || persons.length > 0) yield { persons, events };
}
