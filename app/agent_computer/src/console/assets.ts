// The console's two static files, embedded as text so the compiled executable serves them too. The stylesheet is
// kept in two files (the pages of jobs and agents, and the mesh's messages and forms) and served as one.
import stylesheet from "./console.css" with { type: "text" };
import meshStylesheet from "./console-mesh.css" with { type: "text" };
import refreshScript from "./live-refresh.js" with { type: "text" };

export const ASSETS = {
  "/console/console.css": { body: `${stylesheet}\n${meshStylesheet}`, type: "text/css; charset=utf-8" },
  "/console/live-refresh.js": { body: refreshScript, type: "text/javascript; charset=utf-8" },
} as const;
