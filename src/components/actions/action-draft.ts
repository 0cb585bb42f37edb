/**
 * The action form's state: steps as the form edits them (text fields, "" for unset), to and
 * from the API's shape, and "create action from this event" prefills.
 */
import type { ActionResource, ActionStep, StringMatching } from "@/server/actions/contract";

export interface StepDraft {
  event: string;
  url: string;
  url_matching: StringMatching;
  selector: string;
  tag_name: string;
  text: string;
  text_matching: StringMatching;
  href: string;
  href_matching: StringMatching;
  /** Kept as they came (the form does not edit property filters). */
  properties: unknown[] | null;
}

export interface ActionDraft {
  name: string;
  description: string;
  steps: StepDraft[];
}

export const emptyStep = (event = "$pageview"): StepDraft => ({
  event,
  url: "",
  url_matching: "contains",
  selector: "",
  tag_name: "",
  text: "",
  text_matching: "exact",
  href: "",
  href_matching: "exact",
  properties: null,
});

export const emptyDraft = (): ActionDraft => ({ name: "", description: "", steps: [emptyStep()] });

export function draftOf(action: ActionResource): ActionDraft {
  return {
    name: action.name,
    description: action.description,
    steps: action.steps.map((step) => ({
      event: step.event ?? "",
      url: step.url ?? "",
      url_matching: step.url_matching ?? "contains",
      selector: step.selector ?? "",
      tag_name: step.tag_name ?? "",
      text: step.text ?? "",
      text_matching: step.text_matching ?? "exact",
      href: step.href ?? "",
      href_matching: step.href_matching ?? "exact",
      properties: step.properties,
    })),
  };
}

const orNull = (text: string) => (text.trim() === "" ? null : text);

/** A draft step as the API takes it: the element fields only for `$autocapture`. */
export function stepOf(step: StepDraft): ActionStep {
  const autocapture = step.event === "$autocapture";
  return {
    event: orNull(step.event),
    properties: step.properties,
    url: orNull(step.url),
    url_matching: orNull(step.url) ? step.url_matching : null,
    selector: autocapture ? orNull(step.selector) : null,
    tag_name: autocapture ? orNull(step.tag_name) : null,
    text: autocapture ? orNull(step.text) : null,
    text_matching: autocapture && orNull(step.text) ? step.text_matching : null,
    href: autocapture ? orNull(step.href) : null,
    href_matching: autocapture && orNull(step.href) ? step.href_matching : null,
  };
}

const MATCHING_WORDS: Record<StringMatching, string> = { contains: "contains", exact: "is", regex: "matches" };

/** One line saying what a step matches. */
export function stepSummary(step: Pick<ActionStep, "event" | "url" | "url_matching" | "selector" | "text" | "href" | "tag_name">): string {
  const parts = [step.event ?? "Any event"];
  if (step.url) parts.push(`URL ${MATCHING_WORDS[step.url_matching ?? "contains"]} ${step.url}`);
  if (step.selector) parts.push(`element ${step.selector}`);
  if (step.tag_name) parts.push(`<${step.tag_name}>`);
  if (step.text) parts.push(`text “${step.text}”`);
  if (step.href) parts.push(`link ${step.href}`);
  return parts.join(", ");
}

/** The clicked element's attributes from an elements chain (`tag.cls:href="…"text="…";parent…`). */
export function clickedElement(chain: string): { tag: string | null; text: string | null; href: string | null } {
  const first = chain.split(";")[0] ?? "";
  const tag = /^([A-Za-z][\w-]*)/.exec(first)?.[1] ?? null;
  const attribute = (name: string) => {
    const match = new RegExp(`(?:^|[":])${name}="((?:\\\\.|[^"\\\\])*)"`).exec(first);
    return match ? match[1]!.replace(/\\"/g, '"') : null;
  };
  return { tag, text: attribute("text"), href: attribute("href") };
}

/** The draft "create action from this event" opens with: its name, URL (exact), and the clicked element for autocapture. */
export function draftFromEvent(params: { event: string; url?: string | null; elementsChain?: string | null }): ActionDraft {
  const step = emptyStep(params.event);
  if (params.url) {
    step.url = params.url;
    step.url_matching = "exact";
  }
  let name = params.event === "$pageview" && params.url ? `Pageview ${params.url}` : params.event;
  if (params.event === "$autocapture" && params.elementsChain) {
    const element = clickedElement(params.elementsChain);
    if (element.text) step.text = element.text;
    if (element.href) step.href = element.href;
    if (!element.text && !element.href && element.tag) step.tag_name = element.tag;
    name = element.text ? `Clicked “${element.text}”` : "Autocapture";
  }
  return { name: name.slice(0, 400), description: "", steps: [step] };
}

/** `/actions/new?…` for an event (the events explorer's link). */
export function newActionHref(event: { event: string; properties: Record<string, unknown>; elements_chain?: string }): string {
  const params = new URLSearchParams({ event: event.event });
  const url = event.properties.$current_url;
  if (typeof url === "string" && url) params.set("url", url.slice(0, 2000));
  if (event.event === "$autocapture" && event.elements_chain) params.set("elements_chain", event.elements_chain.slice(0, 4000));
  return `/actions/new?${params.toString()}`;
}
