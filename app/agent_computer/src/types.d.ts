declare module "*.sql" {
  const text: string;
  export default text;
}

// The console's static files, imported `with { type: "text" }` (console/assets.ts).
declare module "*.css" {
  const text: string;
  export default text;
}

declare module "*/live-refresh.js" {
  const text: string;
  export default text;
}
