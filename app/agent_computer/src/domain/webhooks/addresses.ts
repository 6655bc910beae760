// Which addresses an endpoint may reach. A webhook is an HTTP request the worker makes on an agent's behalf, so by
// default it goes only to public addresses: loopback, private, link-local (cloud metadata), CGNAT, unique-local and
// unspecified addresses are refused unless the endpoint was added with --allow-private.
import { isIP } from "node:net";

const V4_PRIVATE: readonly (readonly [number, number, number])[] = [
  // [first octet, second octet low, second octet high]; -1 = any second octet
  [0, -1, -1],
  [10, -1, -1],
  [100, 64, 127],
  [127, -1, -1],
  [169, 254, 254],
  [172, 16, 31],
  [192, 168, 168],
  [198, 18, 19],
];

const privateV4 = (address: string): boolean => {
  const [a = -1, b = -1] = address.split(".").map(Number);
  if (a >= 224) return true; // multicast and reserved
  return V4_PRIVATE.some(([first, low, high]) => a === first && (low === -1 || (b >= low && b <= high)));
};

const privateV6 = (address: string): boolean => {
  const a = address.toLowerCase().replace(/^\[|\]$/g, "");
  if (a === "::" || a === "::1") return true;
  // IPv4-mapped and IPv4-compatible forms reach the IPv4 address inside: judge that one.
  const dotted = /^::(?:ffff:)?(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (dotted) return privateV4(dotted[1] as string);
  const hex = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(a);
  if (hex) {
    const high = Number.parseInt(hex[1] as string, 16);
    const low = Number.parseInt(hex[2] as string, 16);
    return privateV4(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`);
  }
  return /^(fc|fd|fe[89ab]|ff)/.test(a);
};

/** true for an IP address that is not a public unicast one (v4 or v6). */
export const isPrivateAddress = (address: string): boolean => {
  const bare = address.replace(/^\[|\]$/g, "");
  const family = isIP(bare);
  if (family === 4) return privateV4(bare);
  if (family === 6) return privateV6(bare);
  return false;
};

/** A host written in the URL itself that is not public: an IP literal of those ranges, or localhost and its names. */
export const isPrivateHost = (hostname: string): boolean => {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  return isPrivateAddress(host) || host === "localhost" || host.endsWith(".localhost");
};
