// Man pages, generated at build time from each binary's --help (scripts/build.ts renders the help, then calls this):
// the help is the contract, so the page is that text in roff. The title line gives NAME, each "Heading:" line at the
// left margin after a blank line opens a section, the description's paragraphs are left for man to fill, and every
// other section keeps its layout (flags, usage lines, examples). Written to dist/man/man1/<binary>.1 (git-ignored; the
// package lists them in package.json "man", scripts/write-bin.ts keeps that list).

import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Text safe in roff: backslashes and hyphens escaped, anything outside ASCII as a \[uXXXX] glyph. */
const roffText = (text: string): string =>
  text
    .replace(/\\/g, "\\e")
    .replace(/-/g, "\\-")
    .replace(/[^ -~]/gu, (c) => `\\[u${(c.codePointAt(0) ?? 0x3f).toString(16).toUpperCase().padStart(4, "0")}]`);

/** A line of text that roff must not read as a request (a leading . or '). */
const roffLine = (line: string): string => {
  const text = roffText(line);
  return /^[.']/.test(text) ? `\\&${text}` : text;
};

/** "Options:", "Errors (code, exit):", "Subcommands (each has …):": at the margin, ending in a colon. */
const HEADING = /^[A-Z][^\n]{0,98}:$/;

interface Section {
  title: string;
  lines: string[];
}

/** The help split into its title paragraph, description and "Heading:" sections. */
const sections = (help: string): { title: string; description: string[]; rest: Section[] } => {
  const lines = help.replace(/\n+$/, "").split("\n");
  const blank = lines.indexOf("");
  const title = lines.slice(0, blank === -1 ? 1 : blank).join(" ");
  const description: string[] = [];
  const rest: Section[] = [];
  for (let i = blank === -1 ? 1 : blank + 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (lines[i - 1] === "" && HEADING.test(line)) rest.push({ title: line.slice(0, -1), lines: [] });
    else if (rest.length > 0) (rest.at(-1) as Section).lines.push(line);
    else description.push(line);
  }
  return { title, description, rest };
};

export const manPage = (binary: string, help: string, version: string): string => {
  const { title, description, rest } = sections(help);
  const summary = title.includes(" — ") ? title.slice(title.indexOf(" — ") + 3) : title;
  const out = [
    `.\\" Generated from \`${binary} --help\` by scripts/man-pages.ts; edit the help, not this page.`,
    `.TH ${roffText(binary.toUpperCase())} 1 "" "agent-computer ${roffText(version)}" "agent-computer"`,
    ".SH NAME",
    `${roffText(binary)} \\- ${roffText(summary)}`,
    ".SH DESCRIPTION",
  ];
  for (const paragraph of description.join("\n").split(/\n{2,}/)) {
    if (paragraph.trim() === "") continue;
    out.push(".PP", ...paragraph.split("\n").map(roffLine));
  }
  for (const section of rest) {
    while (section.lines.at(-1) === "") section.lines.pop();
    // "Subcommands (each has its full contract: …)": the name is the heading, the aside its first line.
    const aside = section.title.indexOf(" (");
    const heading = aside === -1 ? section.title : section.title.slice(0, aside);
    const lines = aside === -1 ? section.lines : [`  ${section.title.slice(aside + 1)}`, ...section.lines];
    out.push(`.SH ${roffText(heading.toUpperCase())}`, ".nf", ...lines.map(roffLine), ".fi");
  }
  return `${out.join("\n")}\n`;
};

/** Replaces dir's pages with one per binary, in dir/man1 (so dir can be put on MANPATH). */
export const writeManPages = (dir: string, help: Readonly<Record<string, string>>, version: string): void => {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(join(dir, "man1"), { recursive: true });
  for (const [binary, text] of Object.entries(help)) {
    writeFileSync(join(dir, "man1", `${binary}.1`), manPage(binary, text, version));
  }
};
