// Which addresses an endpoint may reach. A webhook is an HTTP request the worker makes on an agent's behalf, so by
// default it goes only to globally reachable addresses: a block of the IANA IPv4 or IPv6 Special-Purpose Address
// Registry is refused unless the registry calls it globally reachable (the most specific block decides), and so are
// multicast, every IPv6 address outside 2000::/3 (unassigned space, site-local fec0::/10, IPv4-compatible ::/96,
// multicast) and this host's own addresses, whatever their range (a service listening on every interface answers on
// them). --allow-private lifts all of it for one endpoint.
import { isIP } from "node:net";

type Cidr = readonly [block: string, name: string, globallyReachable: boolean];

// The registry's "Globally Reachable" column; N/A counts as not reachable.
const IPV4_SPECIAL: readonly Cidr[] = [
  ["0.0.0.0/8", '"This network"', false],
  ["0.0.0.0/32", '"This host on this network"', false],
  ["10.0.0.0/8", "Private-Use", false],
  ["100.64.0.0/10", "Shared Address Space", false],
  ["127.0.0.0/8", "Loopback", false],
  ["169.254.0.0/16", "Link Local", false],
  ["172.16.0.0/12", "Private-Use", false],
  ["192.0.0.0/24", "IETF Protocol Assignments", false],
  ["192.0.0.0/29", "IPv4 Service Continuity Prefix", false],
  ["192.0.0.8/32", "IPv4 dummy address", false],
  ["192.0.0.9/32", "Port Control Protocol Anycast", true],
  ["192.0.0.10/32", "Traversal Using Relays around NAT Anycast", true],
  ["192.0.0.170/32", "NAT64/DNS64 Discovery", false],
  ["192.0.0.171/32", "NAT64/DNS64 Discovery", false],
  ["192.0.2.0/24", "Documentation (TEST-NET-1)", false],
  ["192.31.196.0/24", "AS112-v4", true],
  ["192.52.193.0/24", "AMT", true],
  ["192.88.99.0/24", "Deprecated (6to4 Relay Anycast)", false],
  ["192.88.99.2/32", "6a44-relay anycast address", false],
  ["192.168.0.0/16", "Private-Use", false],
  ["192.175.48.0/24", "Direct Delegation AS112 Service", true],
  ["198.18.0.0/15", "Benchmarking", false],
  ["198.51.100.0/24", "Documentation (TEST-NET-2)", false],
  ["203.0.113.0/24", "Documentation (TEST-NET-3)", false],
  ["240.0.0.0/4", "Reserved", false],
  ["255.255.255.255/32", "Limited Broadcast", false],
  // Not in the special-purpose registry: the multicast space.
  ["224.0.0.0/4", "Multicast", false],
];

const IPV6_SPECIAL: readonly Cidr[] = [
  ["::1/128", "Loopback Address", false],
  ["::/128", "Unspecified Address", false],
  ["::ffff:0:0/96", "IPv4-mapped Address", false],
  // The registry calls the well-known NAT64 prefix globally reachable; refused all the same, because a translator on
  // this host's network turns it into the IPv4 address inside, which may be loopback, private or this host's.
  ["64:ff9b::/96", "IPv4-IPv6 Translat.", false],
  ["64:ff9b:1::/48", "IPv4-IPv6 Translat.", false],
  ["100::/64", "Discard-Only Address Block", false],
  ["100:0:0:1::/64", "Dummy IPv6 Prefix", false],
  ["2001::/23", "IETF Protocol Assignments", false],
  ["2001::/32", "TEREDO", false],
  ["2001:1::1/128", "Port Control Protocol Anycast", true],
  ["2001:1::2/128", "Traversal Using Relays around NAT Anycast", true],
  ["2001:1::3/128", "DNS-SD Service Registration Protocol Anycast", true],
  ["2001:2::/48", "Benchmarking", false],
  ["2001:3::/32", "AMT", true],
  ["2001:4:112::/48", "AS112-v6", true],
  ["2001:10::/28", "Deprecated (previously ORCHID)", false],
  ["2001:20::/28", "ORCHIDv2", true],
  ["2001:30::/28", "Drone Remote ID Protocol Entity Tags (DETs) Prefix", true],
  ["2001:db8::/32", "Documentation", false],
  // 6to4 carries an IPv4 address a relay would reach: refused whatever that address is.
  ["2002::/16", "6to4", false],
  ["2620:4f:8000::/48", "Direct Delegation AS112 Service", true],
  ["3fff::/20", "Documentation", false],
  ["5f00::/16", "Segment Routing (SRv6) SIDs", false],
  ["fc00::/7", "Unique-Local", false],
  ["fe80::/10", "Link-Local Unicast", false],
];

