// The frame around every console page: head (stylesheet, refresh script, no-JavaScript refresh), the
// navigation and the <main> that the refresh script swaps for a fresh copy.
import { type Html, html } from "./html.ts";

export const REFRESH_SECONDS = 5;

export interface Page {
  title: string;
  body: Html;
  /** false: a page with a form, which no refresh may wipe while someone types. */
  live?: false;
}

export const NAV = [
  { path: "/", label: "Automation jobs" },
  { path: "/triggers", label: "Triggers" },
  { path: "/webhooks", label: "Webhooks" },
  { path: "/agents", label: "Agents" },
  { path: "/messages", label: "Messages" },
  { path: "/channels", label: "Channels" },
  { path: "/tasks", label: "Tasks" },
  { path: "/leases", label: "Leases" },
  { path: "/compose", label: "Write" },
] as const;

/** A page's place in the navigation; a page outside it (a thread) names the entry it belongs under. */
export type ConsolePath = (typeof NAV)[number]["path"];

export const layout = (page: Page, current: ConsolePath, generatedAt: Date): Html => html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title} · agent-computer</title>
<link rel="stylesheet" href="/console/console.css">
${
  page.live !== false &&
  html`<script type="module" src="/console/live-refresh.js"></script>
<noscript><meta http-equiv="refresh" content="${REFRESH_SECONDS}"></noscript>`
}
</head>
<body>
<header class="top">
<span class="brand">agent-computer</span>
<nav>${NAV.map((item) => html`<a href="${item.path}"${item.path === current && html` aria-current="page"`}>${item.label}</a>`)}</nav>
${
  page.live === false
    ? html`<span id="live-status" class="live offline">not refreshed while you write</span>`
    : html`<span id="live-status" class="live" data-refresh-seconds="${REFRESH_SECONDS}">live · every ${REFRESH_SECONDS} s</span>`
}
</header>
<main>
<h1>${page.title}</h1>
<p class="generated">Read from the store at ${html`<time datetime="${generatedAt.toISOString()}">${generatedAt.toISOString().slice(11, 19)} UTC</time>`}.</p>
${page.body}
</main>
</body>
</html>
`;
