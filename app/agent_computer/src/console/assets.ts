// The console's two static files, embedded as text so the compiled executable serves them too.
import stylesheet from "./console.css" with { type: "text" };
import refreshScript from "./live-refresh.js" with { type: "text" };

export const ASSETS = {
  "/console/console.css": { body: stylesheet, type: "text/css; charset=utf-8" },
  "/console/live-refresh.js": { body: refreshScript, type: "text/javascript; charset=utf-8" },
} as const;
