"use client";

import { sql, SQLDialect } from "@codemirror/lang-sql";
import { Compartment } from "@codemirror/state";
import { EditorView, keymap, placeholder as placeholderExtension } from "@codemirror/view";
import { basicSetup } from "codemirror";
import { useEffect, useRef } from "react";

/** HogQL as Burrow speaks it: its keywords, functions and the events table for highlighting and completion. */
const HOGQL = SQLDialect.define({
  keywords: "select from where group by order asc desc limit offset and or not in like ilike is null true false as",
  builtin: "count toDate",
  types: "",
});

export interface CodeEditorProps {
  value: string;
  onChange: (value: string) => void;
  /** Ctrl/Cmd+Enter. */
  onRun: () => void;
  /** Columns and property fields of `events`, for completion. */
  columns: readonly string[];
  label: string;
  placeholder?: string;
  testId?: string;
}

/**
 * A CodeMirror 6 editor (line numbers, highlighting, brackets, search, undo, completion of
 * the events table's columns and properties) holding `value`. Tab moves focus on (Escape then
 * Tab, as CodeMirror documents), so the page stays keyboard-usable.
 */
export function CodeEditor({ value, onChange, onRun, columns, label, placeholder, testId }: CodeEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const latest = useRef({ onChange, onRun });
  latest.current = { onChange, onRun };
  // The language (and its completions) is swapped in place as the property list loads: the editor, its text, focus and undo history stay.
  const language = useRef(new Compartment());
  const languageFor = (names: readonly string[]) => sql({ dialect: HOGQL, schema: { events: [...names] }, defaultTable: "events", upperCaseKeywords: true });

  useEffect(() => {
    if (!host.current) return;
    const editor = new EditorView({
      parent: host.current,
      doc: value,
      extensions: [
        keymap.of([{ key: "Mod-Enter", run: () => (latest.current.onRun(), true) }]),
        basicSetup,
        language.current.of(languageFor(columns)),
        placeholderExtension(placeholder ?? ""),
        EditorView.lineWrapping,
        EditorView.contentAttributes.of({ "aria-label": label }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) latest.current.onChange(update.state.doc.toString());
        }),
        EditorView.theme({
          "&": { fontSize: "13px", minHeight: "10rem", backgroundColor: "white" },
          ".cm-scroller": { fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace", minHeight: "10rem" },
          "&.cm-focused": { outline: "2px solid var(--color-brand-600, #4f46e5)", outlineOffset: "-1px" },
        }),
      ],
    });
    view.current = editor;
    return () => {
      editor.destroy();
      view.current = null;
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps -- made once; the text and columns are synced below
  }, []);

  const columnKey = columns.join("\n");
  useEffect(() => {
    view.current?.dispatch({ effects: language.current.reconfigure(languageFor(columns)) });
    // eslint-disable-next-line react-hooks/exhaustive-deps -- the list's content, not its identity
  }, [columnKey]);

  // A value from outside (a saved insight loaded, an example picked) replaces the text.
  useEffect(() => {
    const editor = view.current;
    if (editor && editor.state.doc.toString() !== value) editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } });
  }, [value]);

  return <div ref={host} className="overflow-hidden rounded-control border border-gray-300" data-testid={testId} />;
}