/** An address's bytes (4 or 16), or undefined when it is not an IP address. A zone (%eth0) and brackets are dropped. */
export const addressBytes = (address: string): Uint8Array | undefined => {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(bare);
  if (family === 4) return Uint8Array.from(bare.split(".").map(Number));
  if (family !== 6) return undefined;
  let text = bare.toLowerCase();
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const headGroups = head === "" ? [] : head.split(":");
  const tailGroups = tail === undefined || tail === "" ? [] : tail.split(":");
  const zeros = Array.from({ length: 8 - headGroups.length - tailGroups.length }, () => "0");
  const groups = [...headGroups, ...(tail === undefined ? [] : zeros), ...tailGroups].map((g) => Number.parseInt(g, 16));
  return Uint8Array.from(groups.flatMap((g) => [g >> 8, g & 255]));
};

interface Block {
  bytes: Uint8Array;
  prefix: number;
  globallyReachable: boolean;
}

const toBlock = ([cidr, , globallyReachable]: Cidr): Block => {
  const [address = "", prefix = ""] = cidr.split("/");
  return { bytes: addressBytes(address) as Uint8Array, prefix: Number(prefix), globallyReachable };
};

const V4_BLOCKS = IPV4_SPECIAL.map(toBlock);
const V6_BLOCKS = IPV6_SPECIAL.map(toBlock);

const inBlock = (bytes: Uint8Array, block: Block): boolean => {
  for (let bit = 0; bit < block.prefix; bit += 1) {
    const mask = 0x80 >> (bit % 8);
    const byte = Math.floor(bit / 8);
    if (((bytes[byte] as number) & mask) !== ((block.bytes[byte] as number) & mask)) return false;
  }
  return true;
};

/** The most specific special-purpose block holding the address, if any. */
const mostSpecific = (bytes: Uint8Array, blocks: readonly Block[]): Block | undefined =>
  blocks.filter((block) => inBlock(bytes, block)).sort((a, b) => b.prefix - a.prefix)[0];

/** true for an address a webhook may not reach without --allow-private: anything not globally reachable (v4 or v6). */
export const isPrivateAddress = (address: string): boolean => {
  const bytes = addressBytes(address);
  if (bytes === undefined) return true;
  if (bytes.length === 16 && ((bytes[0] as number) & 0xe0) !== 0x20) return true; // outside 2000::/3
  const block = mostSpecific(bytes, bytes.length === 4 ? V4_BLOCKS : V6_BLOCKS);
  return block !== undefined && !block.globallyReachable;
};

/** Whether two spellings name one address (::ffff:7f00:1 and ::ffff:127.0.0.1, fe80::1%eth0 and fe80::1). */
export const sameAddress = (a: string, b: string): boolean => {
  const x = addressBytes(a);
  const y = addressBytes(b);
  return x !== undefined && y !== undefined && x.length === y.length && x.every((byte, i) => byte === y[i]);
};

/** An address the worker refuses to connect to: not globally reachable, or one of this host's own addresses. */
export const isRefusedAddress = (address: string, hostAddresses: readonly string[]): boolean =>
  isPrivateAddress(address) || hostAddresses.some((own) => sameAddress(own, address));

/** A host written in the URL itself that is not public: an IP literal of those ranges, or localhost and its names. */
export const isPrivateHost = (hostname: string): boolean => {
  const host = hostname.toLowerCase().replace(/\.$/, "");
  if (addressBytes(host) !== undefined) return isPrivateAddress(host);
  return host === "localhost" || host.endsWith(".localhost");
};
