// The console's one escaping helper: every interpolation is escaped, markup built by html`…` is kept as is,
// and nothing else can become markup.
import { describe, expect, test } from "vitest";
import { escapeHtml, html } from "../../app/agent_computer/src/console/html.ts";

describe("console html escaping", () => {
  test("escapeHtml escapes the five characters that can end text or a quoted attribute", () => {
    expect(escapeHtml(`<script>alert("x") & 'y'</script>`)).toBe(
      "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;",
    );
    expect(escapeHtml("plain text, ünïcödé, 🙂")).toBe("plain text, ünïcödé, 🙂");
    expect(escapeHtml("&amp;")).toBe("&amp;amp;");
  });

  test("interpolated strings are escaped in text and in attributes; the literal markup is kept", () => {
    const label = `"><img src=x onerror=alert(1)>`;
    expect(html`<p title="${label}">${label}</p>`.text).toBe(
      '<p title="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;">&quot;&gt;&lt;img src=x onerror=alert(1)&gt;</p>',
    );
  });

  test("Html built by html`…` nests without double escaping; arrays render each item", () => {
    const items = ["<a>", "b&c"].map((s) => html`<li>${s}</li>`);
    expect(html`<ul>${items}</ul>`.text).toBe("<ul><li>&lt;a&gt;</li><li>b&amp;c</li></ul>");
    expect(html`${[["<x>"], html`<br>`]}`.text).toBe("&lt;x&gt;<br>");
  });

  test("numbers render as text; null, undefined and false render nothing", () => {
    expect(html`${0}|${3.5}|${null}|${undefined}|${false}|${""}`.text).toBe("0|3.5||||");
    const none: string | null = null;
    expect(html`a${none !== null && html`<b>${none}</b>`}z`.text).toBe("az");
  });

  test("an object that merely looks like Html is escaped like any other value", () => {
    const impostor = { text: "<script>alert(1)</script>", toString: () => "<script>alert(1)</script>" };
    expect(html`${impostor as unknown as string}`.text).toBe("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  test("whatever the input, no interpolated character can open a tag or end an attribute", () => {
    const alphabet = `<>&"'=/ ab\n\u0000\u2028`;
    for (let i = 0; i < 500; i++) {
      const value = Array.from({ length: 12 }, () => alphabet[Math.floor(Math.random() * alphabet.length)]).join("");
      const out = html`<i title="${value}">${value}</i>`.text;
      expect([out.split("<").length - 1, out.split(">").length - 1, out.split('"').length - 1]).toEqual([2, 2, 2]);
      expect(out).not.toContain("'");
    }
  });
});

describe("console text that a browser would act on", () => {
  test("bidi, zero-width and control characters in a value are shown as visible escapes, newlines kept", () => {
    const label = "invoice\u202eexe.pdf\u200b\u0007\nnext";
    expect(html`<p>${label}</p>`.text).toBe("<p>invoice\\u202eexe.pdf\\u200b\\x07\nnext</p>");
  });
});
