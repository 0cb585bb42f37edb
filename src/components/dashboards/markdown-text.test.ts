/** Text tiles' Markdown, rendered to HTML as the page renders it: formatting kept, hostile input inert. */
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { MarkdownText } from "./markdown-text";

const html = (body: string) => renderToStaticMarkup(createElement(MarkdownText, { body }));

describe("MarkdownText", () => {
  it("renders headings, emphasis, lists and links (new tab, no opener or referrer)", () => {
    const out = html("# Title\n\n**bold** _it_\n\n- one\n- two\n\n1. first\n\n[Docs](https://example.com/docs)");
    expect(out).toContain("<h1>Title</h1>");
    expect(out).toContain("<strong>bold</strong> <em>it</em>");
    expect(out).toContain("<ul>\n<li>one</li>\n<li>two</li>\n</ul>");
    expect(out).toContain("<ol>");
    expect(out).toMatch(/<a href="https:\/\/example.com\/docs" target="_blank" rel="noopener noreferrer"[^>]*>Docs<\/a>/);
  });

  it.each([
    ['<img src="x" onerror="alert(1)">', /<img|onerror/],
    ["<script>alert(1)</script>", /<script/],
    ['<a href="javascript:alert(1)">x</a>', /<a /],
    ["[click](javascript:alert(1))", /javascript:|<a /],
    ["[click](JaVaScRiPt:alert(1))", /javascript:|<a /i],
    ["[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)", /data:|<a /],
    ['<iframe src="https://evil.example"></iframe>', /<iframe/],
    ["![pixel](https://tracker.example/p.gif)", /<img|tracker/],
    ['<div style="position:fixed" onclick="alert(1)">x</div>', /<div[^>]*style|onclick/],
  ])("keeps %s inert", (payload, forbidden) => {
    expect(html(payload)).not.toMatch(forbidden);
  });
});
