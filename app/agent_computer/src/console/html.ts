// The console's one escaping rule: markup is only ever built with html`…`, which escapes every
// interpolated value unless it is itself Html built the same way. There is deliberately no "raw" helper,
// so untrusted text (job labels, script output, agent statuses, error text) cannot reach a page unescaped.
// Interpolate into element text or into quoted attribute values only. Values are neutralised first (terminal-text.ts):
// a browser applies bidi overrides and hides zero-width and control characters just as a terminal does, so they are
// shown as visible escapes (\u202e) instead; newlines and tabs stay for output tails.
import { neutralize } from "../terminal-text.ts";

const ENTITIES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);

/** Null, undefined and false render nothing, so `cond && html\`…\`` works; arrays render each item. */
export type Interpolation = Html | string | number | false | null | undefined | readonly Interpolation[];

const render = (value: Interpolation): string => {
  if (value === null || value === undefined || value === false) return "";
  if (value instanceof Html) return value.text;
  if (Array.isArray(value)) return value.map(render).join("");
  return escapeHtml(neutralize(String(value)));
};

/** Markup that is safe to send: its literal parts came from our source, its values were escaped. */
export class Html {
  private constructor(readonly text: string) {}

  static template(strings: TemplateStringsArray, ...values: Interpolation[]): Html {
    let text = strings[0] ?? "";
    for (let i = 0; i < values.length; i++) text += render(values[i]) + (strings[i + 1] ?? "");
    return new Html(text);
  }
}

export const html = Html.template;
