// A page of another origin (127.0.0.2, a server of its own, none of the console's headers) holding a form that posts
// the given fields to `action`: what a hostile site open in the owner's browser can do. Close it when done.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";

export const forgerSite = async (action: string, fields: Record<string, string>): Promise<{ url: string; close(): void }> => {
  const quote = (text: string) => text.replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;");
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type="hidden" name="${quote(name)}" value="${quote(value)}">`)
    .join("");
  const server = createServer((_, response) => {
    response.writeHead(200, { "content-type": "text/html" });
    response.end(
      `<!doctype html><form method="post" action="${quote(action)}">${inputs}<button id="go">win a prize</button></form>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.2", resolve));
  return {
    url: `http://127.0.0.2:${(server.address() as AddressInfo).port}/`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
};
