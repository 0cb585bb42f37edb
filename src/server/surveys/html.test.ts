import { describe, expect, it } from "vitest";
import { sanitiseSurveyHtml } from "./html";

describe("sanitiseSurveyHtml", () => {
  it.each([
    ["How was it?", "How was it?"],
    ["<b>Bold</b> and <i onclick=alert(1)>it</i>", "<b>Bold</b> and <i>it</i>"],
    ["<script>alert(1)</script>Hi", "Hi"],
    ["<img src=x onerror=alert(1)>Hi", "Hi"],
    ['<a href="javascript:alert(1)">x</a>', "<a>x</a>"],
    ['<a href="https://example.com/a">x</a>', '<a href="https://example.com/a" target="_blank" rel="noopener noreferrer">x</a>'],
    ["1 < 2", "1 &lt; 2"],
    ["<svg/onload=alert(1)>", ""],
  ])("%s → %s", (input, output) => {
    expect(sanitiseSurveyHtml(input)).toBe(output);
  });
});
