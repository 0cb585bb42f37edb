/**
 * Trends formulas ("A/B*100", "(A+B)/2"): parsed once into a tree, evaluated per data
 * point. As PostHog's FormulaAST: letters (either case) name the series by position, A
 * the first; numbers; + - * / % ** and parentheses; unary minus and plus; a division or
 * remainder by zero gives 0. Nothing else — no names, calls or eval.
 */

export type Formula =
  | { type: "number"; value: number }
  | { type: "series"; index: number }
  | { type: "unary"; op: "-" | "+"; operand: Formula }
  | { type: "binary"; op: "+" | "-" | "*" | "/" | "%" | "**"; left: Formula; right: Formula };

export class FormulaError extends Error {}

type Token = { kind: "number"; value: number } | { kind: "letter"; index: number } | { kind: "op"; op: string };

function tokenize(text: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === " " || c === "\t") {
      i++;
    } else if (/[0-9.]/.test(c)) {
      const match = /^(\d+\.?\d*|\.\d+)(e[-+]?\d+)?/i.exec(text.slice(i));
      if (!match) throw new FormulaError(`Formula has a malformed number at position ${i + 1}.`);
      tokens.push({ kind: "number", value: Number(match[0]) });
      i += match[0].length;
    } else if (/[a-z]/i.test(c)) {
      if (i + 1 < text.length && /[a-z0-9_]/i.test(text[i + 1]!)) {
        throw new FormulaError(`Formulas only support arithmetic between series (single letters like A and B), not '${/^[a-z0-9_]+/i.exec(text.slice(i))![0]}'.`);
      }
      tokens.push({ kind: "letter", index: c.toUpperCase().charCodeAt(0) - 65 });
      i++;
    } else if (text.startsWith("**", i)) {
      tokens.push({ kind: "op", op: "**" });
      i += 2;
    } else if ("+-*/%()".includes(c)) {
      tokens.push({ kind: "op", op: c });
      i++;
    } else {
      throw new FormulaError(`Formulas only support arithmetic ( + - * / % ** ) between series, not '${c}'.`);
    }
  }
  return tokens;
}

/** Parses a formula (Python's precedence: ** binds tighter than unary minus, and to the right). */
export function parseFormula(text: string): Formula {
  const tokens = tokenize(text);
  let at = 0;
  const peek = () => tokens[at];
  const isOp = (token: Token | undefined, ...ops: string[]) => token?.kind === "op" && ops.includes(token.op);

  const expression = (): Formula => {
    let left = term();
    while (isOp(peek(), "+", "-")) {
      const op = (tokens[at++] as { op: "+" | "-" }).op;
      left = { type: "binary", op, left, right: term() };
    }
    return left;
  };
  const term = (): Formula => {
    let left = unary();
    while (isOp(peek(), "*", "/", "%")) {
      const op = (tokens[at++] as { op: "*" | "/" | "%" }).op;
      left = { type: "binary", op, left, right: unary() };
    }
    return left;
  };
  const unary = (): Formula => {
    if (isOp(peek(), "-", "+")) {
      const op = (tokens[at++] as { op: "-" | "+" }).op;
      return { type: "unary", op, operand: unary() };
    }
    return power();
  };
  const power = (): Formula => {
    const base = atom();
    if (isOp(peek(), "**")) {
      at++;
      return { type: "binary", op: "**", left: base, right: unary() };
    }
    return base;
  };
  const atom = (): Formula => {
    const token = tokens[at++];
    if (!token) throw new FormulaError("Formula ends too early.");
    if (token.kind === "number") return { type: "number", value: token.value };
    if (token.kind === "letter") return { type: "series", index: token.index };
    if (token.op === "(") {
      const inner = expression();
      if (!isOp(tokens[at++], ")")) throw new FormulaError("Formula has an unclosed parenthesis.");
      return inner;
    }
    throw new FormulaError(`Formula has an unexpected '${token.op}'.`);
  };

  if (tokens.length === 0) throw new FormulaError("Formula is empty.");
  const tree = expression();
  if (at < tokens.length) throw new FormulaError("Formula has text after its end.");
  return tree;
}

/** The highest series index a formula reads, -1 for none. */
export function maxSeriesIndex(formula: Formula): number {
  switch (formula.type) {
    case "number":
      return -1;
    case "series":
      return formula.index;
    case "unary":
      return maxSeriesIndex(formula.operand);
    case "binary":
      return Math.max(maxSeriesIndex(formula.left), maxSeriesIndex(formula.right));
  }
}

/** The formula's value with `values[i]` for series i; division or remainder by zero is 0 (PostHog's). */
export function evaluateFormula(formula: Formula, values: readonly number[]): number {
  switch (formula.type) {
    case "number":
      return formula.value;
    case "series":
      return values[formula.index] ?? 0;
    case "unary": {
      const operand = evaluateFormula(formula.operand, values);
      return formula.op === "-" ? -operand : operand;
    }
    case "binary": {
      const left = evaluateFormula(formula.left, values);
      const right = evaluateFormula(formula.right, values);
      switch (formula.op) {
        case "+":
          return left + right;
        case "-":
          return left - right;
        case "*":
          return left * right;
        case "/":
          return right === 0 ? 0 : left / right;
        // Python's remainder takes the divisor's sign.
        case "%":
          return right === 0 ? 0 : left - right * Math.floor(left / right);
        case "**":
          return left ** right;
      }
    }
  }
}
