// DNS rebinding guard: a web page the user visits can make the browser send requests to 127.0.0.1 under the
// page's own host name and read the answers. The console refuses any Host that is not a loopback name.

const isLoopbackName = (name: string): boolean =>
  name === "localhost" || name.endsWith(".localhost") || name === "[::1]" || name === "::1" || /^127(\.\d{1,3}){3}$/.test(name);

/** Bound to loopback, only loopback names may be asked for; bound elsewhere (--host), the operator chose the exposure. */
export const hostAllowed = (boundHost: string, hostHeader: string | null): boolean => {
  if (!isLoopbackName(boundHost)) return true;
  if (!hostHeader) return false;
  return isLoopbackName(hostHeader.toLowerCase().replace(/:\d+$/, ""));
};
