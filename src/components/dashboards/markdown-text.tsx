"use client";

import Markdown, { defaultUrlTransform, type Components } from "react-markdown";

/**
 * Markdown of a text tile, sanitised by construction: react-markdown builds React elements
 * from the Markdown tree and, without rehype-raw, never renders raw HTML (`skipHtml` drops
 * it); only the elements below are kept; URLs other than http(s), mailto and relative ones
 * (`javascript:`, `data:`) are emptied by `defaultUrlTransform`; links open in a new tab with
 * no opener or referrer. Images are not shown, so a shared page loads nothing from elsewhere.
 */
const ALLOWED = ["p", "h1", "h2", "h3", "h4", "h5", "h6", "ul", "ol", "li", "a", "strong", "em", "del", "code", "pre", "blockquote", "hr", "br"];

const components: Components = {
  a: ({ href, children }) =>
    href ? (
      <a href={href} target="_blank" rel="noopener noreferrer" className="font-medium text-brand-700 underline hover:text-brand-800">
        {children}
      </a>
    ) : (
      <span>{children}</span>
    ),
};

const PROSE =
  "flex flex-col gap-2 text-sm text-gray-800 [&_blockquote]:border-l-4 [&_blockquote]:border-gray-200 [&_blockquote]:pl-3 [&_blockquote]:text-gray-600 [&_code]:rounded [&_code]:bg-gray-100 [&_code]:px-1 [&_code]:font-mono [&_code]:text-xs [&_h1]:text-lg [&_h1]:font-semibold [&_h1]:text-gray-900 [&_h2]:text-base [&_h2]:font-semibold [&_h2]:text-gray-900 [&_h3]:font-semibold [&_h4]:font-semibold [&_hr]:border-gray-200 [&_ol]:list-decimal [&_ol]:pl-5 [&_pre]:overflow-auto [&_pre]:rounded [&_pre]:bg-gray-100 [&_pre]:p-2 [&_ul]:list-disc [&_ul]:pl-5";

export function MarkdownText({ body }: { body: string }) {
  return (
    <div className={`h-full overflow-auto ${PROSE}`} data-testid="tile-text">
      <Markdown skipHtml allowedElements={ALLOWED} unwrapDisallowed urlTransform={defaultUrlTransform} components={components}>
        {body}
      </Markdown>
    </div>
  );
}
