// Small, escaped renderings of values that appear on several pages: times, ages, durations, absent values.
import { type Html, html } from "./html.ts";

/** An absent value. */
export const none = html`<span class="none">—</span>`;

/** An ISO time as "2026-05-01 12:00:03 UTC", machine-readable in the datetime attribute. */
export const when = (iso: string | null | undefined): Html =>
  iso ? html`<time datetime="${iso}">${iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "")} UTC</time>` : none;

/** Seconds as the largest sensible unit: "42 s", "5 min", "3 h", "2 d". */
export const age = (seconds: number): string => {
  if (seconds < 90) return `${seconds} s`;
  if (seconds < 90 * 60) return `${Math.round(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${Math.round(seconds / 3600)} h`;
  return `${Math.round(seconds / 86_400)} d`;
};

export const duration = (ms: number | null): string | Html => {
  if (ms === null) return none;
  return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : age(Math.round(ms / 1000));
};

/** The end of a long text (the end of a script's output is what explains how it ended). */
export const lastChars = (text: string, max: number): string =>
  text.length <= max ? text : `[… ${text.length - max} earlier characters not shown]\n${text.slice(-max)}`;
