// What a browser without the console's cookie or a valid link gets: no data (not even the state directory's path),
// only how the owner gets the link.
// No navigation and no refresh script: there is nothing to show until the browser signs in.
// A navigation that started on another site (the link clicked in a web chat) arrives without the SameSite=Strict
// cookie, even right after the link set it; one refresh starts a navigation on this console, which sends it.
import { html } from "./html.ts";

export const deniedPage = (command: string, fromAnotherSite: boolean): string =>
  html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sign-in link needed · agent-computer</title>
${fromAnotherSite && html`<meta http-equiv="refresh" content="0">`}
<link rel="stylesheet" href="/console/console.css">
</head>
<body>
<header class="top"><span class="brand">agent-computer</span></header>
<main id="console-denied">
<h1>Sign-in link needed</h1>
<p>This console is private to the Unix user who runs the worker. As that user, run</p>
<pre><code>${command}</code></pre>
<p>and open the link it prints (the worker also prints it when it starts in a terminal). The link carries the secret
kept in <code>console-token</code> in the worker's state directory; this browser then keeps a cookie, and the console's
plain address works without the link.</p>
<p class="hint">Just opened the link from another web page and still see this? <a href="/">Open the console</a> again:
the browser sends its cookie only on navigations that start on this console.</p>
</main>
</body>
</html>
`.text;
